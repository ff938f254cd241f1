"""Filters of the board's templates (games/templates/games/_table*.html)."""

from __future__ import annotations

from django import template

register = template.Library()

_NUMERALS = {1: "I", 2: "II", 3: "III"}


@register.filter
def roman(level: int) -> str:
    """A card level as the cards print it: 1 -> "I", 2 -> "II", 3 -> "III"."""
    return _NUMERALS.get(level, str(level))
