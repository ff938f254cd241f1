"""A finished game's result: one shape whatever the ending.

``result_from_outcome`` ranks a game the engine scored (points, the Gauntlet,
everyone passing, the round limit) with the seats that left it ranked last;
``result_last_standing`` ranks a game that ended because only one player was
left, ``result_person_left`` a practice game or a sandbox its person left. Each
gives every field, so a client reads every ending the same way.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Sequence
from typing import TypedDict

import engine


class ResultReason(enum.StrEnum):
    """Why a game ended: the engine's reasons, and those the services add."""

    POINTS = "points"  # B-END-1
    GAUNTLET = "gauntlet"  # M-END-2
    ALL_PASSED = "all-passed"
    ROUND_LIMIT = "round-limit"
    RESIGNATION = "resignation"  # every other player resigned (a practice game's or a sandbox's person did)
    TIMEOUT = "timeout"  # every other player resigned or ran out of time, the last on time
    ACCOUNT_DISABLED = "account-disabled"  # the last to leave did so because their account was disabled
    ADJUDICATED = "adjudicated"  # a moderator decided the places (games.moderation)


class GameResult(TypedDict):
    """``Game.result``: stored as JSON and sent to clients as it is."""

    winners: list[int]  # seat indexes sharing first place
    scores: list[int]  # prestige points, by seat
    places: list[int]  # by seat: 1 is first; equal players share a place
    ranking: list[int]  # seat indexes, best first
    reason: str  # a ResultReason value
    resigned: list[int]  # every seat that left the game, by resigning or on time
    timed_out: list[int]  # those of them that left on time


def result_from_outcome(
    outcome: engine.Outcome, *, resigned: Collection[int], timed_out: Collection[int] = ()
) -> GameResult:
    """The engine's ranking with every seat that left ranked below those who played on.

    Seats that left keep the engine's order among themselves; places are worked
    out again within each group, so equal players still share a place.
    """
    left = set(resigned) | set(timed_out)
    engine_places: Sequence[int] = outcome["places"]
    stayed = [s for s in outcome["ranking"] if s not in left]
    gone = [s for s in outcome["ranking"] if s in left]
    places = list(engine_places)
    for group, offset in ((stayed, 0), (gone, len(stayed))):
        for seat in group:
            places[seat] = offset + 1 + sum(1 for other in group if engine_places[other] < engine_places[seat])
    ranking = stayed + gone
    winners = [s for s in ranking if places[s] == 1]
    return {
        "winners": winners,
        "scores": list(outcome["scores"]),
        "places": places,
        "ranking": ranking,
        "reason": str(outcome["reason"]),
        "resigned": sorted(left),
        "timed_out": sorted(timed_out),
    }


def result_last_standing(
    *, winner: int, left_in_order: Sequence[int], scores: Sequence[int], timed_out: Collection[int], reason: ResultReason
) -> GameResult:
    """The result when one player is left: ``left_in_order`` lists the seats that
    left, the last to leave first (it outlasted the others, so it ranks higher)."""
    ranking = [winner, *left_in_order]
    places = [0] * len(scores)
    for place, seat in enumerate(ranking, start=1):
        places[seat] = place
    return {
        "winners": [winner],
        "scores": list(scores),
        "places": places,
        "ranking": ranking,
        "reason": reason.value,
        "resigned": sorted(left_in_order),
        "timed_out": sorted(timed_out),
    }


def result_person_left(
    *, left_in_order: Sequence[int], scores: Sequence[int], timed_out: Collection[int], reason: ResultReason
) -> GameResult:
    """The result of a practice game or a sandbox whose person left it: the seats
    still in (bots, a sandbox's hot seats), who play for nobody now, ranked by their
    points so far (equal points share a place), above the seats that left,
    ``left_in_order`` (the last to leave first)."""
    gone = set(left_in_order)
    stayed = sorted((seat for seat in range(len(scores)) if seat not in gone), key=lambda seat: (-scores[seat], seat))
    places = [0] * len(scores)
    for seat in stayed:
        places[seat] = 1 + sum(1 for other in stayed if scores[other] > scores[seat])
    for place, seat in enumerate(left_in_order, start=len(stayed) + 1):
        places[seat] = place
    return {
        "winners": [seat for seat in stayed if places[seat] == 1],
        "scores": list(scores),
        "places": places,
        "ranking": [*stayed, *left_in_order],
        "reason": reason.value,
        "resigned": sorted(gone),
        "timed_out": sorted(timed_out),
    }


def result_in_current_shape(result: dict[str, object], *, timed_out: Collection[int]) -> GameResult:
    """A result stored before results had one shape, in the current shape: a
    resignation's result gains ``places`` (its ranking has no ties), every result
    gains ``resigned`` and ``timed_out``. A result already in shape is unchanged."""
    ranking = [int(seat) for seat in result["ranking"]]  # type: ignore[attr-defined]
    places = result.get("places")
    if places is None:
        by_seat = [0] * len(ranking)
        for place, seat in enumerate(ranking, start=1):
            by_seat[seat] = place
        places = by_seat
    resigned = sorted(int(seat) for seat in result.get("resigned", []))  # type: ignore[attr-defined]
    return {
        "winners": [int(seat) for seat in result["winners"]],  # type: ignore[attr-defined]
        "scores": [int(score) for score in result["scores"]],  # type: ignore[attr-defined]
        "places": [int(place) for place in places],  # type: ignore[attr-defined]
        "ranking": ranking,
        "reason": str(result["reason"]),
        "resigned": resigned,
        "timed_out": sorted(result.get("timed_out", timed_out)),  # type: ignore[call-overload]
    }
