"""Conditional moves ("plans", docs/plans.md): the lines a seat holder writes,
read into canonical notation, and which line the move before the seat's turn
fires.

A plan is a list of lines ``{"if": A, "then": B, "next": [...]}``: when the move
before the seat's turn matches A, B is played for the seat and the line's
``next`` lines become the plan. No database here: the services store plans on
the seat (``games.plans.services``) and the turn machinery fires them: where
and when, ``games.plans`` says once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict, cast

from django.utils import translation
from django.utils.translation import gettext

import engine
from games.engine_text import engine_text
from games.words import move_in_words, plan_line_in_words

# At most this many lines in a whole plan, and this many levels of ``next``.
MAX_LINES = 20
MAX_DEPTH = 5
# The "if" that matches every move.
ANY = "any"
# The fields a line may have.
LINE_FIELDS = frozenset({"if", "then", "next"})

PlanLine = TypedDict("PlanLine", {"if": str, "then": str, "next": list["PlanLine"]})


class PlanOutcome(TypedDict, total=False):
    """What a plan did at one turn: ``played`` the line's move, or ``cleared``
    (``unmatched``: no line named the move before; ``illegal`` / ``ambiguous``:
    the line's move could not be played then, ``rule`` and ``reason`` say why;
    ``suspended``: the account could not move). ``after`` is the move before
    the seat's turn (public notation), ``ply`` the seat's turn."""

    ply: int
    after: str
    played: str
    cleared: str
    move: str
    rule: str
    reason: str


@dataclass
class _Reader:
    state: engine.State
    seat: int
    languages: tuple[str, ...]
    errors: dict[str, list[str]] = field(default_factory=dict)
    count: int = 0

    def fail(self, path: str, message: str) -> None:
        self.errors.setdefault(path, []).append(message)

    def lines(self, raw: object, path: str, depth: int) -> list[PlanLine]:
        if not isinstance(raw, list):
            self.fail(path, gettext("A list of lines is expected."))
            return []
        if raw and depth > MAX_DEPTH:
            self.fail(path, gettext("A plan goes at most %(depth)s lines deep.") % {"depth": MAX_DEPTH})
            return []
        return [line for index, item in enumerate(raw) if (line := self.line(item, f"{path}[{index}]", depth))]

    def line(self, raw: object, path: str, depth: int) -> PlanLine | None:
        self.count += 1
        if self.count > MAX_LINES:
            return None  # refused as a whole (plan_read); read no further
        if not isinstance(raw, dict):
            self.fail(path, gettext('A line is an object with "if", "then" and, if you like, "next".'))
            return None
        for name in sorted(set(raw) - LINE_FIELDS, key=str):
            self.fail(f"{path}.{name}", gettext('A line has only "if", "then" and "next".'))
        before = self.text(raw.get("if"), f"{path}.if", before=True)
        then = self.text(raw.get("then"), f"{path}.then", before=False)
        following = self.lines(raw.get("next", []), f"{path}.next", depth + 1)
        if before is None or then is None:
            return None
        return {"if": before, "then": then, "next": following}

    def text(self, raw: object, path: str, *, before: bool) -> str | None:
        if not isinstance(raw, str) or not raw.strip():
            self.fail(path, gettext("A move in notation is expected here."))
            return None
        if before and raw.strip().lower() == ANY:
            return ANY
        try:
            # The other seat's move names no hand slot of anyone's: hidden reserves stay unread.
            move = engine.read_move(
                self.state, raw, languages=self.languages, hand_seat=None if before else self.seat
            )
        except engine.InvalidNotation as exc:
            self.fail(path, gettext("Could not read the move (%(reason)s).") % {"reason": engine_text(exc.text)})
            return None
        if not before and move.card is not None and not card_seen(self.state, self.seat, move.card):
            # One refusal for a card in a deck, in another's reserve or gone: accepting
            # or refusing a plan tells nothing of what the seat cannot see.
            self.fail(
                path,
                gettext("%(card)s is not a card you can see in the market or in your reserve; a plan's move "
                        "names only those (or a deck, to reserve blind).") % {"card": move.card},
            )
            return None
        return move.text


def card_seen(state: engine.State, seat: int, card: str) -> bool:
    """Whether ``card`` lies face up in the market or in ``seat``'s own reserve."""
    return any(card in row for row in state.market) or any(card == cid for cid, _ in state.players[seat].reserved)


def plan_read(
    state: engine.State, raw: object, *, seat: int, languages: Iterable[str]
) -> tuple[list[PlanLine], dict[str, list[str]]]:
    """The lines of ``raw`` (the JSON a player sent) in canonical notation, and the
    errors by field path (``lines[0].next[1].then``); the lines are good only when
    there is no error. Each text is read against ``state`` (a market slot names
    the card in it now) in English and ``languages``; a ``then`` may name only a
    card the seat sees now (``card_seen``)."""
    reader = _Reader(state=state, seat=seat, languages=tuple(languages))
    lines = reader.lines(raw, "lines", 1)
    if reader.count > MAX_LINES:
        reader.errors = {"lines": [gettext("A plan has at most %(max)s lines in all (this one has more).")
                                   % {"max": MAX_LINES}]}
    return lines, reader.errors


def plan_stored(raw: object) -> list[PlanLine]:
    """A plan as stored on a seat (a JSON list of lines), typed."""
    return cast(list[PlanLine], raw) if isinstance(raw, list) else []


def line_matches(pattern: str, move_text: str) -> bool:
    """Whether a line's ``if`` names ``move_text``: ``any`` names every move; an
    action without ``J:``, ``return`` or ``noble``/``location`` parts names the
    action with any of them; each part written must be the move's own."""
    if pattern == ANY:
        return True
    try:
        want, move = engine.move_from_text(pattern), engine.move_from_text(move_text)
    except engine.InvalidNotation:
        # A move no turn can be (take WUGR, stored as written): it matches none,
        # and it never fails the change that played the move before.
        return False
    if (want.kind, want.take, want.card, want.deck) != (move.kind, move.take, move.card, move.deck):
        return False
    return all(not part or part == got for part, got in ((want.pay, move.pay), (want.ret, move.ret), (want.tile, move.tile)))


@dataclass(frozen=True)
class PlanFiring:
    """What a plan does at its seat's turn: ``move`` to play (None: nothing), the
    plan after it and the outcome its owner is told."""

    move: engine.Move | None
    plan: list[PlanLine]
    outcome: PlanOutcome


def plan_fire(plan: Sequence[PlanLine], state: engine.State, before: str, *, language: str | None) -> PlanFiring:
    """The first line whose ``if`` matches ``before`` (the move before the seat's
    turn, in ``state``): its ``then`` if the rules allow it now, with its ``next``
    lines as the plan; otherwise no move and an empty plan. Reasons are written
    in ``language`` (the owner's)."""
    for line in plan:
        if not line_matches(line["if"], before):
            continue
        try:
            move = engine.parse_move(state, line["then"])
        except engine.AmbiguousMove as exc:
            return _cleared(state, before, "ambiguous", line["then"], exc, language)
        except engine.IllegalMove as exc:
            return _cleared(state, before, "illegal", line["then"], exc, language)
        except engine.InvalidNotation as exc:
            # Stored in canonical text, so read before; never the cause of a failed change.
            return _cleared(state, before, "illegal", line["then"], exc, language)
        return PlanFiring(move, list(line["next"]), {"ply": state.ply, "after": before, "played": move.text})
    return PlanFiring(None, [], {"ply": state.ply, "after": before, "cleared": "unmatched"})


def _cleared(
    state: engine.State,
    before: str,
    why: str,
    then: str,
    exc: engine.IllegalMove | engine.InvalidNotation,
    language: str | None,
) -> PlanFiring:
    with translation.override(language):
        reason = engine_text(exc.text)
    rule = exc.rule if isinstance(exc, engine.IllegalMove) else ""
    outcome: PlanOutcome = {
        "ply": state.ply, "after": before, "cleared": why, "move": then, "rule": rule, "reason": reason,
    }
    return PlanFiring(None, [], outcome)


def plan_as_json(lines: Sequence[PlanLine]) -> list[dict[str, Any]]:
    """The lines as the API shows them (the stored shape)."""
    return [{"if": line["if"], "then": line["then"], "next": plan_as_json(line["next"])} for line in lines]


def outcome_sentence(outcome: PlanOutcome, variant: str = "base") -> str:
    """What a plan did at one turn, for its owner, in the active language (its
    moves in words, games.words)."""
    values = {
        "after": move_in_words(str(outcome.get("after", "")), variant),
        "move": move_in_words(str(outcome.get("played") or outcome.get("move", "")), variant),
        "rule": outcome.get("rule", ""),
        "reason": outcome.get("reason", ""),
    }
    if "played" in outcome:
        return gettext("After %(after)s your plan played %(move)s.") % values
    cleared = outcome.get("cleared")
    if cleared == "unmatched":
        return gettext("After %(after)s no line of your plan matched: the plan is cleared and the move is yours.") % values
    if cleared in ("illegal", "ambiguous"):
        return gettext(
            "After %(after)s your plan's %(move)s could not be played (%(rule)s: %(reason)s): the plan is cleared "
            "and the move is yours."
        ) % values
    return gettext("After %(after)s your plan was cleared: your account cannot move now.") % values


def line_rows(lines: Sequence[PlanLine], variant: str = "base", depth: int = 0) -> list[tuple[int, str]]:
    """The plan as written lines, depth first, each with its depth (0 for the
    top): "if take white, blue and green then reserve from deck 1", in the words
    of the active language, which the email reader takes back (games.words)."""
    rows: list[tuple[int, str]] = []
    for line in lines:
        rows.append((depth, plan_line_in_words(line["if"], line["then"], variant)))
        rows.extend(line_rows(line["next"], variant, depth + 1))
    return rows
