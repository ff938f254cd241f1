"""Errors raised by the engine. All are ``ValueError`` subclasses via :class:`EngineError`.

An illegal move's reason is a :class:`Message`: its English words (``message``,
``str()``), and the template and values they were made from, so that a door
which speaks the player's language translates the template (the catalogs in
engine/locale) and fills it in. The engine itself knows no language but English.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


@dataclass(frozen=True)
class Word:
    """A word of the game inside a message (a colour, "noble", "location"), which a
    translating door looks up as a word of its own (context "engine word")."""

    word: str

    def __str__(self) -> str:
        return self.word


@dataclass(frozen=True)
class Words:
    """Several words of the game read as a list ("red and blue"), or, with
    ``as_list`` off, one after another with commas ("6 green, 5 red")."""

    words: tuple[str, ...]
    as_list: bool = True

    def __str__(self) -> str:
        return ", ".join(self.words)


@dataclass(frozen=True)
class Message:
    """A sentence for a person: an English ``template`` with ``%(name)s`` places,
    the ``params`` that fill them, and for a count its ``plural`` template (chosen
    by ``params["count"]``)."""

    template: str
    params: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    plural: str = ""

    @property
    def count(self) -> int:
        value = self.params.get("count", 1)
        return value if isinstance(value, int) else 1

    def __str__(self) -> str:
        template = self.template if not self.plural or self.count == 1 else self.plural
        return template % {key: str(value) for key, value in self.params.items()} if self.params else template


def gettext_noop(template: str, **params: object) -> Message:
    """A message to translate later, at the door (named as gettext's tools look for it)."""
    return Message(template, MappingProxyType(dict(params)))


def ngettext(singular: str, plural: str, count: int, **params: object) -> Message:
    """A message with a count; ``count`` is also its ``%(count)s``."""
    return Message(singular, MappingProxyType({"count": count, **params}), plural)


class EngineError(ValueError):
    """Base class of every error the engine raises for bad input."""


class InvalidNotation(EngineError):
    """The text is not a move in any notation the parser knows (bad syntax).
    ``message`` says why in English, ``text`` the same as a :class:`Message`."""

    def __init__(self, message: str | Message) -> None:
        self.text = message if isinstance(message, Message) else Message(message)
        self.message = str(message)
        super().__init__(self.message)


class IllegalMove(EngineError):
    """A well-formed move that the rules forbid in this position.

    ``rule`` is the id of the rule it breaks (``B-TAKE-2``); ``message`` says why
    in words a player can act on. ``str()`` carries both.
    """

    def __init__(self, rule: str, message: str | Message) -> None:
        self.rule = rule
        # What the door translates; plain text stays as it is.
        self.text = message if isinstance(message, Message) else Message(message)
        self.message = str(message)
        super().__init__(f"{rule}: {self.message}")


class AmbiguousMove(IllegalMove):
    """A move that lacks a choice the rules require (tokens to return, a noble).

    ``choices`` lists every complete legal move, in canonical text, that the
    incomplete move could have meant.
    """

    def __init__(self, rule: str, message: str | Message, choices: list[str]) -> None:
        self.choices = list(choices)
        super().__init__(rule, message)


# The words a Word or Words may carry, for the translating door's catalog: each
# colour as it stands beside "tokens" (Italian "gettoni rossi", Latvian "sarkani
# žetoni"), and the untakeable tokens' names.
GAME_WORDS: tuple[Message, ...] = (
    gettext_noop("white"), gettext_noop("blue"), gettext_noop("green"), gettext_noop("red"),
    gettext_noop("black"), gettext_noop("gold"), gettext_noop("yellow"), gettext_noop("orange"),
    gettext_noop("purple"), gettext_noop("grey"), gettext_noop("grey or green"),
    # A word with its count ("2 red"), as a Words item may hold it.
    gettext_noop("%(count)s %(word)s"),
)

