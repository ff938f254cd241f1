"""The engine's reasons (``engine.Message``) in the language active now.

The engine writes English only; each reason carries its template and values, so
that here the template is looked up in the engine's catalog (engine/locale), the
words of the game inside it (colours) in the same catalog, and the values filled
in. A template the catalog does not hold reads as the engine wrote it.
"""

from __future__ import annotations

import re

import engine
from django.utils.translation import gettext, ngettext

from core.text import listed

_COUNTED_WORD = re.compile(r"^(\d+) (.+)$")


def _word(word: str) -> str:
    counted = _COUNTED_WORD.match(word)
    if counted:  # "2 red": the number, then the word, in the order the language puts them
        return gettext("%(count)s %(word)s") % {"count": counted.group(1), "word": gettext(counted.group(2))}
    return gettext(word)


def _value(value: object) -> object:
    if isinstance(value, engine.Word):
        return _word(value.word)
    if isinstance(value, engine.Words):
        words = [_word(word) for word in value.words]
        return listed(words) if value.as_list else ", ".join(words)
    return value


def engine_text(message: engine.Message) -> str:
    """``message`` in the active language (English when none is active)."""
    if not message.params:
        return gettext(message.template) if message.template else ""
    if message.plural:
        template = ngettext(message.template, message.plural, message.count)
    else:
        template = gettext(message.template)
    values = {key: _value(value) for key, value in message.params.items()}
    try:
        return template % values
    except (KeyError, ValueError, TypeError):
        # A translation that names a value the message lacks: the English words, never an error.
        return str(message)
