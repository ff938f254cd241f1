"""A problem's `title` and `detail` follow the request's Accept-Language (English
by default); its `code`, `type`, `status` and field names never change. Every
API answer says its language (Content-Language) and that it depends on
Accept-Language (Vary), problems made before the language middleware included.
The problem pages at a problem's `type` read in the language asked for too."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.utils.cache import get_max_age

pytestmark = pytest.mark.django_db


def _verify(language: str | None, **body: Any) -> Any:
    extra = {"HTTP_ACCEPT_LANGUAGE": language} if language else {}
    return Client().post(
        "/api/v1/players/verify/",
        {"username": "nobody", "code": "ABCDEFGHJK", **body},
        content_type="application/json",
        **extra,
    )


def _vary(answer: Any) -> list[str]:
    return [part.strip().lower() for part in answer.get("Vary", "").split(",")]


def test_a_problems_detail_and_title_are_italian_for_an_italian_request_and_its_code_stays() -> None:
    english, italian = _verify(None), _verify("it-IT,it;q=0.9")

    assert italian.status_code == english.status_code == 400
    body = italian.json()
    assert body["detail"] == "Nessun account aspetta la verifica con quel nome. Prima registrati."
    assert body["title"] == "Verifica non riuscita"
    assert (body["code"], body["type"], body["status"]) == (
        english.json()["code"],
        english.json()["type"],
        english.json()["status"],
    )
    assert body["code"] == "verification_failed" and body["type"].endswith("/problems/verification_failed/")
    assert english.json()["detail"] == "No account is waiting for verification under that name. Sign up first."


def test_a_problem_says_its_language_and_varies_on_accept_language() -> None:
    for header, language in (("lv", "lv"), ("it", "it"), (None, "en"), ("de", "en")):
        answer = _verify(header)
        assert answer["Content-Language"] == language, header
        assert "accept-language" in _vary(answer), header


def test_validation_errors_keep_their_field_names_in_latvian() -> None:
    answer = Client().post(
        "/api/v1/players/verify/", {"username": "carol"}, content_type="application/json", HTTP_ACCEPT_LANGUAGE="lv"
    )
    body = answer.json()
    assert answer.status_code == 400 and body["code"] == "validation_error"
    assert body["title"] == "Nederīgi dati"
    assert list(body["errors"]) == ["code"]
    assert body["detail"].startswith("code: ")


def test_an_unknown_api_address_is_a_latvian_problem_from_the_middleware() -> None:
    answer = Client().get("/api/v1/games", HTTP_ACCEPT_LANGUAGE="lv")
    body = answer.json()
    assert answer.status_code == 404 and body["code"] == "not_found"
    assert body["detail"] == "API adreses beidzas ar slīpsvītru: izmanto /api/v1/games/, nevis /api/v1/games."
    assert answer["Content-Language"] == "lv" and "accept-language" in _vary(answer)


@pytest.mark.parametrize(
    ("limit", "length", "detail"),
    [
        (1, 2, "Pieprasījuma saturs ir 2 baiti; ierobežojums ir 1 baits."),
        (2, 11, "Pieprasījuma saturs ir 11 baitu; ierobežojums ir 2 baiti."),
        (11, 21, "Pieprasījuma saturs ir 21 baits; ierobežojums ir 11 baitu."),
    ],
)
def test_a_body_too_large_counts_its_bytes_in_latvian_before_the_language_middleware_runs(
    settings: Any, limit: int, length: int, detail: str
) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = limit
    answer = Client().post(
        "/api/v1/games/", "x" * length, content_type="application/json", HTTP_ACCEPT_LANGUAGE="lv"
    )
    body = answer.json()
    assert answer.status_code == 413 and body["code"] == "payload_too_large" and body["limit"] == limit
    assert body["detail"] == detail
    assert answer["Content-Language"] == "lv" and "accept-language" in _vary(answer)


def test_a_body_too_large_stays_english_by_default(settings: Any) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1
    answer = Client().post("/api/v1/games/", "{}", content_type="application/json")
    assert answer.json()["detail"] == "The request body is 2 bytes; the limit is 1 byte."
    assert answer["Content-Language"] == "en"


def test_the_problem_page_reads_in_italian_and_its_code_stays() -> None:
    page = Client().get("/problems/verification_failed/", HTTP_ACCEPT_LANGUAGE="it")
    text = page.content.decode()
    assert page.status_code == 200
    assert "Verifica non riuscita" in text and "Cosa significa" in text and "Cosa fare" in text
    assert "<code>verification_failed</code>" in text
    assert "What it means" not in text and "Verification failed" not in text
    assert page["Content-Language"] == "it"
    assert {"accept", "accept-language", "cookie"} <= set(_vary(page)) and get_max_age(page)


def test_the_problem_types_as_json_are_latvian_with_the_same_codes() -> None:
    english = Client().get("/problems/", HTTP_ACCEPT="application/json").json()["problem_types"]
    latvian = Client().get("/problems/", HTTP_ACCEPT="application/json", HTTP_ACCEPT_LANGUAGE="lv").json()[
        "problem_types"
    ]
    assert [(p["code"], p["type"], p["status"]) for p in latvian] == [
        (p["code"], p["type"], p["status"]) for p in english
    ]
    by_code = {p["code"]: p for p in latvian}
    assert by_code["not_found"]["title"] == "Nav atrasts"
    assert by_code["not_found"]["seen_in"] == "API"


def test_the_problem_page_follows_the_language_switchs_cookie() -> None:
    browser = Client()
    browser.cookies["language"] = "lv"
    page = browser.get("/problems/not_found/", HTTP_ACCEPT_LANGUAGE="it")
    assert "Ko tas nozīmē" in page.content.decode() and page["Content-Language"] == "lv"
    assert "cookie" in _vary(page)


def test_the_problem_index_reads_in_latvian() -> None:
    text = Client().get("/problems/", HTTP_ACCEPT_LANGUAGE="lv").content.decode()
    assert "Problēmu veidi" in text and "ko tas nozīmē" in text and "Problem types" not in text


def test_a_field_the_endpoint_does_not_take_is_named_in_italian_with_the_fields_it_does() -> None:
    answer = _verify("it", colour="red")
    body = answer.json()
    assert answer.status_code == 400 and body["code"] == "validation_error" and "colour" in body["errors"]
    [message] = body["errors"]["colour"]
    assert message.startswith("Questa richiesta non ha questo campo; qui i campi sono ")
    assert "`username`" in message and "`code`" in message and " e " in message


@pytest.mark.urls("tests.site.urls")
def test_a_server_error_in_an_api_view_is_a_latvian_problem(client: Client) -> None:
    client.raise_request_exception = False
    answer = client.get("/api/test/broken/", HTTP_ACCEPT_LANGUAGE="lv")
    body = answer.json()
    assert answer.status_code == 500 and body["code"] == "server_error"
    assert body["detail"] == "Mūsu pusē kaut kas nogāja greizi. Tas ir reģistrēts; lūdzu, mēģini vēlāk."
    assert body["title"] == "Servera iekšēja kļūda"
    assert answer["Content-Language"] == "lv" and "accept-language" in _vary(answer)


@pytest.mark.urls("tests.site.urls")
def test_an_unknown_api_address_is_an_italian_problem(client: Client) -> None:
    answer = client.get("/api/v1/nothing-here/", HTTP_ACCEPT_LANGUAGE="it")
    body = answer.json()
    assert answer.status_code == 404 and body["code"] == "not_found"
    assert body["detail"] == "A questo indirizzo non c'è niente." and body["title"] == "Non trovato"
    assert answer["Content-Language"] == "it" and "accept-language" in _vary(answer)
