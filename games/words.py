"""Moves as a person reads them: in the words of the active language (or of
``language``), written by ``engine.words`` and read back by the move box and the
email reader. The notation stays in the API, the export and a page's ``title``.
"""

from __future__ import annotations

from django.utils.translation import get_language

import engine
from engine.variants import VARIANTS, get_variant
from engine.words import move_words, plan_line_words


def move_in_words(text: str, variant: str, language: str | None = None) -> str:
    """The canonical move ``text`` of a ``variant`` game in words; text that is
    no canonical move (an older record) is given back as it is."""
    try:
        move = engine.move_from_text(text)
    except engine.InvalidNotation:
        return text
    rules = get_variant(variant if variant in VARIANTS else "base")
    return move_words(move, rules, language or get_language())


def plan_line_in_words(condition: str, then: str, variant: str, language: str | None = None) -> str:
    """A plan's line "if <move> then <move>" in words; lines that are no canonical
    moves are written in notation."""
    rules = get_variant(variant if variant in VARIANTS else "base")
    try:
        return plan_line_words(condition, then, rules, language or get_language())
    except engine.InvalidNotation:
        return f"if {condition} then {then}"
