"""Which language a person is spoken to in: the account's (``Player.language``),
or English for a user without a player. The services write their emails inside
``in_language_of(recipient)``; ``accounts.language`` (the pages' language, the
switch) builds on this and re-exports it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.utils import translation

from accounts.models import Language

DEFAULT_LANGUAGE = Language.EN.value


def language_supported(code: str | None) -> str | None:
    """``code`` as one of the service's languages ("it-IT" -> "it"), or None."""
    if not code:
        return None
    base = str(code).strip().lower().replace("_", "-").split("-")[0]
    return base if base in Language.values else None


def language_of(user: Any) -> str:
    """The language a user's emails and replies are written in: the account's, or
    English for a user without a player (or an erased one)."""
    player = getattr(user, "player", None) if user is not None else None
    return language_supported(getattr(player, "language", None)) or DEFAULT_LANGUAGE


@contextmanager
def in_language_of(user: Any) -> Iterator[str]:
    """Everything rendered inside speaks ``user``'s language (emails, replies)."""
    language = language_of(user)
    with translation.override(language):
        yield language
