"""No email shows what its recipient may not see: another seat's blind-reserved
card, the order of the decks, or the seed before the game is over."""

from __future__ import annotations

import re
from typing import Any

import engine
import pytest
from django.core import mail
from tests.notifications.email_helpers import everything_in, headline_of, play, start_game, user_to_move

from games import services
from games.models import Move

pytestmark = pytest.mark.usefixtures("clock")


def _standing_alone(card_id: str) -> re.Pattern[str]:
    # "1-39" on its own, not inside a longer word, number or token.
    return re.compile(rf"(?<![\w-]){re.escape(card_id)}(?![\w-])")


def test_no_email_shows_a_blind_reserved_card_the_deck_order_or_the_seed_too_early(
    alice: Any, bob: Any, commit: Any, caplog: pytest.LogCaptureFixture, log_format: str
) -> None:
    caplog.set_level("DEBUG")
    game = start_game(commit, alice, bob)
    reserver = user_to_move(game)
    other = bob if reserver == alice else alice
    play(commit, game, "reserve deck1")
    hidden_card = Move.objects.get(game=game, ply=0).private_card
    assert hidden_card
    for _ in range(6):
        play(commit, game)  # token takes: the reserved card stays hidden
    state = engine.from_dict(game.state)
    reserver_index = game.seats.get(user=reserver).index
    assert (hidden_card, True) in state.players[reserver_index].reserved  # still reserved, still blind
    deck_cards = [card for deck in state.decks for card in deck]
    assert deck_cards

    to_other = [m for m in mail.outbox if other.email in m.to]
    assert len(to_other) >= 4  # an invitation or turn emails: there is something to look at
    for message in to_other:
        text = everything_in(message)
        assert not _standing_alone(hidden_card).search(text), message.subject
    # The reserver's own turn emails do show the card: the check would see a leak.
    to_reserver = [everything_in(m) for m in mail.outbox if reserver.email in m.to]
    assert any(_standing_alone(hidden_card).search(text) for text in to_reserver)
    for message in mail.outbox:
        text = everything_in(message)
        for card in deck_cards:
            assert not _standing_alone(card).search(text), (card, message.subject)
        assert game.seed not in text

    logged = caplog.text  # as LOG_FORMAT writes it, context fields included
    assert logged
    assert not _standing_alone(hidden_card).search(logged)
    assert game.seed not in logged

    mail.outbox.clear()
    with commit():
        services.game_resign(game=game, user=other)
    game.refresh_from_db()
    over = [m for m in mail.outbox if headline_of(m).startswith(f"Game {game.pk} is over")]
    assert len(over) == 2
    assert all(game.seed in m.body for m in over)
