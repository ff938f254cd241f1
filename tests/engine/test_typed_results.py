"""The typed results (``Outcome``, ``MoveDetails``, ``BoardView`` and its parts,
``EndReason``) describe exactly the plain dicts the engine hands out: the same
keys, required where both variants have them, and JSON that reads as before."""

from __future__ import annotations

import json
from typing import Any

import pytest

import engine
from tests.engine.builders import play, position


def finished_game(variant: str, players: int, seed: int) -> engine.State:
    state = engine.new_game(variant=variant, players=players, seed=seed)
    while not engine.is_over(state):
        state = engine.apply(state, engine.legal_moves(state)[0])
    return state


def keys_fit(value: dict[str, Any], typed: Any, *, present: set[str]) -> None:
    """``value`` has every required key of ``typed``, no key it does not declare,
    and of its optional keys exactly ``present``."""
    assert typed.__required_keys__ <= set(value), sorted(typed.__required_keys__ - set(value))
    assert set(value) - typed.__required_keys__ == present


def test_end_reasons_are_the_strings_stored_so_far():
    assert [r.value for r in engine.EndReason] == ["points", "gauntlet", "all-passed", "round-limit"]
    assert engine.EndReason.ALL_PASSED == "all-passed" and isinstance(engine.EndReason.POINTS, str)


@pytest.mark.parametrize("variant, players, seed", [("base", 2, 3), ("marvel", 3, 4)])
def test_an_outcome_has_exactly_the_outcome_keys_and_its_reason_is_an_end_reason(variant, players, seed):
    state = finished_game(variant, players, seed)
    result = engine.outcome(state)
    assert result is not None
    keys_fit(dict(result), engine.Outcome, present=set())
    assert isinstance(result["reason"], engine.EndReason)
    assert json.loads(json.dumps(result))["reason"] == result["reason"].value


def test_to_dict_writes_the_reason_as_a_plain_string_and_from_dict_reads_it_back():
    state = finished_game("base", 2, 3)
    data = engine.to_dict(state)
    assert type(data["reason"]) is str and data["reason"] == state.reason
    again = engine.from_dict(json.loads(json.dumps(data)))
    assert again == state and again.reason is state.reason


def test_from_dict_refuses_an_unknown_end_reason():
    data = engine.to_dict(finished_game("base", 2, 3))
    with pytest.raises(ValueError, match="not a state dictionary"):
        engine.from_dict({**data, "reason": "boredom"})


def test_from_dict_refuses_a_finished_game_without_a_reason_and_a_reason_without_an_end():
    data = engine.to_dict(finished_game("base", 2, 3))
    with pytest.raises(ValueError, match="'reason'"):
        engine.from_dict({**data, "reason": None})
    with pytest.raises(ValueError, match="'reason'"):
        engine.from_dict({**data, "over": False})


def test_a_base_view_has_the_common_keys_and_nobles_and_no_marvel_key():
    state = play(position("base", players=2, reserved={1: [("2-05", True)], 0: ["1-01"]}), "take WUG")
    view = engine.observe(state, 0)
    keys_fit(dict(view), engine.BoardView, present={"nobles"})
    assert len(view["seats"]) == 2 and view["nobles"] and view["market"]
    for seat in view["seats"]:
        keys_fit(dict(seat), engine.SeatView, present={"nobles"})
    for tile in view["nobles"]:
        keys_fit(dict(tile), engine.TileView, present=set())
    for row in view["market"].values():
        for card in row:
            assert card is not None
            keys_fit(dict(card), engine.MarketCardView, present=set())
    own, hidden = view["seats"][0]["reserved"][0], view["seats"][1]["reserved"][0]
    keys_fit(dict(own), engine.ReservedCardView, present=set())
    keys_fit(dict(hidden), engine.HiddenReservedView, present=set())


def test_a_marvel_view_has_the_common_keys_locations_and_every_marvel_key():
    view = engine.observe(engine.new_game(variant="marvel", players=2, seed=4), None)
    keys_fit(dict(view), engine.BoardView, present={"locations", "avengers_assemble"})
    assert len(view["seats"]) == 2 and view["locations"] and view["market"]
    for seat in view["seats"]:
        keys_fit(dict(seat), engine.SeatView,
                 present={"locations", "avengers_icons", "avengers_assemble", "time_stone", "gauntlet"})
        keys_fit(dict(seat["gauntlet"]), engine.GauntletView, present=set())
    for tile in view["locations"]:
        keys_fit(dict(tile), engine.TileView, present={"name"})
    for row in view["market"].values():
        for card in row:
            assert card is not None
            keys_fit(dict(card), engine.MarketCardView, present={"name", "avengers", "time_stone"})


def test_a_finished_view_carries_the_outcome():
    state = finished_game("marvel", 2, 4)
    view = engine.observe(state, 1)
    assert view["outcome"] == engine.outcome(state) and view["to_move"] is None


def test_move_details_have_exactly_the_move_details_keys():
    before = engine.new_game(variant="base", players=2, seed=1)
    move = engine.parse_move(before, "reserve deck 2")
    details = engine.move_details(before, move, engine.apply(before, move))
    keys_fit(dict(details), engine.MoveDetails, present=set())
    assert details["private_card"] is not None and details["move"] == "reserve deck2"


def test_the_typed_results_are_exported_by_name():
    names = {"Outcome", "EndReason", "MoveDetails", "BoardView", "SeatView", "CardView",
             "MarketCardView", "ReservedCardView", "HiddenReservedView", "TileView", "GauntletView"}
    assert names <= set(engine.__all__)
    assert all(hasattr(engine, name) for name in names)
