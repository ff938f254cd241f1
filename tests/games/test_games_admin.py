from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from games import services
from games.models import Game, Move
from tests.games.game_helpers import client_for, user_to_move

pytestmark = pytest.mark.django_db


def test_the_game_list_filters_by_status_and_variant_and_searches_by_username(
    staff_client: Client, active_game: Game
) -> None:
    response = staff_client.get("/admin/games/game/", {"status__exact": "active", "variant__exact": "base", "q": "bob"})
    assert response.status_code == 200
    assert active_game.pk in response.content.decode()

    nothing = staff_client.get("/admin/games/game/", {"q": "nobody-at-all"})
    assert active_game.pk not in nothing.content.decode()


def test_the_admin_never_shows_the_seed_or_a_blind_card_of_an_unfinished_game(
    staff_client: Client, active_game: Game
) -> None:
    client_for(user_to_move(active_game)).post(
        f"/api/v1/games/{active_game.pk}/moves/",
        {"move": "reserve deck1", "expected_version": active_game.version},
        format="json",
    )
    private_card = Move.objects.get(game=active_game).private_card

    page = staff_client.get(f"/admin/games/game/{active_game.pk}/change/").content.decode()

    assert active_game.seed not in page
    assert "hidden until the game is over" in page
    assert "reserve deck1" in page
    # As a card id standing on its own: the admin's SVG icons hold digit runs such
    # as ".121-14.85", which are no card.
    assert re.search(rf"(?<![\w.]){re.escape(private_card)}(?![\w.])", page) is None
    for url in ("/admin/games/move/", "/admin/games/gameevent/", "/admin/games/seat/"):
        listing = staff_client.get(url)
        assert listing.status_code == 200 and active_game.seed not in listing.content.decode()


def test_the_admin_shows_the_seed_once_the_game_is_over(staff_client: Client, active_game: Game, alice: Any) -> None:
    services.game_resign(game=active_game, user=alice)
    active_game.refresh_from_db()

    page = staff_client.get(f"/admin/games/game/{active_game.pk}/change/").content.decode()

    assert active_game.seed in page


def test_games_cannot_be_edited_or_deleted_in_the_admin(staff_client: Client, active_game: Game) -> None:
    before = Game.objects.get(pk=active_game.pk).version
    response = staff_client.post(f"/admin/games/game/{active_game.pk}/change/", {"status": "aborted"})
    assert response.status_code == 403
    assert staff_client.get(f"/admin/games/game/{active_game.pk}/delete/").status_code == 403
    assert staff_client.get("/admin/games/game/add/").status_code == 403
    assert Game.objects.get(pk=active_game.pk).version == before


@pytest.mark.parametrize(
    "url, lookup",
    [
        ("/admin/games/game/", "seed__startswith"),
        ("/admin/games/game/", "state__decks__0__0"),
        ("/admin/games/game/", "start_state__decks__0__0"),
        ("/admin/games/move/", "private_card"),
        ("/admin/games/move/", "game__seed__startswith"),
        ("/admin/games/seat/", "game__state__icontains"),
        ("/admin/games/gameevent/", "game__seed"),
    ],
)
def test_the_admin_refuses_list_filters_that_would_guess_hidden_information(
    staff_client: Client, active_game: Game, url: str, lookup: str
) -> None:
    client_for(user_to_move(active_game)).post(
        f"/api/v1/games/{active_game.pk}/moves/",
        {"move": "reserve deck1", "expected_version": active_game.version},
        format="json",
    )
    active_game.refresh_from_db()
    guesses = {
        "seed__startswith": active_game.seed[:3],
        "game__seed__startswith": active_game.seed[:3],
        "game__seed": active_game.seed,
        "state__decks__0__0": active_game.state["decks"][0][0],
        # a sandbox's deal (games.services.sandbox_create) is as hidden as a game's state
        "start_state__decks__0__0": active_game.state["decks"][0][0],
        "private_card": Move.objects.get(game=active_game).private_card,
        "game__state__icontains": active_game.state["decks"][0][0],
    }

    response = staff_client.get(url, {lookup: guesses[lookup]})

    assert response.status_code == 400
    assert active_game.pk not in response.content.decode()


def test_the_admin_still_filters_on_public_fields(staff_client: Client, active_game: Game) -> None:
    response = staff_client.get("/admin/games/move/", {"game__status__exact": "active"})
    assert response.status_code == 200


@pytest.mark.parametrize("params", [{"status__exact": "active\x00"}, {"game__variant__exact": "x\x00"}])
def test_a_nul_character_in_an_admin_list_filter_is_a_400_not_a_server_error(
    staff_client: Client, active_game: Game, params: dict[str, str]
) -> None:
    url = "/admin/games/game/" if "status__exact" in params else "/admin/games/seat/"
    assert staff_client.get(url, params).status_code == 400
