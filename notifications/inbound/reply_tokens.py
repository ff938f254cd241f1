"""The per-seat token in a turn email's reply address, ``play+<token>@EMAIL_REPLY_DOMAIN``.

The token is the seat's row id and an HMAC (keyed by SECRET_KEY) over that id
and a digest of ``Seat.reply_key``, so rotating the key revokes every address
sent so far. It is lower-case letters, digits and a dash only, because mail
servers may change the case of an address's local part.
"""

from __future__ import annotations

import hashlib
import re

from django.utils.crypto import constant_time_compare, salted_hmac

from games.models import Seat

# The module's name before notifications was grouped by channel: another salt
# would revoke every reply address sent so far.
_SALT = "notifications.reply_tokens"
_MAC_LENGTH = 24  # hex characters: 96 bits
_TOKEN = re.compile(r"^(\d{1,18})-([0-9a-f]{%d})$" % _MAC_LENGTH)


def _mac(seat_id: int, reply_key: str) -> str:
    key_digest = hashlib.sha256(reply_key.encode()).hexdigest()
    return salted_hmac(_SALT, f"{seat_id}:{key_digest}", algorithm="sha256").hexdigest()[:_MAC_LENGTH]


def reply_token_for(*, seat: Seat) -> str:
    return f"{seat.pk}-{_mac(seat.pk, seat.reply_key)}"


def seat_for_reply_token(token: str) -> Seat | None:
    """The seat the token was made for, or None when it is malformed, forged or
    revoked (the seat's reply key was rotated)."""
    match = _TOKEN.match(token.strip().lower())
    if match is None:
        return None
    seat = Seat.objects.select_related("game", "user").filter(pk=int(match.group(1))).first()
    if seat is None or not constant_time_compare(_mac(seat.pk, seat.reply_key), match.group(2)):
        return None
    return seat
