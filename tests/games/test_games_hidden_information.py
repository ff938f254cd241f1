"""A blind reserve, the deck order and the seed never reach anyone who may not see them."""

from __future__ import annotations

import json
import re
from typing import Any

import engine
import pytest
from rest_framework.test import APIClient

from games import services
from games.models import Game, GameEvent, Move, Seat
from tests.games.game_helpers import client_for, play_moves, user_to_move

pytestmark = pytest.mark.django_db

# A card id standing alone, so that dates like 2026-11-07 do not count as "1-07".
CARD_ID = re.compile(r"(?<![\w-])([123]-\d\d)(?![\w])")


def card_ids_in(payload: Any) -> set[str]:
    return set(CARD_ID.findall(json.dumps(payload)))


def responses_for(client: APIClient, game: Game) -> dict[str, Any]:
    base = f"/api/v1/games/{game.pk}/"
    return {
        "detail": client.get(base).json(),
        "legal_moves": client.get(base + "legal-moves/").json(),
        "history": client.get(base + "moves/").json(),
        "export": client.get(base + "export/").json(),
        "list": client.get("/api/v1/games/?mine=1").json(),
        "all": client.get("/api/v1/games/").json(),
    }


@pytest.fixture
def active_game_options() -> dict[str, Any]:
    # active_game (tests/conftest.py) public, so that a spectator (charlie) is shown
    # everything a spectator may see.
    return {"public": True}


@pytest.fixture
def game_with_blind_reserve(active_game: Game) -> tuple[Game, Any, str]:
    """The first player reserves blind from deck 1, then the other player moves once."""
    owner = user_to_move(active_game)
    client_for(owner).post(
        f"/api/v1/games/{active_game.pk}/moves/",
        {"move": "reserve deck1", "expected_version": active_game.version},
        format="json",
    )
    play_moves(active_game, 1)
    active_game.refresh_from_db()
    private_card = Move.objects.get(game=active_game, ply=0).private_card
    assert private_card
    return active_game, owner, private_card


def test_the_blind_reserved_card_the_deck_order_and_the_seed_never_reach_the_opponent_or_a_spectator(
    game_with_blind_reserve: tuple[Game, Any, str], charlie: Any
) -> None:
    game, owner, private_card = game_with_blind_reserve
    opponent = Seat.objects.exclude(user=owner).get(game=game).user
    stored = engine.to_dict(engine.from_dict(game.state))
    deck_cards = {card for deck in stored["decks"] for card in deck}
    assert deck_cards and private_card not in deck_cards

    for viewer in (opponent, charlie):
        seen = responses_for(client_for(viewer), game)
        for name, payload in seen.items():
            ids = card_ids_in(payload)
            assert private_card not in ids, (viewer.username, name)
            assert not ids & deck_cards, (viewer.username, name, ids & deck_cards)
            assert game.seed not in json.dumps(payload), (viewer.username, name)


def test_the_opponents_move_response_does_not_carry_the_blind_reserved_card(
    active_game: Game,
) -> None:
    owner = user_to_move(active_game)
    client_for(owner).post(
        f"/api/v1/games/{active_game.pk}/moves/",
        {"move": "reserve deck1", "expected_version": active_game.version},
        format="json",
    )
    private_card = Move.objects.get(game=active_game).private_card
    active_game.refresh_from_db()
    opponent = user_to_move(active_game)
    state = engine.from_dict(active_game.state)
    take = next(t for t in map(engine.format_move, engine.legal_moves(state)) if t.startswith("take "))

    response = client_for(opponent).post(
        f"/api/v1/games/{active_game.pk}/moves/", {"move": take, "expected_version": active_game.version}, format="json"
    )

    assert response.status_code == 201
    assert private_card not in card_ids_in(response.json())


def test_the_owner_sees_the_blind_reserved_card_in_the_history_and_the_board(
    game_with_blind_reserve: tuple[Game, Any, str],
) -> None:
    game, owner, private_card = game_with_blind_reserve
    seen = responses_for(client_for(owner), game)

    assert seen["history"][0]["private_card"] == private_card
    assert "private_card" not in seen["history"][1]
    owner_seat = Seat.objects.get(game=game, user=owner).index
    reserved = seen["detail"]["board"]["seats"][owner_seat]["reserved"]
    assert [card["id"] for card in reserved] == [private_card]
    assert private_card not in card_ids_in(seen["export"])


def test_outbox_events_carry_no_hidden_information(game_with_blind_reserve: tuple[Game, Any, str]) -> None:
    game, _, private_card = game_with_blind_reserve
    events = GameEvent.objects.filter(game=game)
    # The hidden card exists, and the blind reservation itself went out as an event.
    assert private_card and events.filter(kind=GameEvent.Kind.MOVE_PLAYED).count() == 2
    for event in events:
        assert private_card not in card_ids_in(event.payload)
        assert game.seed not in json.dumps(event.payload)


def test_the_seed_is_revealed_once_the_game_is_over(
    game_with_blind_reserve: tuple[Game, Any, str], charlie: Any
) -> None:
    game, owner, _ = game_with_blind_reserve
    services.game_resign(game=game, user=owner)

    seen = responses_for(client_for(charlie), game)

    assert seen["export"]["seed"] == game.seed
    assert seen["detail"]["seed"] == game.seed
