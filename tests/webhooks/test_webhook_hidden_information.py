"""No webhook payload carries what its owner may not see: an opponent's
blind-reserved card, the cards still in the decks, or the seed before the end."""

from __future__ import annotations

import json
import re
from typing import Any

import engine
import pytest

from games import services as game_services
from games.models import Game, Move, Seat
from tests.games.game_helpers import play_moves, user_to_move
from tests.webhooks.webhook_helpers import Committed, Transport, new_game, register

pytestmark = pytest.mark.django_db

# A card id standing alone, so that dates like 2026-11-07 do not count as "1-07".
CARD_ID = re.compile(r"(?<![\w-])([123]-\d\d)(?![\w])")


def takes_gems(state: Any, moves: list[str]) -> str:
    return next(move for move in moves if move.startswith("take ") and " return " not in move)


def test_the_opponents_endpoint_never_sees_a_blind_reserved_card_the_decks_or_the_seed(
    alice: Any, bob: Any, transport: Transport, committed: Committed
) -> None:
    endpoints = {alice.pk: register(alice), bob.pk: register(bob)}
    game = new_game(alice, bob, committed)
    reserver = user_to_move(game)
    opponent = Seat.objects.exclude(user=reserver).get(game=game).user

    with committed():
        game_services.move_submit(
            game_id=game.pk, user=reserver, text="reserve deck1", expected_version=game.version
        )
        # Gems only: buying the blind-reserved card would show it to everyone, as it should.
        play_moves(game, 6, takes_gems)

    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    blind_card = Move.objects.get(game=game, ply=0).private_card
    assert blind_card and game.state is not None
    decks = {card for deck in engine.to_dict(engine.from_dict(game.state))["decks"] for card in deck}
    assert decks and blind_card not in decks

    bodies = [sent.body.decode() for sent in transport.to(endpoints[opponent.pk].url)]
    kinds = [json.loads(body)["type"] for body in bodies]
    assert kinds.count("move_played") == 7 and "game_started" in kinds
    seen = {card for body in bodies for card in CARD_ID.findall(body)}
    assert blind_card not in seen
    assert not seen & decks
    assert all(game.seed not in body for body in bodies)
    # The reserver's own endpoint is held to the same public payload: no card of the decks either.
    own = [sent.body.decode() for sent in transport.to(endpoints[reserver.pk].url)]
    assert not {card for body in own for card in CARD_ID.findall(body)} & decks
    assert all(game.seed not in body for body in own)
