"""Cards named in a move are found among the cards the seat can see."""

from __future__ import annotations

from typing import Any

import engine
import pytest
from tests.games.game_helpers import start_two_player_game

from games import errors
from games.models import Seat
from notifications.inbound.actions import move_text_with_names

pytestmark = pytest.mark.django_db


def _marvel(alice: Any, bob: Any) -> tuple[Any, Seat, Any]:
    game = start_two_player_game(alice, bob, variant="marvel")
    seat = Seat.objects.get(game=game, index=game.to_move)
    return game, seat, engine.from_dict(game.state)


def test_a_market_card_is_found_by_its_name_ignoring_case_spaces_and_punctuation(alice: Any, bob: Any) -> None:
    game, seat, state = _marvel(alice, bob)
    card_id = state.market[0][0]
    name = state.variant.cards[card_id].name
    assert move_text_with_names(game, seat, f"buy {name.upper().replace(' ', '')}!") in (
        f"buy {card_id}!",
        f"buy {card_id}",
    )
    assert move_text_with_names(game, seat, f"reserve {name} return Y") == f"reserve {card_id} return Y"


def test_a_name_not_on_the_board_is_refused_without_naming_hidden_cards(alice: Any, bob: Any) -> None:
    game, seat, state = _marvel(alice, bob)
    visible = {cid for row in state.market for cid in row if cid}
    hidden = next(c for c in state.variant.cards.values() if c.id not in visible and c.name)
    with pytest.raises(errors.InvalidNotation) as refused:
        move_text_with_names(game, seat, f"buy {hidden.name}")
    assert hidden.id not in refused.value.message


def test_a_name_that_fits_several_visible_cards_lists_the_candidates(alice: Any, bob: Any) -> None:
    game, seat, state = _marvel(alice, bob)
    names = {cid: state.variant.cards[cid].name for row in state.market for cid in row if cid}
    letter = next(ch for ch in "aeinorst" if sum(ch in n.lower() for n in names.values()) > 1)
    with pytest.raises(errors.AmbiguousMove) as refused:
        move_text_with_names(game, seat, f"buy {letter}")
    assert len(refused.value.fields["choices"]) > 1


def test_ids_slots_and_decks_pass_through_unchanged(alice: Any, bob: Any) -> None:
    game, seat, _ = _marvel(alice, bob)
    for text in ("buy 1-07", "reserve 2c", "reserve deck 3", "buy h1", "take YUO"):
        assert move_text_with_names(game, seat, text) == text


def test_in_marvel_after_a_name_is_not_part_of_it(alice: Any, bob: Any) -> None:
    game, seat, state = _marvel(alice, bob)
    card_id = state.market[0][1]
    name = state.variant.cards[card_id].name
    assert move_text_with_names(game, seat, f"buy {name} in Marvel") == f"buy {card_id}"
