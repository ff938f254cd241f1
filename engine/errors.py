"""Errors raised by the engine. All are ``ValueError`` subclasses via :class:`EngineError`."""

from __future__ import annotations


class EngineError(ValueError):
    """Base class of every error the engine raises for bad input."""


class InvalidNotation(EngineError):
    """The text is not a move in any notation the parser knows (bad syntax)."""


class IllegalMove(EngineError):
    """A well-formed move that the rules forbid in this position.

    ``rule`` is the id of the rule it breaks (``B-TAKE-2``); ``message`` says why
    in words a player can act on. ``str()`` carries both.
    """

    def __init__(self, rule: str, message: str) -> None:
        self.rule = rule
        self.message = message
        super().__init__(f"{rule}: {message}")


class AmbiguousMove(IllegalMove):
    """A move that lacks a choice the rules require (tokens to return, a noble).

    ``choices`` lists every complete legal move, in canonical text, that the
    incomplete move could have meant.
    """

    def __init__(self, rule: str, message: str, choices: list[str]) -> None:
        self.choices = list(choices)
        super().__init__(rule, message)
