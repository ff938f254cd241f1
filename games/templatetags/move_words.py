"""``{{ text|move_words:variant }}``: a move's canonical text in the words of
the active language (games.words), for pages and emails."""

from __future__ import annotations

from django import template

from games.words import move_in_words

register = template.Library()


@register.filter
def move_words(text: object, variant: str) -> str:
    return move_in_words(str(text), str(variant)) if text else ""
