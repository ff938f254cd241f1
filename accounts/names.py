"""What a username or a display name may hold, and when a username looks like
another.

Names are shown to other players, in pages and in plain-text email: a line break
in one would start a line of its own in someone else's mail, and a character
that reorders text would make it read as something else. Such characters are
refused at input (``name_characters_refused``).

A username that looks like another (``аlice`` with a Cyrillic а beside
``alice``, ``ａlice`` in full width, ``a1ice``) is told apart by its confusable
skeleton, as Unicode Technical Standard #39 defines it: ICU's SpoofChecker maps
every character to the prototype it is confused with, after NFKC case folding,
so two names that look alike get one skeleton (``username_skeleton``).
"""

from __future__ import annotations

import hashlib
import unicodedata
from functools import cache

import icu
from django.core.exceptions import ValidationError
from django.utils.translation import gettext

# Line and paragraph breaks of every kind (Cc holds CR, LF, tab and the other C0
# and C1 controls; U+2028 and U+2029 break lines in many mail readers), lone
# surrogates (no text encodes them), and the controls that reorder text (Unicode
# Bidirectional Algorithm: embeddings, overrides, isolates and marks). Other
# format characters stay allowed: the zero-width joiners of emoji sequences and
# of scripts that need them.
REFUSED_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


def is_refused_character(char: str) -> bool:
    return unicodedata.category(char) in REFUSED_CATEGORIES or char in BIDI_CONTROLS


def name_characters_refused(name: str) -> list[str]:
    """The characters of ``name`` no name may hold, each once, as U+XXXX in the
    order they first appear (empty: the name is fine)."""
    found: list[str] = []
    for char in name:
        code = f"U+{ord(char):04X}"
        if is_refused_character(char) and code not in found:
            found.append(code)
    return found


def validate_display_name(name: str) -> None:
    """A model and form validator: no character ``name_characters_refused`` names."""
    refused = name_characters_refused(name)
    if refused:
        raise ValidationError(display_name_refusal(refused), code="control_characters")


def display_name_refusal(refused: list[str]) -> str:
    return gettext(
        "A display name may not hold line breaks, tabs, other control characters or characters that reorder "
        "text (%(characters)s). Remove them and try again."
    ) % {"characters": ", ".join(refused)}


def name_for_plain_text(name: str) -> str:
    """``name`` with each run of refused characters made one space: safe to put
    on a line of plain text (names stored before they were refused at input)."""
    out: list[str] = []
    for char in name:
        if is_refused_character(char):
            if out and out[-1] != " ":
                out.append(" ")
        else:
            out.append(char)
    return "".join(out).strip()


@cache
def _spoof_checker() -> icu.SpoofChecker:
    # Built once per process; getSkeleton does not change it, so threads may share it.
    return icu.SpoofChecker()


@cache
def _case_folding() -> icu.Normalizer2:
    return icu.Normalizer2.getNFKCCasefoldInstance()


def username_skeleton(username: str) -> str:
    """The UTS #39 skeleton of ``username`` after NFKC case folding (usernames are
    told apart without regard to case): two usernames that look alike have the
    same skeleton."""
    folded = str(_case_folding().normalize(username.strip()))
    return str(_spoof_checker().getSkeleton(0, folded))


def username_skeleton_digest(username: str) -> str:
    """A fixed-length key of the skeleton, to index and compare (a skeleton may be
    several times longer than its name)."""
    return hashlib.sha256(username_skeleton(username).encode("utf-8")).hexdigest()
