"""What the game page draws, for every seat and a spectator, in both variants at 2 to 4
players; nothing hidden in the page or its source; the replay; the headers and the
version endpoint."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import engine
import pytest
from django.test import Client

from games import services
from games.models import Game, Move, Seat
from tests.games.board_helpers import deck_card_ids, first_take, play, seats, started_game
from tests.games.game_helpers import user_to_move
from tests.games.page_helpers import opened, page, public_game

pytestmark = pytest.mark.django_db

CARD_ID = re.compile(r"(?<![\w-])([123]-\d\d)(?![\w])")


def shown(game: Game, seat: Seat | None) -> str:
    return page(opened(seat) if seat is not None else Client(), game).content.decode()


def game_with_blind_reserve(variant: str, players: int, *, public: bool = False) -> tuple[Game, Seat, str]:
    game = public_game(variant, players) if public else started_game(variant, players)
    reserver = Seat.objects.get(game=game, index=game.to_move)
    play(game, "reserve deck1")
    card = Move.objects.get(game=game, ply=0).private_card
    for _ in range(players):
        play(game, first_take(game))
    return game, reserver, card


@pytest.mark.parametrize("variant", ["base", "marvel"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_part_of_the_board_is_drawn_for_every_seat(variant: str, players: int) -> None:
    game, reserver, card = game_with_blind_reserve(variant, players)
    state = engine.from_dict(game.state)
    assert card and len(seats(game)) == players and reserver in seats(game)
    for seat in seats(game):
        html = shown(game, seat)
        view = engine.observe(state, seat.index)
        for level in (3, 2, 1):  # the market rows with each card, and the deck counts
            assert f"Level {level}" in html
            for face_up in view["market"][str(level)]:
                if face_up:
                    assert f'data-card="{face_up["id"]}"' in html
        assert "Bank" in html and 'data-token="J"' in html  # token piles, with their letters
        tiles = view.get("locations", view.get("nobles", []))
        assert all(tile["id"] in html for tile in tiles)
        for player in Seat.objects.filter(game=game):
            assert player.user.player.display_name in html  # every player's line
        assert "Tokens" in html and "Bonuses" in html and "Reserved" in html
        assert "Last moves" in html and "reserve deck1" in html
        assert "Clock" in html and "per move" in html
        if seat == reserver:
            assert card in CARD_ID.findall(html)
        else:
            assert "a level 1 card, reserved face down" in html  # a card back of its level
        if variant == "marvel":
            assert "Avengers Assemble" in html and "Time Stone" in html and "Gauntlet:" in html
        # Colours are never the only signal: each gem and bonus carries its letter and names it.
        assert "<small>U</small>" in html and "blue bonus" in html
        assert '<html lang="en">' in html and 'name="viewport"' in html
        assert 'aria-labelledby="board-heading"' in html and '<h2 id="board-heading" class="sr">The board</h2>' in html
        assert "<h1" in html and "<h2" in html


@pytest.mark.parametrize("variant", ["base", "marvel"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_no_page_shows_a_blind_reserve_the_deck_order_or_the_seed(variant: str, players: int) -> None:
    game, reserver, card = game_with_blind_reserve(variant, players, public=True)
    decks = deck_card_ids(game)
    assert card not in decks
    for seat in [*seats(game), None]:
        html = shown(game, seat)
        ids = set(CARD_ID.findall(html))
        assert not ids & decks, "no card still in a deck"
        if seat != reserver:
            assert card not in ids
        assert game.seed not in html
        assert "Seed:" not in html


def test_the_version_endpoint_answers_with_an_etag_and_304_when_unchanged() -> None:
    game = public_game()
    client = Client()
    response = client.get(f"/games/{game.pk}/version")
    assert response.status_code == 200
    assert response.json() == {"version": game.version, "status": "active"}
    assert response["ETag"] == f'"{game.version}"'
    again = client.get(f"/games/{game.pk}/version", HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304 and again.content == b""
    play(game, "take WUG")
    moved = client.get(f"/games/{game.pk}/version", HTTP_IF_NONE_MATCH=response["ETag"])
    assert moved.status_code == 200 and moved.json()["version"] == game.version


def test_the_version_of_a_private_game_needs_its_seat() -> None:
    game = started_game("base", 2)
    assert Client().get(f"/games/{game.pk}/version").status_code == 403
    assert opened(seats(game)[0]).get(f"/games/{game.pk}/version").status_code == 200


def test_the_pages_forbid_inline_script_framing_and_outside_sources() -> None:
    game = started_game("base", 2)
    client = opened(seats(game)[0])
    for response in (
        page(client, game),
        client.get(f"/games/{game.pk}/version"),
        client.get(f"/games/{game.pk}/replay/"),
        Client().get(f"/games/{game.pk}/"),
    ):
        policy = response["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "default-src 'self'" in policy
        assert "frame-ancestors 'none'" in policy and "img-src 'self' data:" in policy
        assert "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]
        assert response["X-Frame-Options"] == "DENY"
        assert response["Referrer-Policy"] in ("no-referrer", "same-origin")
    html = page(client, game).content.decode()
    scripts = re.findall(r"<script[^>]*>(.*?)</script>", html, flags=re.S)
    assert scripts == ["", ""]  # the page's and the service worker's registration (front.pwa), from files, nothing inline
    assert 'src="/static/games/game_page.js"' in html and 'src="/static/games/site_worker.js"' in html
    assert " on" + "click=" not in html and "javascript:" not in html


def test_the_replay_steps_through_a_finished_public_game_and_reveals_the_seed() -> None:
    game = public_game()
    for _ in range(4):
        play(game, first_take(game))
    services.game_resign(game=game, user=user_to_move(game))
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    client = Client()
    start = client.get(f"/games/{game.pk}/replay/?ply=0").content.decode()
    assert "after move 0 of 4" in start and "Bank" in start
    second = client.get(f"/games/{game.pk}/replay/?ply=2").content.decode()
    moves = list(Move.objects.filter(game=game).order_by("ply"))
    assert 'aria-current="step"' in second and moves[1].text in second
    end = client.get(f"/games/{game.pk}/replay/").content.decode()
    assert f'<code id="seed" style="word-break:break-all">{game.seed}</code>' in end
    assert hashlib.sha256(game.seed.encode()).hexdigest() == game.seed_commitment
    assert game.seed_commitment in end
    assert client.get(f"/games/{game.pk}/replay/?ply=99").status_code == 400
    assert client.get(f"/games/{game.pk}/replay/?ply=x").status_code == 400


def test_the_replay_board_of_a_step_is_what_the_engine_rebuilds() -> None:
    game = public_game()
    texts = []
    for _ in range(3):
        texts.append(first_take(game))
        play(game, texts[-1])
    services.game_resign(game=game, user=user_to_move(game))
    game.refresh_from_db()
    state = engine.replay(game.variant, 2, int(game.seed), texts[:2])
    html = Client().get(f"/games/{game.pk}/replay/?ply=2").content.decode()
    row = engine.observe(state, None)["market"]["1"]
    assert any(row)
    for face_up in row:
        if face_up:
            assert f'data-card="{face_up["id"]}"' in html


def test_a_spectator_gets_no_replay_before_the_end_and_no_seed_from_a_seat_before_it() -> None:
    game = public_game()
    play(game, first_take(game))
    assert Client().get(f"/games/{game.pk}/replay/").status_code == 403
    own = opened(seats(game)[0]).get(f"/games/{game.pk}/replay/?ply=1")
    assert own.status_code == 200
    html = own.content.decode()
    assert game.seed not in html and "shown here once the game is over" in html


def test_a_private_finished_game_has_no_replay_for_strangers(charlie: Any) -> None:
    game = started_game("base", 2)
    services.game_resign(game=game, user=user_to_move(game))
    anonymous = Client().get(f"/games/{game.pk}/replay/")
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/?next=")
    stranger = Client()
    stranger.force_login(charlie)
    assert stranger.get(f"/games/{game.pk}/replay/").status_code == 404


@pytest.mark.parametrize(
    ("reason", "words"),
    [("moderator", "a moderator paused the game"), ("server", "the site paused every clock")],
)
def test_a_paused_clock_says_why(reason: str, words: str) -> None:
    game = started_game("base", 2)
    services.game_pause(game_id=game.pk, reason=reason)
    html = shown(game, seats(game)[0])
    assert "Paused" in html and words in html


def test_a_vacation_pause_names_the_player_on_vacation() -> None:
    game = started_game("base", 2)
    away = seats(game)[1]
    services.vacation_take(user=away.user, days=3)
    html = shown(game, seats(game)[0])
    assert "a player is on vacation" in html and away.user.get_username() in html


def test_the_clock_shows_the_deadline_and_the_time_per_move() -> None:
    game = started_game("base", 2)
    game.refresh_from_db()
    html = shown(game, Seat.objects.get(game=game, index=game.to_move))
    assert "Deadline for your move:" in html and "3 days 0 h per move" in html


def test_a_game_with_time_banks_shows_each_players_bank() -> None:
    from tests.games.game_helpers import make_player

    tom, uma = make_player("tom"), make_player("uma")
    game = services.game_create(creator=tom, seats=2, invited=[uma], bank_seconds=3600)
    services.seat_join(game=game, user=uma)
    html = shown(game, Seat.objects.get(game=game, user=tom))
    assert "your time bank: 1 h 00 min" in html and "Banks:" in html
