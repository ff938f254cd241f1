"""A review shows moves, seats, chances and the bot's moves: nothing of the deal.
Neither its API body nor its panel on the replay page holds the seed or a card that
no seat ever saw (the decks' order below what was drawn), and its tasks carry ids."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client

import engine
from games.models import Game
from games.replays import game_initial_state, game_move_texts
from reviews.models import GameReview
from tests.games.game_helpers import client_for
from tests.leak_helpers import card_ids_in
from tests.reviews.review_helpers import finished_game

pytestmark = pytest.mark.django_db


def seen_by_someone(game: Game) -> set[str]:
    """Every card id a seat or a spectator could see at some point of the game."""
    state = game_initial_state(game)
    assert state is not None
    seen: set[str] = set()
    for text in [*game_move_texts(game), None]:
        for seat in (None, *range(game.seat_count)):
            seen |= card_ids_in(json.dumps(engine.observe(state, seat)))
        if text is not None:
            seen |= card_ids_in(text)
            state = engine.apply(state, text)
    return seen


def review_section(page: str) -> str:
    match = re.search(r'<section id="review".*?</section>', page, re.S)
    assert match is not None, "the replay has a review section"
    return match.group(0)


@pytest.fixture
def reviewed(alice: Any, bob: Any, commit: Any, settings: Any) -> Game:
    """A public game over, its review done, every move of it marked a mistake (so that
    the panel lists every move with the bot's move and a sandbox form)."""
    settings.REVIEW_MISTAKE_DROP = 1e-9
    game = finished_game(alice, [bob], public=True)
    with commit():
        client_for(alice).post(f"/api/v1/games/{game.pk}/review/")
    assert GameReview.objects.get(game=game).status == GameReview.Status.DONE
    return game


def test_the_review_body_names_no_card_nobody_saw_and_not_the_seed(reviewed: Game, charlie: Any) -> None:
    body = client_for(charlie).get(f"/api/v1/games/{reviewed.pk}/review/").content.decode()
    never_seen = set(engine.new_game(players=2, seed=1).variant.cards) - seen_by_someone(reviewed)
    assert never_seen, "some cards were never drawn"
    assert card_ids_in(body) and not card_ids_in(body) & never_seen
    assert reviewed.seed not in body and reviewed.seed_commitment not in body
    assert set(json.loads(body)) == {"status", "progress", "moves"}
    assert {key for move in json.loads(body)["moves"] for key in move} == {
        "ply", "move", "seat", "chances", "before", "best", "drop", "mistake",
    }


def test_the_review_panel_names_no_card_nobody_saw_and_not_the_seed(reviewed: Game, client: Client) -> None:
    page = client.get(f"/games/{reviewed.pk}/replay/").content.decode()
    panel = review_section(page)
    never_seen = set(engine.new_game(players=2, seed=1).variant.cards) - seen_by_someone(reviewed)
    assert card_ids_in(panel) and not card_ids_in(panel) & never_seen
    assert reviewed.seed not in panel
