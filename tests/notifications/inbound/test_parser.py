"""The pure parser on real-looking mail: every fixture in fixtures/ with what
must be read from it (expected.json). No database and no Django."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from notifications.inbound import CommandKind, command_from_text, inbound_parse, new_text
from notifications.inbound.commands import subject_strip
from notifications.inbound.text import flowed_decode, html_to_text

FIXTURES = Path(__file__).parent / "fixtures"
EXPECTED: dict[str, dict[str, Any]] = json.loads((FIXTURES / "expected.json").read_text(encoding="utf-8"))
DOMAIN = "reply.splendor.test"
TOKEN = "12-0123456789abcdef01234567"


def _read(name: str) -> Any:
    return inbound_parse((FIXTURES / name).read_bytes(), reply_domain=DOMAIN)


def test_every_fixture_has_an_expected_outcome_and_every_outcome_a_fixture() -> None:
    on_disk = {path.name for path in FIXTURES.glob("*.eml")}
    assert on_disk == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_fixture_reads_as_expected(name: str) -> None:
    expected = EXPECTED[name]
    parsed = _read(name)
    assert parsed.drop_reason == expected.get("drop", ""), parsed.text
    assert parsed.is_dsn == expected.get("dsn", False)
    if "command" in expected:
        assert parsed.command.kind.value == expected["command"], (parsed.text, parsed.command)
    if "argument" in expected:
        assert parsed.command.argument == expected["argument"]
    if "token" in expected:
        assert parsed.seat_token == expected["token"]
    if "version" in expected:
        assert parsed.answers_version == expected["version"]
    if "sender" in expected:
        assert parsed.sender == expected["sender"]
    if "variant" in expected:
        assert (parsed.command.variant, parsed.command.seats, list(parsed.command.invite)) == (
            expected["variant"], expected["seats"], expected["invite"],
        )  # fmt: skip


@pytest.mark.parametrize("name", sorted(n for n, e in EXPECTED.items() if "drop" not in e))
def test_no_example_move_from_the_quoted_turn_email_is_ever_read(name: str) -> None:
    parsed = _read(name)
    for example in ("buy 1-07", "take WUG", "reserve 2-13", "Some moves you could play"):
        assert example not in parsed.text


def test_a_reply_with_only_the_quote_has_no_command() -> None:
    parsed = _read("quote_only.eml")
    assert parsed.command.kind is CommandKind.EMPTY
    assert parsed.text == ""


def test_the_token_comes_from_the_reply_address_before_the_quoted_message_id() -> None:
    parsed = inbound_parse(
        b"From: bob@example.com\r\nTo: play+7-aaaaaaaaaaaaaaaaaaaaaaaa@reply.splendor.test\r\n"
        b"In-Reply-To: <0123456789abcdef01234567.8-bbbbbbbbbbbbbbbbbbbbbbbb.v4@reply.splendor.test>\r\n"
        b"Message-ID: <x@y>\r\nSubject: Re: hi\r\n\r\nboard\r\n",
        reply_domain=DOMAIN,
    )
    assert parsed.seat_token == "7-aaaaaaaaaaaaaaaaaaaaaaaa"
    assert parsed.answers_version is None  # the quoted id is another seat's


def test_message_ids_of_another_domain_give_no_token() -> None:
    parsed = inbound_parse(
        b"From: bob@example.com\r\nTo: splendor@reply.splendor.test\r\n"
        b"In-Reply-To: <0123456789abcdef01234567.8-bbbbbbbbbbbbbbbbbbbbbbbb.v4@evil.example>\r\n"
        b"Message-ID: <x@y>\r\nSubject: Re: hi\r\n\r\nboard\r\n",
        reply_domain=DOMAIN,
    )
    assert parsed.seat_token is None


def test_the_same_message_id_gives_the_same_key_and_a_missing_one_the_bytes_digest() -> None:
    one = inbound_parse(b"Message-ID: <A@b>\r\nFrom: a@b.c\r\n\r\nhelp\r\n", reply_domain=DOMAIN)
    two = inbound_parse(b"Message-ID: <a@b>\r\nFrom: a@b.c\r\n\r\nhelp again\r\n", reply_domain=DOMAIN)
    three = inbound_parse(b"From: a@b.c\r\n\r\nhelp\r\n", reply_domain=DOMAIN)
    assert one.message_key == two.message_key != three.message_key


def test_garbage_bytes_are_no_command_and_no_crash() -> None:
    parsed = inbound_parse(b"\x00\xff\xfe garbage\r\n\r\n\x80\x81", reply_domain=DOMAIN)
    assert parsed.command.kind in (CommandKind.EMPTY, CommandKind.UNKNOWN)


@pytest.mark.parametrize(
    ("text", "kind", "argument"),
    [
        ("take white blue green", CommandKind.MOVE, "take white blue green"),
        ("Hi!\nbuy Gamora please.\nthanks", CommandKind.MOVE, "buy Gamora"),
        ("take white blue green return black", CommandKind.MOVE, "take white blue green return black"),
        ("reserve deck 3", CommandKind.MOVE, "reserve deck 3"),
        ("Resign", CommandKind.RESIGN, ""),
        ("confirm AB12cd34", CommandKind.CONFIRM, "ab12cd34"),
        ("vacation 4", CommandKind.VACATION, "4"),
        ("Vacation 4.", CommandKind.VACATION, "4"),
        ("moves", CommandKind.MOVES, ""),
        ("board", CommandKind.BOARD, ""),
        ("accept", CommandKind.ACCEPT, ""),
        ("decline, sorry", CommandKind.DECLINE, "sorry"),
        ("what should I do?", CommandKind.UNKNOWN, ""),
    ],
)
def test_commands_are_read_from_the_first_line_that_starts_with_one(text: str, kind: CommandKind, argument: str) -> None:
    command = command_from_text(text)
    assert command.kind is kind
    assert command.argument == argument


def test_vacation_without_days_is_a_command_with_an_error() -> None:
    assert command_from_text("vacation").error


@pytest.mark.parametrize("text", ["vacation 4 days", "vacation 14 days, back on the 20th", "vacation 3 weeks"])
def test_vacation_acts_only_with_nothing_after_the_number(text: str) -> None:
    command = command_from_text(text)
    assert command.kind is CommandKind.VACATION
    assert command.error and command.argument == ""


@pytest.mark.parametrize("text", ["holiday 3", "Holiday 14 days, back on the 20th", "holidays"])
def test_holiday_is_no_command(text: str) -> None:
    assert command_from_text(text).kind is CommandKind.UNKNOWN


def test_a_new_game_names_variant_seats_and_invitees() -> None:
    command = command_from_text("new marvel 3 with Bob@Example.com and carol@example.org")
    assert (command.variant, command.seats, command.invite) == ("marvel", 3, ("bob@example.com", "carol@example.org"))
    assert command_from_text("new base 2 3").error


def test_a_command_in_the_subject_is_read_when_the_body_has_none() -> None:
    assert command_from_text("", subject="Fwd: new base 2 with bob@example.com").kind is CommandKind.NEW
    assert command_from_text("", subject="Re: Your turn in game X: Alice played take WUG").kind is CommandKind.EMPTY


@pytest.mark.parametrize("subject", ["Re: Hi", "RE: Hi", "Fwd: Hi", "AW: Hi", "SV: Hi", "Re: AW: Fwd: Hi", "Re[2]: Hi"])
def test_reply_and_forward_prefixes_are_stripped_from_subjects(subject: str) -> None:
    assert subject_strip(subject) == "Hi"


def test_flowed_text_joins_soft_breaks_and_keeps_the_signature_line() -> None:
    assert flowed_decode("take white \nblue green\n-- \nBob", delsp=False) == "take white blue green\n-- \nBob"
    assert flowed_decode("take whi \nte", delsp=True) == "take white"


def test_html_blockquotes_are_left_out() -> None:
    assert html_to_text("<p>board</p><blockquote>take WUG</blockquote>") == "board"


@pytest.mark.parametrize(
    "header",
    [
        "On Mon, 2 Mar 2026 at 09:00, Splendor <s@x> wrote:",
        "Il giorno lun 2 mar 2026 alle ore 09:00 Splendor <s@x> ha scritto:",
        "pirmd., 2026. g. 2. marts, plkst. 09:00 — lietotājs Splendor (<s@x>) rakstīja:",
        "Am Mo., 2. März 2026 um 09:00 Uhr schrieb Splendor <s@x>:",
        "Le lun. 2 mars 2026 à 09:00, Splendor <s@x> a écrit :",
    ],
)
def test_quote_headers_in_several_languages_and_their_quote_are_not_the_senders_words(header: str) -> None:
    assert new_text(f"take RR\n\n{header}\n> take WUG\n") == "take RR"
    assert new_text(f"{header}\n> take WUG\n\ntake RR\n") == "take RR"


def test_the_parser_loads_no_django() -> None:
    code = (
        "import sys; import notifications.inbound as m; import notifications.inbound.authentication; "
        "bad = [n for n in sys.modules if n.split('.')[0] in ('django', 'rest_framework', 'celery')]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_new_practice_game_names_bots_where_addresses_would_stand() -> None:
    command = command_from_text("new marvel 3 with greedy ismcts")
    assert (command.variant, command.seats, command.bots, command.invite) == ("marvel", 3, ("greedy", "ismcts"), ())
    assert command_from_text("new base 2 with ismcts").bots == ("ismcts",)
    assert command_from_text("new base with greedy and greedy").bots == ("greedy", "greedy")
