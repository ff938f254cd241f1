"""The commands a player may write in an email, read from their own words.

The first line that starts with a command word is the command; lines before it
(a greeting) and after it (thanks, a name) are ignored. A move is kept as the
player wrote it, without the courtesy words that trail it: the engine's lenient
parser reads it against the board. The words are those of ``engine.grammar``,
in English and the languages the reader is given (the recipient's).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from engine.bots import BOTS
from engine.grammar import (
    ENGLISH,
    Grammar,
    grammar_for,
    plan_line_split,
    reading_languages,
    text_normalise,
    word_key,
)

# Why a command's arguments cannot be read. This reader loads no Django, so the
# reply translates these where it is written (notifications.inbound.actions).
VACATION_DAYS_ALONE = 'write the number of days alone after the word, e.g. "vacation 3"'
SEATS_TWICE = "%(word)s: give the number of seats once"
NOT_A_VARIANT = "%(word)s is not a variant or a number of seats"
COMMAND_ERRORS = (VACATION_DAYS_ALONE, SEATS_TWICE, NOT_A_VARIANT)


def _refused(kind: CommandKind, line: str, template: str, word: str = "") -> Command:
    return Command(kind, text=line, error=template % {"word": word} if word else template,
                   error_template=template, error_word=word)


MAX_LINE = 200  # longer lines are no command (the engine refuses longer moves too)


class CommandKind(enum.StrEnum):
    MOVE = "move"
    RESIGN = "resign"
    CONFIRM = "confirm"
    BOARD = "board"
    HELP = "help"
    VACATION = "vacation"
    MOVES = "moves"
    NEW = "new"
    ACCEPT = "accept"
    DECLINE = "decline"
    SAY = "say"  # table talk: the rest of the line and the lines after it (chat.inbound)
    PLAN = "plan"  # conditional moves: "if ... then ..." lines, or "plan [clear]" (inbound.plans)
    UNKNOWN = "unknown"  # no command word: the reply says how to write one
    EMPTY = "empty"  # nothing written at all


_ADDRESS = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")


@dataclass(frozen=True)
class Command:
    """What the sender asked for. ``text`` is the line it was read from, as written."""

    kind: CommandKind
    text: str = ""
    # move: the move text; confirm: the code; vacation: the days as written.
    argument: str = ""
    # new: the variant and seats (None when not given) and the addresses to invite.
    variant: str | None = None
    seats: int | None = None
    invite: tuple[str, ...] = field(default_factory=tuple)
    # new: the bots named where an address would stand (a practice game).
    bots: tuple[str, ...] = field(default_factory=tuple)
    error: str = ""  # a command word with arguments that cannot be read: why, in English
    # The error's template (one of COMMAND_ERRORS) and the word it names: the reply
    # gives it in the reader's language (notifications.inbound.actions).
    error_template: str = ""
    error_word: str = ""


def _line_command(line: str, grammar: Grammar) -> Command | None:
    line = text_normalise(line).strip()
    words = line.split()
    if not words:
        return None
    first = word_key(words[0]).rstrip(":,.!")
    if first in grammar.verbs:
        # Trailing punctuation and courtesy words ("please", "grazie") are no part of a move.
        return Command(CommandKind.MOVE, text=line, argument=grammar.courtesy_strip(line))
    meaning = grammar.commands.get(first)
    if meaning is None:
        return None
    kind = CommandKind(meaning)
    rest = " ".join(grammar.courtesy_strip(line).split()[1:]).strip()
    if kind is CommandKind.VACATION:
        # The number alone: "vacation 14 days, back on the 20th" is an out-of-office
        # line, not a request, and pausing every game is not undone by a reply.
        match = re.fullmatch(r"(\d{1,3})[.!]?", rest)
        if match is None:
            return Command(
                kind, text=line, error=VACATION_DAYS_ALONE, error_template=VACATION_DAYS_ALONE
            )
        return Command(kind, text=line, argument=match.group(1))
    if kind is CommandKind.CONFIRM:
        return Command(kind, text=line, argument=confirmation_code_normalize((rest.split() or [""])[0]))
    if kind is CommandKind.NEW:
        return _new_game(line, rest, grammar)
    if kind is CommandKind.MOVES and rest and first == "legal" and not rest.lower().startswith("moves"):
        return None
    return Command(kind, text=line, argument=rest)


# Crockford's base 32: no I, L, O or U, so a code read aloud or retyped survives.
CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_CODE_MISREAD = str.maketrans({"o": "0", "i": "1", "l": "1", "-": None, " ": None})


def confirmation_code_normalize(text: str) -> str:
    """A confirmation code as stored: lower case, without dashes, with the letters
    that look like digits read as those digits (``K7QD-2XMA-9FPT`` -> ``k7qd2xma9fpt``)."""
    return text.strip().strip(".,!;:'\"()<>").lower().translate(_CODE_MISREAD)[:32]


@lru_cache(maxsize=8)
def _with_pattern(with_words: frozenset[str]) -> re.Pattern[str]:
    return re.compile(r"\b(?:%s)\b" % "|".join(map(re.escape, sorted(with_words))), re.IGNORECASE)


def _new_game(line: str, rest: str, grammar: Grammar) -> Command:
    """``new [game] [variant] [seats] [with a@b.example, c@d.example]``, or with bots'
    names where the addresses would stand (``new marvel 3 with greedy ismcts``): a
    practice game against them. In another language its own words stand for
    "new", "game" and "with" ("nuova partita base 2 con ...")."""
    invite = tuple(dict.fromkeys(address.lower() for address in _ADDRESS.findall(rest)))
    parts = _with_pattern(grammar.with_words).split(_ADDRESS.sub(" ", rest), maxsplit=1)
    head = parts[0]
    # Each bot once per seat: "with greedy greedy" is two greedy bots.
    bots = tuple(word.lower() for word in re.findall(r"[A-Za-z]+", parts[1] if len(parts) > 1 else "")
                 if word.lower() in BOTS)
    variant: str | None = None
    seats: int | None = None
    for word in re.findall(r"[^\W\d_]+|\d+", head):
        lowered = word_key(word)
        if lowered.isdigit():
            if seats is not None:
                return _refused(CommandKind.NEW, line, SEATS_TWICE, repr(word))
            seats = int(lowered)
        elif lowered in grammar.filler_words:
            continue
        elif variant is None:
            variant = lowered
        else:
            return _refused(CommandKind.NEW, line, NOT_A_VARIANT, repr(word))
    return Command(CommandKind.NEW, text=line, variant=variant, seats=seats, invite=invite, bots=bots)


def command_from_text(text: str, *, subject: str = "", languages: Iterable[str] = (ENGLISH,)) -> Command:
    """The command in the sender's own words, read in English and ``languages``
    (the recipient's, ``command_languages``); the subject (without Re:/Fwd:) is
    read when the body has none."""
    grammar = grammar_for(languages)
    raw_lines = text.split("\n")
    lines = [line.strip() for line in raw_lines]
    for number, line in enumerate(lines):
        said = _say(line, lines[number + 1 :], grammar)
        if said is not None:
            return said
        planned = _plan(raw_lines[number:], grammar)
        if planned is not None:
            return planned
        if len(line) > MAX_LINE:
            continue
        command = _line_command(line, grammar)
        if command is not None:
            return command
    subject_command = _line_command(subject_strip(subject), grammar) if len(subject) <= MAX_LINE else None
    if subject_command is not None:
        return subject_command
    written = next((line for line in lines if line), "")
    if not written:
        return Command(CommandKind.EMPTY)
    return Command(CommandKind.UNKNOWN, text=written[:MAX_LINE])


def _say(line: str, after: list[str], grammar: Grammar) -> Command | None:
    """``say <message>``: the message is the rest of the line and the lines after it
    (the sender's own words: quotes and signature are left out before this reads
    them), as written; a line of any length."""
    words = text_normalise(line).split(None, 1)
    if not words or grammar.commands.get(word_key(words[0]).rstrip(":,.!")) != CommandKind.SAY.value:
        return None
    first = line.split(None, 1)[1] if len(line.split(None, 1)) > 1 else ""
    message = "\n".join([first, *after]).strip()
    return Command(CommandKind.SAY, text=line[:MAX_LINE], argument=message)


def _plan(lines: list[str], grammar: Grammar) -> Command | None:
    """The plan lines from the first one on (each ``if <A> then <B>``; blank lines
    between them allowed), as written with their indentation: a line indented
    deeper than the one above it is one of that line's ``next`` lines
    (``engine.grammar.plan_text_read`` reads them)."""
    if plan_line_split(lines[0], grammar) is None:
        return None
    block: list[str] = []
    for line in lines:
        if not line.strip():
            continue
        if len(line) > MAX_LINE or plan_line_split(line, grammar) is None:
            break
        block.append(line.rstrip().expandtabs(4))
    return Command(CommandKind.PLAN, text=lines[0].strip()[:MAX_LINE], argument="\n".join(block))


def command_languages(user: object) -> tuple[str, ...]:
    """The languages a user's commands are read in: English and the account's
    language (``Player.language``), the one its emails are written in."""
    player = getattr(user, "player", None) if user is not None else None
    return reading_languages(getattr(player, "language", ENGLISH))


_PREFIX = re.compile(r"^\s*((re|fwd?|aw|wg|sv|vs|antw|tr|rif|r|rv|odp|vl)(\[\d+\])?\s*:\s*)+", re.IGNORECASE)


def subject_strip(subject: str) -> str:
    """The subject without reply and forward prefixes (Re:, Fwd:, AW:, SV:, ...)."""
    return _PREFIX.sub("", " ".join(subject.split()))
