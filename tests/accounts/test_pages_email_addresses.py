"""The email addresses page (/accounts/email/addresses/): alice (tests/accounts/
conftest.py, with a password) adds her phone's address with her password, types
the emailed code, makes it primary and removes addresses, in a browser; bob is
another account whose address she may not add."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

from accounts.models import EmailAddress
from tests.accounts.conftest import SignupFlow
from tests.accounts.pages_helpers import logged_in_client, page_text

User = get_user_model()
ALICE_PASSWORD = "correct horse battery"
PHONE = "alice@phone.example"
PAGE = "/accounts/email/addresses/"


@pytest.fixture
def browser(alice: Any, django_capture_on_commit_callbacks: Any) -> Any:
    client = logged_in_client(alice)

    class Browser:
        def get(self, path: str = PAGE) -> Any:
            return client.get(path)

        def post(self, path: str, body: dict[str, str] | None = None) -> Any:
            with django_capture_on_commit_callbacks(execute=True):
                return client.post(path, body or {})

    return Browser()


def add(browser: Any, address: str = PHONE, password: str = ALICE_PASSWORD) -> Any:
    return browser.post(PAGE, {"address": address, "password": password})


def test_the_page_needs_a_login(db: None) -> None:
    answer = Client().get(PAGE)
    assert answer.status_code == 302 and answer["Location"] == f"/accounts/login/?next={PAGE}"


def test_the_page_lists_the_primary_address(alice: Any, browser: Any) -> None:
    text = page_text(browser.get())
    assert "alice@example.com" in text and "Primary" in text


def test_an_address_added_with_the_password_gets_a_code_that_verifies_it_on_the_page(
    alice: Any, browser: Any
) -> None:
    answer = add(browser)
    assert answer.status_code == 303
    assert [message.to for message in mail.outbox] == [[PHONE]]
    assert "/accounts/email/addresses/" in mail.outbox[0].body
    row = EmailAddress.objects.get(user=alice)
    assert "Not verified yet" in page_text(browser.get())
    verified = browser.post(f"{PAGE}{row.pk}/verify/", {"code": SignupFlow.last_code(PHONE)})
    assert verified.status_code == 303
    row.refresh_from_db()
    assert row.is_verified
    assert "is verified" in page_text(browser.get())


def test_a_wrong_password_adds_nothing(alice: Any, browser: Any) -> None:
    answer = add(browser, password="not it")
    assert answer.status_code == 200 and "That is not your password." in page_text(answer)
    assert not EmailAddress.objects.exists() and mail.outbox == []


def test_another_accounts_address_is_refused_on_the_page(alice: Any, bob: Any, browser: Any) -> None:
    answer = add(browser, address="bob@example.com")
    assert answer.status_code == 200 and "Another account uses this email address" in page_text(answer)
    assert not EmailAddress.objects.exists()


def test_a_wrong_code_is_shown_beside_the_address_and_verifies_nothing(alice: Any, browser: Any) -> None:
    add(browser)
    row = EmailAddress.objects.get(user=alice)
    answer = browser.post(f"{PAGE}{row.pk}/verify/", {"code": "ZZZZZZZZZZ"})
    assert answer.status_code == 200 and "That code is not right" in page_text(answer)
    row.refresh_from_db()
    assert not row.is_verified


def test_a_new_code_can_be_sent_and_the_old_one_stops_working(alice: Any, browser: Any) -> None:
    add(browser)
    row = EmailAddress.objects.get(user=alice)
    old = SignupFlow.last_code(PHONE)
    assert browser.post(f"{PAGE}{row.pk}/resend/").status_code == 303
    new = SignupFlow.last_code(PHONE)
    assert new != old
    assert browser.post(f"{PAGE}{row.pk}/verify/", {"code": old}).status_code == 200
    assert browser.post(f"{PAGE}{row.pk}/verify/", {"code": new}).status_code == 303


def test_a_verified_address_can_be_made_primary_and_the_old_one_removed(alice: Any, browser: Any) -> None:
    add(browser)
    row = EmailAddress.objects.get(user=alice)
    browser.post(f"{PAGE}{row.pk}/verify/", {"code": SignupFlow.last_code(PHONE)})
    assert browser.post(f"{PAGE}{row.pk}/primary/").status_code == 303
    assert User.objects.get(pk=alice.pk).email == PHONE
    old = EmailAddress.objects.get(user=alice)
    assert old.address == "alice@example.com" and old.is_verified
    assert browser.post(f"{PAGE}{old.pk}/remove/").status_code == 303
    assert not EmailAddress.objects.exists()


def test_an_unverified_address_cannot_be_made_primary_from_the_page(alice: Any, browser: Any) -> None:
    add(browser)
    row = EmailAddress.objects.get(user=alice)
    answer = browser.post(f"{PAGE}{row.pk}/primary/")
    assert answer.status_code == 303
    assert "not verified yet" in page_text(browser.get())
    assert User.objects.get(pk=alice.pk).email == "alice@example.com"


def test_another_accounts_address_is_not_found(alice: Any, bob: Any, browser: Any) -> None:
    bobs = EmailAddress.objects.create(user=bob, address="bob@phone.example")
    for action in ("verify", "resend", "primary", "remove"):
        assert browser.post(f"{PAGE}{bobs.pk}/{action}/", {"code": "ZZZZZZZZZZ"}).status_code == 404
    assert EmailAddress.objects.filter(pk=bobs.pk).exists()


def test_the_email_page_links_to_the_addresses_page(alice: Any, browser: Any) -> None:
    assert PAGE in browser.get("/accounts/email/").content.decode()
