"""The plan editor of the game page (docs/plans.md): what it shows the seat's
holder, and storing or clearing the plan written in its box, in the words the
email reader takes (``if take WUG then buy 1a``, indented lines for the next
lines). ``games.pages.game`` draws it and posts to it; nobody but the seat's holder
ever gets it. Where a plan fires: ``games.plans``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from django.utils.translation import gettext

import engine
from core.errors import InvalidInput
from engine.grammar import grammar_for, plan_text_read
from games import services
from games.models import Game
from games.pages.session import Viewer
from games.plans.lines import PlanLine, PlanOutcome, outcome_sentence, plan_stored
from games.services.moves import move_languages
from games.words import plan_line_in_words

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# The most text the box takes: 20 lines of 200 characters and their indentation.
MAX_PLAN_TEXT = 4500


def plan_as_text(lines: list[PlanLine], variant: str = "base", language: str = "en", depth: int = 0) -> str:
    """The plan in the words of ``language`` (games.words), which the box reads
    back in the seat holder's languages (``move_languages``)."""
    out = []
    for line in lines:
        out.append("  " * depth + plan_line_in_words(line["if"], line["then"], variant, language))
        following = plan_as_text(line["next"], variant, language, depth + 1)
        if following:
            out.append(following)
    return "\n".join(out)


def plan_panel(viewer: Viewer, *, typed: str | None = None) -> dict[str, Any] | None:
    """The editor for the page's seat holder in an active game (not a sandbox,
    whose seats its owner plays in turn); None for anyone else. ``typed``: the
    text of a box that was refused, shown again to be mended."""
    game, seat = viewer.game, viewer.seat
    if seat is None or not seat.has_joined or seat.resigned or game.status != Game.Status.ACTIVE:
        return None
    if game.kind == Game.Kind.SANDBOX or game.state is None:
        return None
    ply = engine.from_dict(game.state).ply
    # The box is read in the holder's languages: it is written in the last of them.
    language = move_languages(seat.user)[-1]
    # What the plan did in the last round (since the seat's turn before).
    recent = [
        cast(PlanOutcome, o) for o in (seat.plan_outcomes or [])
        if isinstance(o, dict) and int(o.get("ply", -1)) >= ply - game.seat_count
    ]
    return {
        "text": plan_as_text(plan_stored(seat.plan), game.variant, language) if typed is None else typed,
        "example": plan_line_in_words("take WUG" if game.variant != "marvel" else "take YUO", "reserve deck1",
                                      game.variant, language),
        "stored": bool(seat.plan),
        "can_store": game.to_move != seat.index,
        "said": [outcome_sentence(o, game.variant) for o in recent],
        "version": game.version,
        "max_length": MAX_PLAN_TEXT,
    }


def plan_text_store(*, game: Game, user: User, text: str, version: int) -> str:
    """Store the plan written in the box (an empty box clears it) and say so.
    Refusals are the service's; a line's errors name the line by its number."""
    if not text.strip():
        services.plan_clear(game_id=game.pk, user=user)
        return gettext("Your plan is cleared.")
    if len(text) > MAX_PLAN_TEXT:
        raise InvalidInput({"plan": [gettext("A plan is at most %(n)s characters.") % {"n": MAX_PLAN_TEXT}]})
    languages = move_languages(user)
    lines, written = plan_text_read(text, grammar_for(languages))
    if not lines:
        example = plan_line_in_words("take WUG" if game.variant != "marvel" else "take YUO", "reserve deck1",
                                     game.variant, languages[-1])
        raise InvalidInput({"plan": [gettext('Write each line as "%(example)s".') % {"example": example}]})
    try:
        services.plan_store(game_id=game.pk, user=user, lines=lines, expected_version=version, languages=languages)
    except InvalidInput as error:
        raise InvalidInput(error.errors, message=_by_line(error, lines, written)) from None
    return gettext("Your plan is stored. Only you can see it.")


def _paths(lines: list[dict[str, object]], prefix: str = "lines") -> list[str]:
    paths: list[str] = []
    for index, line in enumerate(lines):
        path = f"{prefix}[{index}]"
        following = line.get("next")
        paths += [path, *_paths(following if isinstance(following, list) else [], f"{path}.next")]
    return paths


def _by_line(error: InvalidInput, lines: list[dict[str, object]], written: list[str]) -> str:
    """The service's errors by path, as the box's numbered lines."""
    number_of = {path: number for number, path in enumerate(_paths(lines), start=1)}
    said = []
    for path, messages in error.errors.items():
        number = number_of.get(path.rsplit(".", 1)[0] if path.endswith((".if", ".then")) else path)
        where = gettext("Line %(n)s (%(line)s)") % {"n": number, "line": written[number - 1]} if number else gettext(
            "The plan")
        said.append(f"{where}: {' '.join(messages)}")
    return " ".join(said)
