"""Signing up in a browser: the form, the emailed code, and landing where the
visitor was going (an invitation's game page) once verified."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import Player
from tests.accounts.pages_helpers import PASSWORD, code_in_last_mail, page_text

User = get_user_model()


@pytest.fixture
def visitor() -> Client:
    return Client()


def sign_up(client: Client, capture: Any, *, next_url: str = "", **fields: str) -> Any:
    body = {"username": "carol", "email": "carol@example.com", "display_name": "Carol", "password": PASSWORD, **fields}
    if next_url:
        body["next"] = next_url
    with capture(execute=True):
        return client.post("/accounts/signup/", body)


def verify(client: Client, code: str, username: str = "carol") -> Any:
    return client.post("/accounts/signup/verify/", {"username": username, "code": code})


def test_the_sign_up_page_renders_a_labelled_form_with_csrf_and_no_referrer(db: None, visitor: Client) -> None:
    answer = visitor.get("/accounts/signup/")
    assert answer.status_code == 200
    assert answer["Referrer-Policy"] == "same-origin"
    assert "no-store" in answer["Cache-Control"] or "max-age=0" in answer["Cache-Control"]
    content = answer.content.decode()
    assert 'name="csrfmiddlewaretoken"' in content
    for field in ("username", "email", "display_name", "password"):
        assert f'<label for="id_{field}">' in content


def test_signing_up_emails_a_code_and_verifying_it_logs_in_and_opens_my_games(
    db: None, visitor: Client, django_capture_on_commit_callbacks: Any
) -> None:
    answer = sign_up(visitor, django_capture_on_commit_callbacks)
    assert answer.status_code == 303 and answer["Location"] == "/accounts/signup/verify/"
    assert not User.objects.get(username="carol").is_active
    page = visitor.get("/accounts/signup/verify/")
    assert "carol" in page_text(page)

    answer = verify(visitor, code_in_last_mail("carol@example.com"))

    assert answer.status_code == 303 and answer["Location"] == "/accounts/games/"
    assert User.objects.get(username="carol").is_active
    assert Player.objects.get(user__username="carol").email_verified_at is not None
    assert "My games" in page_text(visitor.get("/accounts/games/"))


def test_the_sign_up_page_runs_only_its_own_script_which_fills_the_hidden_time_zone(db: None, visitor: Client) -> None:
    answer = visitor.get("/accounts/signup/")
    content = answer.content.decode()
    assert '<input type="hidden" name="time_zone" id="id_time_zone">' in content
    assert 'src="/static/accounts/signup_time_zone.js"' in content
    policy = answer["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy.split("script-src")[1]
    assert "script-src" not in visitor.get("/accounts/login/")["Content-Security-Policy"]


@pytest.mark.parametrize(
    ("sent", "stored"),
    [("Europe/Rome", "Europe/Rome"), ("America/Argentina/Buenos_Aires", "America/Argentina/Buenos_Aires"),
     ("Mars/Olympus_Mons", "UTC"), ("", "UTC"), ("Europe/Rome\x00", "UTC"), ("x" * 500, "UTC")],
)
def test_the_browsers_time_zone_is_kept_at_sign_up_when_the_time_zone_database_knows_it(
    db: None, visitor: Client, django_capture_on_commit_callbacks: Any, sent: str, stored: str
) -> None:
    answer = sign_up(visitor, django_capture_on_commit_callbacks, time_zone=sent)
    assert answer.status_code == 303
    assert Player.objects.get(user__username="carol").time_zone == stored


def test_an_invited_visitor_lands_on_the_game_after_signing_up(
    db: None, visitor: Client, django_capture_on_commit_callbacks: Any
) -> None:
    game_page = "/games/g123/?seat=abc"
    form = visitor.get("/accounts/signup/", {"next": game_page})
    assert 'name="next" value="/games/g123/?seat=abc"' in form.content.decode()
    sign_up(visitor, django_capture_on_commit_callbacks, next_url=game_page)

    answer = verify(visitor, code_in_last_mail("carol@example.com"))

    assert answer.status_code == 303 and answer["Location"] == game_page


def test_a_next_address_on_another_site_is_ignored(
    db: None, visitor: Client, django_capture_on_commit_callbacks: Any
) -> None:
    sign_up(visitor, django_capture_on_commit_callbacks, next_url="https://evil.example/phish")
    answer = verify(visitor, code_in_last_mail("carol@example.com"))
    assert answer["Location"] == "/accounts/games/"


def test_refusals_of_the_sign_up_are_shown_in_the_form(
    db: None, visitor: Client, django_capture_on_commit_callbacks: Any
) -> None:
    answer = sign_up(visitor, django_capture_on_commit_callbacks, username="games", password="short")
    assert answer.status_code == 200
    text = page_text(answer)
    assert '"games" is reserved' in text
    assert not User.objects.filter(username="games").exists()

    answer = sign_up(visitor, django_capture_on_commit_callbacks, email="not an address")
    assert answer.status_code == 200
    assert "Enter a valid email address." in page_text(answer)


def test_a_password_the_validators_refuse_is_explained(
    db: None, visitor: Client, django_capture_on_commit_callbacks: Any
) -> None:
    answer = sign_up(visitor, django_capture_on_commit_callbacks, password="password")
    assert answer.status_code == 200
    assert "This password is too common." in page_text(answer)


def test_a_wrong_code_says_how_many_tries_are_left(
    db: None, visitor: Client, django_capture_on_commit_callbacks: Any
) -> None:
    sign_up(visitor, django_capture_on_commit_callbacks)
    answer = verify(visitor, "ZZZZZZZZZZ")
    assert answer.status_code == 200
    assert "That code is not right; 4 more tries before it stops working." in page_text(answer)
    assert "_auth_user_id" not in visitor.session


def test_a_new_code_can_be_asked_for_and_the_old_one_stops_working(
    db: None, visitor: Client, django_capture_on_commit_callbacks: Any, time_machine: Any
) -> None:
    time_machine.move_to("2026-03-01 12:00:00+00:00")
    sign_up(visitor, django_capture_on_commit_callbacks)
    first = code_in_last_mail("carol@example.com")
    time_machine.move_to("2026-03-01 12:02:00+00:00")
    with django_capture_on_commit_callbacks(execute=True):
        answer = visitor.post("/accounts/signup/resend/", {"username": "carol"})
    assert answer.status_code == 303
    assert "a new code is on its way" in page_text(visitor.get("/accounts/signup/verify/"))
    second = code_in_last_mail("carol@example.com")
    assert second != first

    assert verify(visitor, first).status_code == 200
    assert verify(visitor, second).status_code == 303


def test_a_logged_in_player_is_sent_on_from_the_sign_up_page(db: None, alice: Any) -> None:
    client = Client()
    client.force_login(alice)
    answer = client.get("/accounts/signup/")
    assert answer.status_code == 302 and answer["Location"] == "/accounts/games/"


def test_a_post_without_the_csrf_token_is_refused(db: None) -> None:
    client = Client(enforce_csrf_checks=True)
    answer = client.post("/accounts/signup/", {"username": "carol", "email": "c@example.com", "password": PASSWORD})
    assert answer.status_code == 403
    assert not User.objects.filter(username="carol").exists()
