"""Finding card ids in what a reader is shown.

A card id (``1-35``) is short enough to appear inside the random tokens of an
email (a reply address ``play+1-35f4…@``, a Message-ID) or a link, so a leak test
looks for it as a word of its own, never as a substring.
"""

from __future__ import annotations

import re

CARD_ID = re.compile(r"(?<![\w-])([123]-\d\d)(?![\w-])")


def card_ids_in(text: str) -> set[str]:
    """The card ids written in ``text`` as words of their own."""
    return set(CARD_ID.findall(text))
