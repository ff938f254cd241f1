"""GET/PUT/DELETE /api/v1/games/{id}/plan/: a seat's conditional moves, stored
while it waits and played at once when the move before its turn matches."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import Game, GameEvent, Move, Seat
from tests.games.game_helpers import client_for
from tests.plans.plan_helpers import FOUR_DEEP, MOVER_MOVES, PLANNED, two_player_table

pytestmark = pytest.mark.django_db


def _url(game: Game) -> str:
    return f"/api/v1/games/{game.pk}/plan/"


def test_a_player_plays_four_moves_through_a_plan_by_the_api(alice: Any, bob: Any) -> None:
    """Done-when of conditional moves: one plan, four moves, each a move like any
    other (its own version, its move_played event, the player's own)."""
    table = two_player_table(alice, bob)
    game, mover, planner = table.game, client_for(table.mover), client_for(table.planner)
    stored = planner.put(_url(game), {"lines": FOUR_DEEP, "expected_version": game.version}, format="json")
    assert stored.status_code == 200, stored.content
    assert stored.json()["lines"][0]["next"][0]["then"] == "take WRK"  # colour words read as canonical letters
    for ply, move in enumerate(MOVER_MOVES):
        version = mover.get(f"/api/v1/games/{game.pk}/").json()["version"]
        played = mover.post(f"/api/v1/games/{game.pk}/moves/", {"move": move, "expected_version": version})
        assert played.status_code == 201, played.content
        # The mover's answer shows the planner's move already played, and the mover to move again.
        assert played.json()["game"]["version"] == version + 2
        assert played.json()["game"]["to_move"] == played.json()["game"]["your_seat"]
    history = planner.get(f"/api/v1/games/{game.pk}/moves/").json()
    assert [entry["move"] for entry in history[1::2]] == PLANNED
    assert all(entry["played_by"] == "player" and not entry["automatic"] for entry in history)
    assert list(Move.objects.filter(game=game, from_plan=True).values_list("ply", flat=True)) == [1, 3, 5, 7]
    events = GameEvent.objects.filter(game=game, kind=GameEvent.Kind.MOVE_PLAYED).order_by("id")
    assert [event.payload["move"] for event in events][1::2] == PLANNED
    assert all("from_plan" not in event.payload and "plan" not in str(event.payload) for event in events)
    plan = planner.get(_url(game)).json()
    assert plan["lines"] == []
    assert [outcome["played"] for outcome in plan["outcomes"]] == PLANNED
    assert [outcome["after"] for outcome in plan["outcomes"]] == MOVER_MOVES


def test_an_unmatched_move_clears_the_plan_and_its_owner_reads_why(alice: Any, bob: Any) -> None:
    table = two_player_table(alice, bob)
    game, planner = table.game, client_for(table.planner)
    planner.put(_url(game), {"lines": FOUR_DEEP, "expected_version": game.version}, format="json")
    version = game.version
    client_for(table.mover).post(f"/api/v1/games/{game.pk}/moves/", {"move": "take WUG", "expected_version": version})
    plan = planner.get(_url(game)).json()
    assert plan["lines"] == []
    assert plan["outcomes"] == [{"ply": 1, "after": "take WUG", "cleared": "unmatched"}]
    assert plan["can_store"] is False  # it is the planner's turn now
    game.refresh_from_db()
    assert game.version == version + 1 and game.to_move == Seat.objects.get(game=game, user=table.planner).index


def test_a_line_whose_move_breaks_a_rule_then_clears_the_plan_naming_the_rule(alice: Any, bob: Any) -> None:
    """B-TAKE-2: two of one colour needs four in the pile; after the mover takes a
    red, three are left."""
    table = two_player_table(alice, bob)
    game, planner = table.game, client_for(table.planner)
    lines = [{"if": "take R", "then": "take RR"}, {"if": "take WUR", "then": "take RR"}]
    assert planner.put(_url(game), {"lines": lines, "expected_version": game.version}, format="json").status_code == 200
    client_for(table.mover).post(
        f"/api/v1/games/{game.pk}/moves/", {"move": "take WUR", "expected_version": game.version}
    )
    outcome = planner.get(_url(game)).json()["outcomes"][-1]
    assert outcome["cleared"] == "illegal" and outcome["rule"] == "B-TAKE-2" and outcome["move"] == "take RR"
    assert outcome["reason"]
    assert not Move.objects.filter(game=game, from_plan=True).exists()


def test_a_plan_cannot_be_stored_on_ones_own_turn(alice: Any, bob: Any) -> None:
    table = two_player_table(alice, bob)
    answer = client_for(table.mover).put(
        _url(table.game), {"lines": FOUR_DEEP, "expected_version": table.game.version}, format="json"
    )
    assert answer.status_code == 409
    assert answer.json()["code"] == "plan_on_your_turn"


def test_a_plan_on_a_stale_version_is_refused_as_a_move_is(alice: Any, bob: Any) -> None:
    table = two_player_table(alice, bob)
    answer = client_for(table.planner).put(
        _url(table.game), {"lines": FOUR_DEEP, "expected_version": table.game.version - 1}, format="json"
    )
    assert answer.status_code == 409
    assert answer.json()["code"] == "stale_version" and answer.json()["current_version"] == table.game.version


def test_every_bad_line_is_named_by_its_path(alice: Any, bob: Any) -> None:
    table = two_player_table(alice, bob)
    lines = [
        {"if": "take WUG", "then": "dance", "next": [{"if": "nonsense", "then": "take WUG"}]},
        {"if": "any", "then": "take WUG", "colour": "red"},
        {"then": "take WUG"},
    ]
    answer = client_for(table.planner).put(
        _url(table.game), {"lines": lines, "expected_version": table.game.version}, format="json"
    )
    assert answer.status_code == 400 and answer.json()["code"] == "validation_error"
    assert set(answer.json()["errors"]) == {"lines[0].then", "lines[0].next[0].if", "lines[1].colour", "lines[2].if"}
    assert Seat.objects.get(game=table.game, user=table.planner).plan == []


def test_a_plan_has_at_most_twenty_lines_and_five_levels(alice: Any, bob: Any) -> None:
    table = two_player_table(alice, bob)
    client = client_for(table.planner)
    many = [{"if": "any", "then": "take WUG"}] * 21
    answer = client.put(_url(table.game), {"lines": many, "expected_version": table.game.version}, format="json")
    assert answer.status_code == 400 and "lines" in answer.json()["errors"]
    deep: list[Any] = []
    for _ in range(6):
        deep = [{"if": "any", "then": "take WUG", "next": deep}]
    answer = client.put(_url(table.game), {"lines": deep, "expected_version": table.game.version}, format="json")
    assert answer.status_code == 400
    assert list(answer.json()["errors"]) == ["lines[0].next[0].next[0].next[0].next[0].next"]
    assert client.put(
        _url(table.game), {"lines": deep[0]["next"], "expected_version": table.game.version}, format="json"
    ).status_code == 200


def test_a_then_naming_a_card_the_seat_cannot_see_gets_one_refusal_whatever_hides_it(alice: Any, bob: Any) -> None:
    """A card in a deck and a card that does not exist are refused in the same
    words: accepting or refusing a plan tells nothing of the decks."""
    table = two_player_table(alice, bob)
    game = table.game
    game.refresh_from_db()
    deck_card = game.state["decks"][0][0]
    client = client_for(table.planner)
    answers = []
    for card in (deck_card, "1-99"):
        answer = client.put(
            _url(game), {"lines": [{"if": "any", "then": f"buy {card}"}], "expected_version": game.version},
            format="json",
        )
        assert answer.status_code == 400
        answers.append(answer.json()["errors"]["lines[0].then"][0].replace(card, "CARD"))
    assert answers[0] == answers[1]
    market_card = next(cid for cid in game.state["market"][0] if cid)
    answer = client.put(
        _url(game), {"lines": [{"if": "any", "then": "buy 1a"}], "expected_version": game.version}, format="json"
    )
    assert answer.status_code == 200 and answer.json()["lines"][0]["then"] == f"buy {market_card}"


def test_delete_clears_the_plan(alice: Any, bob: Any) -> None:
    table = two_player_table(alice, bob)
    client = client_for(table.planner)
    client.put(_url(table.game), {"lines": FOUR_DEEP, "expected_version": table.game.version}, format="json")
    answer = client.delete(_url(table.game))
    assert answer.status_code == 200 and answer.json()["lines"] == []
    assert Seat.objects.get(game=table.game, user=table.planner).plan == []


def test_storing_a_plan_changes_nothing_others_see(alice: Any, bob: Any) -> None:
    table = two_player_table(alice, bob)
    game = table.game
    events = GameEvent.objects.filter(game=game).count()
    client_for(table.planner).put(_url(game), {"lines": FOUR_DEEP, "expected_version": game.version}, format="json")
    version = game.version
    game.refresh_from_db()
    assert game.version == version and GameEvent.objects.filter(game=game).count() == events


def test_the_export_shows_which_moves_came_from_a_plan_only_once_the_game_is_over(alice: Any, bob: Any) -> None:
    table = two_player_table(alice, bob)
    game, mover = table.game, client_for(table.mover)
    client_for(table.planner).put(_url(game), {"lines": FOUR_DEEP, "expected_version": game.version}, format="json")
    mover.post(f"/api/v1/games/{game.pk}/moves/", {"move": "reserve deck1", "expected_version": game.version})
    assert mover.get(f"/api/v1/games/{game.pk}/export/").json()["from_plan"] is None
    assert mover.post(f"/api/v1/games/{game.pk}/resign/").status_code == 200
    assert mover.get(f"/api/v1/games/{game.pk}/export/").json()["from_plan"] == [1]


def test_a_body_with_a_field_a_plan_does_not_have_is_refused_before_the_game_is_looked_up(
    alice: Any, bob: Any, charlie: Any
) -> None:
    table = two_player_table(alice, bob)
    answer = client_for(charlie).put(
        _url(table.game), {"lines": [], "expected_version": 1, "expected_versoin": 1}, format="json"
    )
    assert answer.status_code == 400 and list(answer.json()["errors"]) == ["expected_versoin"]
    answer = client_for(charlie).put(_url(table.game), {"lines": [], "expected_version": 1}, format="json")
    assert answer.status_code == 404 and answer.json()["code"] == "game_not_found"
