"""The account pages word the services' refusals for a person: the sentences
meant for API clients (the Retry-After header, endpoint paths) are left out, in
every language, and a refusal that ends with time says how long to wait."""

from __future__ import annotations

import pytest
from django.utils import translation

from accounts.errors import InvalidCredentialsError, TooManyAttemptsError, TooManyCodesError, VerificationExpiredError
from accounts.forms import page_refusal

API_WORDS = ("Retry-After", "/api/", "POST ")


@pytest.mark.parametrize("language", ["en", "it", "lv"])
@pytest.mark.parametrize("error", [
    TooManyCodesError(retry_after=7200),
    TooManyAttemptsError(retry_after=60),
    VerificationExpiredError(),
], ids=lambda error: type(error).__name__)
def test_a_refusal_on_a_page_names_no_header_or_endpoint(language: str, error: object) -> None:
    with translation.override(language):
        fresh = type(error)(retry_after=getattr(error, "retry_after", None))  # its message in this language
        said = page_refusal(fresh)
        assert any(word in fresh.message for word in API_WORDS), "the API's message names them"
    assert said and not any(word in said for word in API_WORDS), said


def test_what_remains_is_the_services_own_words_and_the_wait() -> None:
    with translation.override("en"):
        assert page_refusal(TooManyCodesError(retry_after=7200)) == (
            "This address has been sent as many codes as it may get in a day. Try again in 2 hours."
        )
        assert page_refusal(VerificationExpiredError()) == "That code has expired."
        # A refusal with nothing for API clients in it is shown as it is.
        assert page_refusal(InvalidCredentialsError()) == InvalidCredentialsError().message
    with translation.override("it"):
        assert page_refusal(TooManyCodesError(retry_after=7200)).endswith("Riprova tra 2 ore.")
