"""Signed per-seat links: a token opens one seat of one game until its key is rotated."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import override_settings

from games import links, services
from games.errors import GameNotFound, NotAPlayer
from games.models import Game, Seat

pytestmark = pytest.mark.django_db


def seat_of(game: Game, user: Any) -> Seat:
    return Seat.objects.get(game=game, user=user)


def test_a_token_opens_the_seat_it_was_made_for(active_game: Game, alice: Any) -> None:
    seat = seat_of(active_game, alice)
    token = links.seat_link_token(seat=seat)
    assert links.seat_for_link(game_id=active_game.pk, token=token) == seat


@override_settings(SITE_URL="https://splendor.example")
def test_the_link_is_absolute_and_carries_the_token(active_game: Game, bob: Any) -> None:
    seat = seat_of(active_game, bob)
    url = links.seat_link_url(seat=seat)
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}" == "https://splendor.example"
    assert parts.path == f"/games/{active_game.pk}/"
    assert parse_qs(parts.query)["seat"] == [links.seat_link_token(seat=seat)]


def test_an_invited_seat_has_a_link_before_the_game_starts(alice: Any, bob: Any) -> None:
    game = services.game_create(creator=alice, seats=2, invited=[bob])
    seat = seat_of(game, bob)
    assert seat.index is None
    assert links.seat_for_link(game_id=game.pk, token=links.seat_link_token(seat=seat)) == seat


def test_rotating_the_key_revokes_every_earlier_link(active_game: Game, alice: Any) -> None:
    old = links.seat_link_token(seat=seat_of(active_game, alice))
    seat = links.seat_link_rotate(game_id=active_game.pk, user=alice)
    with pytest.raises(links.SeatLinkRevoked):
        links.seat_for_link(game_id=active_game.pk, token=old)
    assert links.seat_for_link(game_id=active_game.pk, token=links.seat_link_token(seat=seat)) == seat


def test_an_operator_rotation_revokes_the_link_too(active_game: Game, bob: Any) -> None:
    seat = seat_of(active_game, bob)
    old = links.seat_link_token(seat=seat)
    links.seat_link_rotate_for_seat(seat_id=seat.pk)
    with pytest.raises(links.SeatLinkRevoked):
        links.seat_for_link(game_id=active_game.pk, token=old)


def test_rotating_one_seat_leaves_the_other_seats_links_working(active_game: Game, alice: Any, bob: Any) -> None:
    bobs = links.seat_link_token(seat=seat_of(active_game, bob))
    links.seat_link_rotate(game_id=active_game.pk, user=alice)
    assert links.seat_for_link(game_id=active_game.pk, token=bobs).user == bob


def test_a_token_for_seat_a_cannot_be_made_to_open_seat_b(active_game: Game, alice: Any, bob: Any) -> None:
    a, b = seat_of(active_game, alice), seat_of(active_game, bob)
    token = links.seat_link_token(seat=a)
    assert links.seat_for_link(game_id=active_game.pk, token=token) == a
    value, signature = token.rsplit(":", 1)
    game_id, _, digest = value.split(".")
    pointed_at_b = f"{game_id}.{b.pk}.{digest}:{signature}"
    with pytest.raises(links.SeatLinkInvalid):
        links.seat_for_link(game_id=active_game.pk, token=pointed_at_b)


def test_a_token_for_another_game_is_refused(active_game: Game, alice: Any, bob: Any) -> None:
    other = services.game_create(creator=alice, seats=2, invited=[bob])
    token = links.seat_link_token(seat=seat_of(other, alice))
    with pytest.raises(links.SeatLinkInvalid):
        links.seat_for_link(game_id=active_game.pk, token=token)


@pytest.mark.parametrize(
    "tamper",
    [
        lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"),  # the signature
        lambda t: t.replace(".", ".9", 1),  # the seat id
        lambda t: "x" + t,  # the game id
        lambda t: t.split(":")[0],  # no signature at all
        lambda t: "",
        lambda t: "z" * 500,
    ],
    ids=["signature", "seat-id", "game-id", "unsigned", "empty", "too-long"],
)
def test_a_tampered_token_is_refused(active_game: Game, alice: Any, tamper: Any) -> None:
    token = tamper(links.seat_link_token(seat=seat_of(active_game, alice)))
    with pytest.raises(links.SeatLinkInvalid):
        links.seat_for_link(game_id=active_game.pk, token=token)


def test_a_token_signed_for_a_seat_of_another_game_cannot_be_pointed_at_this_one(
    active_game: Game, alice: Any, bob: Any
) -> None:
    # The same seat id in another game's URL: the game id is part of what is signed.
    token = links.seat_link_token(seat=seat_of(active_game, alice))
    other = services.game_create(creator=alice, seats=2, invited=[bob])
    with pytest.raises(links.SeatLinkInvalid):
        links.seat_for_link(game_id=other.pk, token=token)


def test_an_unknown_game_id_is_game_not_found(active_game: Game, alice: Any) -> None:
    token = links.seat_link_token(seat=seat_of(active_game, alice))
    with pytest.raises(GameNotFound):
        links.seat_for_link(game_id="nosuchgame", token=token)
    with pytest.raises(GameNotFound):
        links.seat_for_link(game_id="bad\x00id", token=token)


def test_a_declined_invitations_link_is_revoked(alice: Any, bob: Any, charlie: Any) -> None:
    game = services.game_create(creator=alice, seats=3, invited=[bob, charlie])
    token = links.seat_link_token(seat=seat_of(game, bob))
    services.seat_decline(game_id=game.pk, user=bob)
    with pytest.raises(links.SeatLinkRevoked):
        links.seat_for_link(game_id=game.pk, token=token)


def test_only_a_player_of_the_game_can_rotate_a_link(active_game: Game, charlie: Any) -> None:
    with pytest.raises(NotAPlayer):
        links.seat_link_rotate(game_id=active_game.pk, user=charlie)
    with pytest.raises(GameNotFound):
        links.seat_link_rotate(game_id="nosuchgame", user=charlie)


def test_seat_numbers_follow_play_order_once_started_and_join_order_before(
    active_game: Game, alice: Any, bob: Any, charlie: Any
) -> None:
    for seat in Seat.objects.filter(game=active_game):
        assert links.seat_by_number(game_id=active_game.pk, number=seat.index) == seat
    open_game = services.game_create(creator=alice, seats=3, invited=[bob, charlie])
    services.seat_join(game=open_game, user=charlie)
    numbered = [links.seat_by_number(game_id=open_game.pk, number=n).user for n in range(3)]
    assert numbered == [alice, charlie, bob]
    with pytest.raises(links.SeatNotFound, match="has no seat 3"):
        links.seat_by_number(game_id=open_game.pk, number=3)


@pytest.mark.parametrize("site_url", ["splendor.example", "ftp://splendor.example"])
def test_a_site_url_that_is_not_an_absolute_web_address_stops_start_up(site_url: str) -> None:
    import os
    import subprocess
    import sys
    from pathlib import Path

    result = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, "SITE_URL": site_url},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "SITE_URL" in result.stderr and "is not an absolute http(s) address" in result.stderr
