"""The email backend ``manage.py serve`` gives the processes it starts when
EMAIL_BACKEND is not set: each message printed on stdout as a framed block of its
To, its Subject and only the lines of its text that hold a link or a code, so that
a sign-up code or a game's link stands out among the log lines beside it. Like
Django's console backend, which prints whole messages, it sends nothing."""

from __future__ import annotations

import re
from typing import Any

from django.core.mail.backends.console import EmailBackend as ConsoleEmailBackend
from django.core.mail.message import EmailMessage

_LINK = re.compile(r"\bhttps?://\S")
# A code on a line of its own, as the code emails write one ("    K7M2P9QRST").
_CODE = re.compile(r"^[0-9A-Z]{6,16}$")
WIDTH = 72


def email_block(message: EmailMessage) -> str:
    """The framed block for ``message``: To, Subject, then each line of its text
    that holds a link or is a code, each on a line of the frame."""
    lines = [line.strip() for line in str(message.body).splitlines()]
    kept = [line for line in lines if _LINK.search(line) or _CODE.match(line)]
    to = ", ".join(message.to) or ", ".join(message.recipients())
    framed = [f"To: {to}", f"Subject: {message.subject}", *kept]
    return "\n".join(
        ["+-- email " + "-" * (WIDTH - 10), *(f"| {line}" for line in framed), "+" + "-" * (WIDTH - 1)]
    ) + "\n"


class EmailBackend(ConsoleEmailBackend):
    """Prints ``email_block`` of each message, a blank line before and after it."""

    def write_message(self, message: Any) -> None:
        self.stream.write("\n" + email_block(message) + "\n")
