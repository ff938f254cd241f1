"""Keep usernames out of the logs.

Players are named in paths only by ``GET /api/v1/players/{username}/``. Django
logs the path of every answer of 400 and above (``django.request``), and the
development server every request line (``django.server``), so a lookup of a
player who is later erased would keep their name in the logs for as long as
the logs are kept. This filter, on those two loggers (settings.LOGGING),
writes ``{username}`` in its place before any handler sees the record.

The same filter keeps game links out: a seat's signed link
(``/games/{id}/?seat=<token>``, games.links) is a bearer secret, and the
development server logs its request line. ``seat=`` is written ``seat={token}``.
A deadlines calendar's address (``/calendar/<secret>.ics``, calendars.views) is
one too, and calendar apps fetch it every few minutes: it is written
``/calendar/{secret}.ics``. The other paths name games by id.
"""

from __future__ import annotations

import logging
import re

# The fixed paths under /players/ (sign-up's) name nobody and stay readable.
_PLAYER_PATH = re.compile(r"(/api/v\d+/players/)(?!(?:verify|resend)/)[^/?#\s\"]+")
_SEAT_TOKEN = re.compile(r"([?&]seat=)[^&#\s\"]+")
# The secret's alphabet has no dot: what follows it (".ics") stays readable.
_CALENDAR_SECRET = re.compile(r"(/calendar/)[^/?#\s\".]+")


def redact_usernames(text: str) -> str:
    text = _CALENDAR_SECRET.sub(r"\1{secret}", text)
    return _SEAT_TOKEN.sub(r"\1{token}", _PLAYER_PATH.sub(r"\1{username}", text))


class RedactUsernamesInPaths(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact_usernames(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact_usernames(arg) if isinstance(arg, str) else arg for arg in record.args)
        return True
