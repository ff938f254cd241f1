"""2,000 strings made from a fixed seed, each sent as the first line of a reply
through the email door: commands and moves with control characters, invisible
and odd Unicode, lone surrogates and long lines. Whatever the string, the
message ends applied, refused or dropped, never as "internal error", and
nothing unprintable is stored (PostgreSQL refuses a NUL in text outright)."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from tests.notifications.email_helpers import start_game
from tests.notifications.inbound.mail_helpers import latest, receive, reply_bytes

from games.models import Seat
from notifications.models import InboundMessage

pytestmark = pytest.mark.django_db

SEED = 18
COUNT = 2000
_WORDS = ["take", "buy", "reserve", "vacation", "confirm", "new", "board", "moves", "help", "resign", "accept",
          "decline", "legal", "?", "Take", "BUY", "reserve deck", "take 2", "new marvel", ""]  # fmt: skip
_PIECES = ["W", "U", "G", "R", "K", "1-07", "2c", "h1", "deck 3", "return", "noble", "N03", "J:R", "with",
           "a@b.example", "3", "999", "-1", "0", "white", "blue", "Gamora", ".", ",", "!", ":"]  # fmt: skip
_ODD = (
    [chr(code) for code in range(0x00, 0x20)] + [chr(code) for code in range(0x7F, 0xA0)]
    + ["\u200b", "\u200d", "\u202e", "\u2066", "\ufeff", "\u00ad", "\u0301", "\ufffd", "\U0001f600", "\u4e00",
       "\u0661", "\u0663", "\uff14", "\ud800", "\udfff", "\u2028", "\u2029", "\x85"]
)  # fmt: skip
PLACE = "FUZZED-LINE-GOES-HERE"
_UNPRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def fuzzed_strings(seed: int = SEED, count: int = COUNT) -> list[str]:
    rng = random.Random(seed)
    strings: list[str] = []
    for _ in range(count):
        parts = [rng.choice(_WORDS)]
        for _ in range(rng.randint(0, 6)):
            roll = rng.random()
            if roll < 0.45:
                parts.append(rng.choice(_PIECES))
            elif roll < 0.9:
                parts.append("".join(rng.choice(_ODD) for _ in range(rng.randint(1, 3))))
            else:
                parts.append(rng.choice(_PIECES) * rng.randint(20, 80))
        separator = rng.choice([" ", "", "\t", " \x00 "])
        strings.append(separator.join(parts))
    return strings


def test_the_fuzzed_strings_are_the_same_on_every_run() -> None:
    strings = fuzzed_strings()
    assert len(strings) == COUNT and strings == fuzzed_strings()
    numbers = [number for part in range(PARTS) for number, _ in list(enumerate(strings))[part::PARTS]]
    assert sorted(numbers) == list(range(COUNT))
    assert sum(1 for text in strings if "\x00" in text) > 50


# 2,000 emails through the whole door: about 2.5 minutes alone, several times that on a
# loaded machine. In PARTS of 500, each its own test, so that a parallel run shares them out.
PARTS = 4


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("part", range(PARTS), ids=lambda part: f"part{part + 1}of{PARTS}")
def test_no_fuzzed_command_ends_as_an_internal_error(
    part: int, clock: Any, commit: Any, alice: Any, bob: Any, settings: Any, game_extensions: Any
) -> None:
    # Answers are limited per sender: past the limit the rest are read and dropped, as in real use.
    game_extensions.hearing("email")
    game = start_game(commit, alice, bob)
    game.refresh_from_db()
    player = Seat.objects.select_related("user").get(game=game, index=game.to_move).user
    turn_email = latest(player, "Your turn")
    mine = list(enumerate(fuzzed_strings()))[part::PARTS]
    for number, text in mine:
        raw = reply_bytes(turn_email, sender=player.email, body=PLACE, message_id=f"<fuzz{number}@mail.example.com>")
        # Lone surrogates go out as the bytes a broken client would send.
        receive(commit, raw.replace(PLACE.encode(), text.encode("utf-8", errors="surrogatepass")))
    stored = list(InboundMessage.objects.values_list("status", "outcome", "command", "reply"))
    assert len(stored) == len(mine) == COUNT // PARTS
    assert [outcome for _, outcome, _, _ in stored if outcome == "internal error"] == []
    assert {status for status, _, _, _ in stored} <= {"applied", "refused", "dropped"}
    unprintable = [(command, reply) for _, _, command, reply in stored if _UNPRINTABLE.search(command + repr(reply))]
    assert unprintable == []
