"""The game page's notes panel (docs/pages.md, "Notes on a game"): what it shows
the seat's holder, and saving the notes written in its form, which works without
script (a POST to the page, then a redirect back). ``games.pages.game`` draws it
and posts to it, and the replay shows the notes beside their moves; nobody but
the seat's holder ever gets either. Where notes are stored: ``games.notes.services``."""

from __future__ import annotations

from typing import Any, TypedDict

from django.http import QueryDict
from django.utils.translation import gettext

from core.errors import DomainError, InvalidInput
from games import services
from games.models import Move
from games.notes.selectors import notes_text
from games.notes.text import MAX_MOVE_NOTES, MAX_NOTE_LENGTH, PLY_KEY
from games.pages.session import Viewer
from games.presentation import seat_words
from games.words import move_in_words

# The form's field of an existing note on a move: "move-<ply>".
MOVE_FIELD = "move-"


class NotesTyped(TypedDict):
    """What the form sent: the note on the game, the notes on moves it showed
    (by ply; an emptied one is removed), and a new note with its move's ply."""

    note: str
    edited: dict[str, str]
    ply: str
    move_note: str


def _text(value: str) -> str:
    # A browser sends a box's line breaks as CR LF; a note keeps them as LF.
    return value.replace("\r\n", "\n").replace("\r", "\n")


def notes_typed(form: QueryDict) -> NotesTyped:
    """The notes form's fields, line breaks made LF."""
    return {
        "note": _text(form.get("note", "")),
        "edited": {
            key[len(MOVE_FIELD):]: _text(form.get(key, "")) for key in form if key.startswith(MOVE_FIELD)
        },
        "ply": form.get("ply", "").strip(),
        "move_note": _text(form.get("move_note", "")),
    }


def _played(viewer: Viewer, names: dict[int, str]) -> list[dict[str, Any]]:
    moves = Move.objects.filter(game=viewer.game).order_by("ply").values_list("ply", "seat", "text")
    return [
        {
            "ply": str(ply),
            # People count moves from 1, as the replay does; the API's plies from 0.
            "label": gettext("Move %(number)s, %(name)s: %(move)s")
            % {
                "number": ply + 1,
                "name": names.get(seat, seat_words(seat)),
                "move": move_in_words(text, viewer.game.variant),
            },
        }
        for ply, seat, text in moves
    ]


def notes_panel(viewer: Viewer, *, names: dict[int, str], typed: NotesTyped | None = None) -> dict[str, Any] | None:
    """The panel for the page's seat holder (any seat they took, during the game
    and after it); None for anyone else. ``names``: the players' names by seat.
    ``typed``: what a refused form sent, shown again to be mended."""
    seat = viewer.seat
    if seat is None or not seat.has_joined:
        return None
    stored = notes_text(seat)
    played = _played(viewer, names)
    label_of = {move["ply"]: move["label"] for move in played}
    edited = typed["edited"] if typed is not None else {}
    noted = [
        {"ply": ply, "field": f"{MOVE_FIELD}{ply}", "label": label_of.get(ply, ply), "text": edited.get(ply, text)}
        for ply, text in stored["moves"].items()
    ]
    return {
        "note": typed["note"] if typed is not None else stored["note"],
        "noted": noted,
        "moves": played,
        # A new note goes on the last move unless another is chosen.
        "ply": typed["ply"] if typed is not None else (played[-1]["ply"] if played else ""),
        "move_note": typed["move_note"] if typed is not None else "",
        "can_add": bool(played) and len(noted) < MAX_MOVE_NOTES,
        "max_length": MAX_NOTE_LENGTH,
    }


def notes_form_store(*, viewer: Viewer, typed: NotesTyped) -> str:
    """Save the notes the form sent and say so. The notes on moves the form did
    not show (stored meanwhile through the API) are kept. Refusals are the
    service's (``notes_refusal`` says them in the page's words)."""
    seat = viewer.seat
    assert seat is not None  # the page answers a spectator's form itself
    moves = {**notes_text(seat)["moves"], **typed["edited"]}
    if typed["move_note"]:
        if not typed["ply"]:
            raise InvalidInput({"ply": [gettext("Choose the move your note is about.")]})
        moves[typed["ply"]] = typed["move_note"]
    services.notes_store(game_id=viewer.game.pk, user=seat.user, note=typed["note"], moves=moves)
    return gettext("Your notes are saved. Only you can see them.")


def notes_refusal(error: DomainError) -> str:
    """A refusal in the page's words: each field named as the form names it."""
    if not isinstance(error, InvalidInput):
        return error.message
    said = []
    for field, messages in error.errors.items():
        ply = field.removeprefix("moves.")
        if field == "note":
            where = gettext("The note on the game")
        elif field != ply and PLY_KEY.fullmatch(ply):
            where = gettext("The note on move %(number)s") % {"number": int(ply) + 1}
        else:
            where = gettext("The note on a move")
        said.append(f"{where}: {' '.join(messages)}")
    return " ".join(said)


def replay_notes(viewer: Viewer) -> dict[int, str]:
    """The seat holder's notes on moves by ply, for the replay's move list; none
    for anyone else."""
    return {int(ply): text for ply, text in notes_text(viewer.seat)["moves"].items()}
