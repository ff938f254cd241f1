"""What a note may hold (docs/api.md, "Notes"), checked before anything is
looked up: plain text of at most ``MAX_NOTE_LENGTH`` characters, line breaks and
tabs its only control characters, and at most ``MAX_MOVE_NOTES`` notes on moves,
each named by the move's ply in digits. No database here: whether a ply has
been played yet is the service's to say."""

from __future__ import annotations

import re
import unicodedata

from django.utils.translation import gettext

MAX_NOTE_LENGTH = 2000
MAX_MOVE_NOTES = 200
# The largest body that writes notes (the API's PUT, the game page's form): every
# note at its longest, each character at its most bytes on the wire (12: a JSON
# escape of a character beyond the BMP as two \uXXXX, or a form's percent-encoding of
# 4 bytes of UTF-8), and the ordinary limit's 64 KiB for the rest.
NOTES_BODY_BYTES = 64 * 1024 + (MAX_MOVE_NOTES + 1) * MAX_NOTE_LENGTH * 12

# A ply as the move history numbers it (0 is the first move), in digits, with no
# sign and no leading zero, so that one move has one key. Nine digits at most:
# far more moves than a game has, and few enough to read as a number at once.
PLY_KEY = re.compile(r"0|[1-9][0-9]{0,8}")

# Every control character (Cc) but these two, and lone surrogates (Cs: no text
# encodes them, and a database refuses them) are refused.
_KEPT_CONTROLS = "\n\t"

Problems = dict[str, list[str]]


def characters_refused(text: str) -> list[str]:
    """The characters of ``text`` no note may hold, each once, as U+XXXX in the
    order they first appear (empty: the text is fine)."""
    found: list[str] = []
    for char in text:
        if char not in _KEPT_CONTROLS and unicodedata.category(char) in ("Cc", "Cs"):
            code = f"U+{ord(char):04X}"
            if code not in found:
                found.append(code)
    return found


def _text_problems(text: str) -> list[str]:
    said = []
    if len(text) > MAX_NOTE_LENGTH:
        said.append(
            gettext("A note is at most %(limit)s characters; this one has %(length)s.")
            % {"limit": MAX_NOTE_LENGTH, "length": len(text)}
        )
    refused = characters_refused(text)
    if refused:
        said.append(
            gettext(
                "A note is plain text: line breaks and tabs are fine, other control characters are not "
                "(%(characters)s). Remove them and try again."
            )
            % {"characters": ", ".join(refused)}
        )
    return said


def notes_read(note: object, moves: object) -> tuple[str, dict[str, str], Problems]:
    """The note on the game and the notes on moves as a client sent them (any
    JSON), read into what is stored: the texts as given, the move notes by ply
    in order, an empty move note left out (it removes that move's note). The
    problems name their field: ``note``, ``moves`` or ``moves.<ply>``."""
    problems: Problems = {}
    text = ""
    if not isinstance(note, str):
        problems["note"] = [gettext("The note is text: a JSON string (empty for none).")]
    else:
        text = note
        if said := _text_problems(note):
            problems["note"] = said
    read: dict[str, str] = {}
    if not isinstance(moves, dict):
        problems["moves"] = [gettext('The notes on moves are a JSON object: {"<ply>": "text"} (empty for none).')]
        return text, read, problems
    if len(moves) > MAX_MOVE_NOTES:
        problems["moves"] = [
            gettext("At most %(limit)s moves may have a note; this has %(count)s.")
            % {"limit": MAX_MOVE_NOTES, "count": len(moves)}
        ]
    for key, value in moves.items():
        if not PLY_KEY.fullmatch(str(key)):
            problems.setdefault("moves", []).append(
                gettext(
                    'A move is named by its ply in digits: "0" for the first move, "12" for the thirteenth '
                    "(no sign, no leading zero)."
                )
            )
        elif not isinstance(value, str):
            problems[f"moves.{key}"] = [gettext("A move's note is text: a JSON string (empty to remove it).")]
        elif said := _text_problems(value):
            problems[f"moves.{key}"] = said
        elif value:
            read[key] = value
    problems = {field: list(dict.fromkeys(messages)) for field, messages in problems.items()}
    return text, dict(sorted(read.items(), key=lambda item: int(item[0]))), problems
