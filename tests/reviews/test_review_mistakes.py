"""A deliberately bad move is marked a mistake: in a game the greedy bot plays for
both seats, one move is replaced by a take of gems that lets the opponent buy a
card that brings a noble and the win, where another move would have left them no
win at all; the review through the API marks that move, and only the moves that
cost their mover at least REVIEW_MISTAKE_DROP.

The deal is fixed (seed 108: the first such position comes at move 56, the scores
11 to 11), so the game is the same every run; the review's search is seeded from
the game's random id, and at 64 playouts a position its verdict on the bad move
was a drop of 0.71 to 0.93 over a dozen seeds.

Personas: alice and bob play (through the greedy bot); alice asks for the review."""

from __future__ import annotations

from typing import Any

import pytest

from tests.games.game_helpers import client_for
from tests.reviews.review_helpers import NOBLE_HANDED_DEAL, game_with_a_noble_handed

pytestmark = pytest.mark.django_db


def test_a_move_that_hands_the_opponent_a_noble_is_marked_a_mistake(
    alice: Any, bob: Any, commit: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.REVIEW_PLAYOUTS = 64
    monkeypatch.setattr("games.services.lifecycle.secrets.randbits", lambda bits: NOBLE_HANDED_DEAL)
    game, bad = game_with_a_noble_handed(alice, bob)

    with commit():
        client_for(alice).post(f"/api/v1/games/{game.pk}/review/")
    body = client_for(alice).get(f"/api/v1/games/{game.pk}/review/").json()

    assert body["status"] == "done"
    ply, text = bad
    reviewed = body["moves"][ply]
    assert reviewed["move"] == text
    assert reviewed["mistake"] is True, reviewed
    assert reviewed["drop"] >= 0.10 and reviewed["best"] not in (None, text)
    mover = reviewed["seat"]
    assert reviewed["before"][mover] - reviewed["chances"][mover] == pytest.approx(reviewed["drop"], abs=2e-4)
    # (drop is given to 4 decimals: a drop a hair below 0.10 may read 0.1)
    assert all(move["mistake"] == (move["drop"] >= 0.10) for move in body["moves"] if abs(move["drop"] - 0.10) > 1e-4)
