"""Numbers, lists and moments in messages, in the language active at the time
(``django.utils.translation``): "alice, bob and carol" / "alice, bob e carol" /
"alice, bob un carol"; a deadline as its reader's language writes a date.
Messages reach people through every door, so these live below the apps.

A count with its noun is a whole sentence's business: write it with ``ngettext``
where the sentence is (Latvian has three plural forms), not with ``counted``,
which is English only and kept for the API's English-only ``detail`` texts.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.utils import formats, translation
from django.utils.translation import gettext, pgettext

# A moment with its weekday, as each language writes one (Django's month and day
# names); Latvian puts the year first ("2026. gada 3. decembris").
_MOMENT_FORMATS = {
    "en": "l j F Y, H:i",
    "it": "l j F Y, H:i",
    "lv": r"l, Y. \g\a\d\a j. F, H:i",
}


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the English noun in the number ``n`` needs: "1 seat", "0 seats"."""
    return f"{n} {noun}" if n == 1 else f"{n} {plural or noun + 's'}"


def listed(items: Sequence[str], conjunction: str = "and") -> str:
    """Items as a list in the active language: "a", "a and b", "a, b and c"
    ("a, b e c", "a, b un c"); ``conjunction="or"`` for "a, b or c"."""
    if len(items) <= 1:
        return "".join(items)
    word = pgettext("list", "or") if conjunction == "or" else pgettext("list", "and")
    return f"{', '.join(items[:-1])} {word} {items[-1]}"


# The short form, for pages where a date sits in a line of its own kind ("Deadline:
# Sat 05 Dec 2026, 01:56 UTC"); Latvian writes it in numbers ("05.12.2026., 01:56").
_SHORT_FORMATS = {"en": "D d M Y, H:i", "it": "D d M Y, H:i", "lv": r"d.m.Y.\, H:i"}


def _written(moment: datetime, formats_by_language: dict[str, str]) -> str:
    """``moment`` in the active language's format of ``formats_by_language``."""
    language = (translation.get_language() or "en").split("-")[0]
    written = formats.date_format(moment, formats_by_language.get(language, formats_by_language["en"]))
    # Italian and Latvian write day and month names in lower case.
    return written.lower() if language in ("it", "lv") else written


def short_moment_words(moment: datetime) -> str:
    """``moment`` (already in the reader's time zone) in the short form the active
    language writes: "Sat 05 Dec 2026, 01:56", "sab 05 dic 2026, 01:56", "05.12.2026., 01:56"."""
    return _written(moment, _SHORT_FORMATS)


def moment_words(moment: datetime, zone_name: str) -> str:
    """``moment`` in the time zone ``zone_name`` (UTC when unknown), written as the
    active language writes a date and time, with the zone named:
    "Thursday 3 December 2026, 14:00 (Europe/Riga)"."""
    try:
        zone = ZoneInfo(zone_name or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        zone, zone_name = ZoneInfo("UTC"), "UTC"
    written = _written(moment.astimezone(zone), _MOMENT_FORMATS)
    return gettext("%(moment)s (%(zone)s)") % {"moment": written, "zone": zone_name or "UTC"}
