"""The new-game page: variant, seats, invitations by username or address, the
clock, public and rated; the service's refusals next to the field they are
about; and no answer that tells whether an address has an account."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail
from django.test import Client

from games.models import Game, Seat
from notifications.addresses import address_digest
from notifications.models import InvitationOptOut
from tests.accounts.pages_helpers import logged_in_client, page_text

pytestmark = pytest.mark.django_db

FORM = {
    "variant": "base",
    "seats": "2",
    "invite": "",
    "move_timeout_hours": "72",
    "bank_hours": "0",
}


def _post(client: Client, **fields: str) -> Any:
    return client.post("/accounts/games/new/", {**FORM, **fields})


def _errors_of(answer: Any, field: str) -> str:
    """The error text shown with ``field`` (Django renders it just before the input)."""
    content = answer.content.decode()
    match = re.search(rf'<ul class="errorlist" id="id_{field}_error">(.*?)</ul>', content, re.DOTALL)
    assert match, content
    return re.sub(r"<[^>]+>", "", match.group(1)).strip()


def _page_without_token(answer: Any) -> str:
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", answer.content.decode())


def test_the_form_asks_for_variant_seats_invitations_clock_public_and_rated(alice: Any) -> None:
    answer = logged_in_client(alice).get("/accounts/games/new/")
    content = answer.content.decode()
    assert answer.status_code == 200
    for field in ("seats", "invite", "move_timeout_hours", "bank_hours", "public", "rated"):
        assert f'<label for="id_{field}">' in content, field
    assert "Splendor: Marvel" in content and 'name="csrfmiddlewaretoken"' in content


def test_a_game_is_created_as_asked_with_a_username_invited(alice: Any, bob: Any, commit: Any) -> None:
    browser = logged_in_client(alice)
    with commit():
        answer = _post(
            browser, variant="marvel", seats="3", invite="bob", move_timeout_hours="24",
            bank_hours="48", public="on", rated="on",
        )
    assert answer.status_code == 303 and answer["Location"] == "/accounts/games/"
    game = Game.objects.get()
    assert (game.variant, game.seat_count, game.move_seconds, game.bank_start_seconds) == ("marvel", 3, 86400, 48 * 3600)
    assert game.public and game.rated and game.created_by_id == alice.pk
    assert Seat.objects.filter(game=game, user=bob, invited=True, joined_at=None).exists()
    assert "is set up; it starts when every seat is taken" in page_text(browser.get("/accounts/games/"))


def test_an_address_with_an_account_is_invited_to_a_seat_however_it_is_spelt(
    alice: Any, bob: Any, commit: Any
) -> None:
    type(bob).objects.filter(pk=bob.pk).update(email="Bob@Example.com")
    with commit():
        _post(logged_in_client(alice), seats="3", invite="bob@EXAMPLE.com")
    assert Seat.objects.filter(user=bob, invited=True).exists()
    assert not [m for m in mail.outbox if "signup" in m.body and m.to == ["bob@example.com"]]


def test_an_address_without_an_account_is_mailed_a_link_to_sign_up_and_its_seat_stays_open(
    alice: Any, commit: Any
) -> None:
    with commit():
        _post(logged_in_client(alice), invite="dora@elsewhere.example")
    game = Game.objects.get()
    assert list(Seat.objects.filter(game=game).values_list("user", flat=True)) == [alice.pk]
    sent = [m for m in mail.outbox if m.to == ["dora@elsewhere.example"]]
    assert len(sent) == 1 and f"/accounts/signup/?next=%2Fgames%2F{game.pk}" in sent[0].body


def test_an_opted_out_address_gets_nothing(alice: Any, commit: Any) -> None:
    InvitationOptOut.objects.create(address_digest=address_digest("dora@elsewhere.example"))
    with commit():
        _post(logged_in_client(alice), invite="dora@elsewhere.example")
    assert Game.objects.count() == 1
    assert not [m for m in mail.outbox if m.to == ["dora@elsewhere.example"]]


def test_the_answer_is_the_same_whether_an_address_has_an_account_or_not(alice: Any, bob: Any, commit: Any) -> None:
    client = logged_in_client(alice)
    with commit():
        member = _post(client, invite="bob@example.com")
        stranger = _post(client, invite="dora@elsewhere.example")
    assert (member.status_code, member["Location"]) == (stranger.status_code, stranger["Location"])
    told = page_text(client.get("/accounts/games/"))
    assert told.count("Your invitation is on the way.") == 2


@pytest.mark.parametrize(
    "invite",
    [
        "{address}, charlie@example.com",  # more invitees than seats
        "{address}, {address}",  # twice
        "{address}, nobody",  # with a username nobody has
    ],
)
def test_a_refusal_reads_the_same_whether_an_address_has_an_account_or_not(
    alice: Any, bob: Any, invite: str
) -> None:
    client = logged_in_client(alice)
    member = _post(client, seats="2", invite=invite.format(address="bob@example.com"))
    stranger = _post(client, seats="2", invite=invite.format(address="dora@elsewhere.example"))
    assert member.status_code == stranger.status_code == 200
    assert _page_without_token(member).replace("bob@example.com", "ADDRESS") == _page_without_token(stranger).replace(
        "dora@elsewhere.example", "ADDRESS"
    )
    assert not Game.objects.exists()


def test_too_many_invitees_and_one_invited_twice_are_told_next_to_the_invitations(alice: Any) -> None:
    client = logged_in_client(alice)
    too_many = _post(client, seats="2", invite="bob@example.com, charlie")
    twice = _post(client, seats="3", invite="bob@example.com, bob@example.com")
    assert _errors_of(too_many, "invite") == "You invited 2 players but a 2-seat game has 1 besides yours."
    assert _errors_of(twice, "invite") == "You invited bob@example.com more than once; invite each player once."


def test_a_username_nobody_has_is_named_next_to_the_invitations(alice: Any) -> None:
    answer = _post(logged_in_client(alice), invite="nobody")
    assert answer.status_code == 200
    assert _errors_of(answer, "invite") == "There is no player with the username nobody."
    assert not Game.objects.exists()


def test_inviting_yourself_is_refused_next_to_the_invitations(alice: Any) -> None:
    answer = _post(logged_in_client(alice), invite="alice@example.com")
    assert "do not invite yourself" in _errors_of(answer, "invite")


def test_a_malformed_address_is_refused_next_to_the_invitations(alice: Any) -> None:
    answer = _post(logged_in_client(alice), invite="dora@")
    assert _errors_of(answer, "invite") == "dora@ is not an email address."


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"seats": "5"}, "seats", "A game has 2 to 4 seats; you asked for 5."),
        ({"move_timeout_hours": "0"}, "move_timeout_hours", "The time per move must be between 1 and 720 hours"),
        ({"bank_hours": "2000"}, "bank_hours", "The time bank at the start must be between 0 and 1440 hours"),
        ({"variant": "chess"}, "variant", "Select a valid choice."),
    ],
)
def test_the_services_refusals_are_shown_next_to_their_field(
    alice: Any, fields: dict[str, str], field: str, words: str
) -> None:
    answer = _post(logged_in_client(alice), **fields)
    assert answer.status_code == 200
    assert words in _errors_of(answer, field)
    assert not Game.objects.exists()


def test_the_daily_invitation_limit_is_shown_next_to_the_invitations(alice: Any, bob: Any, settings: Any) -> None:
    settings.INVITATIONS_PER_DAY = 1
    client = logged_in_client(alice)
    assert _post(client, invite="bob").status_code == 303
    answer = _post(client, invite="dora@elsewhere.example")
    assert "You can invite at most 1 player a day" in _errors_of(answer, "invite")
    assert Game.objects.count() == 1


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", ("vacation days", "the bot plays that turn", "after 3 missed turns in a row the seat is forfeited")),
        ("it", ("giorni di vacanza", "lo gioca il bot", "dopo 3 turni scaduti di fila il posto è perso")),
        ("lv", ("atvaļinājuma diena", "izdara bots", "pēc 3 nokavētiem gājieniem pēc kārtas vieta tiek zaudēta")),
    ],
)
def test_the_clocks_help_says_what_a_missed_deadline_does(alice: Any, language: str, words: tuple[str, ...]) -> None:
    """A vacation day, else the bot's move, and the third in a row forfeits (games.services.clocks),
    not "misses its turn"."""
    from accounts.models import Player

    Player.objects.filter(user=alice).update(language=language)
    content = logged_in_client(alice).get("/accounts/games/new/").content.decode()
    help_text = content[content.index('id="id_move_timeout_hours_helptext"') :][:600]
    for word in words:
        assert word in help_text, (word, help_text)
    assert "misses its turn" not in content and "salta il turno" not in content
