"""The pure parser on mail built to break it: structures nested too deep or
with too many parts, control characters, text hidden in HTML, out-of-office
bodies that carry no header saying so. Nothing here may raise, and nothing
hidden or automatic may be read as a command. No database and no Django."""

from __future__ import annotations

import pytest

from notifications.inbound import CommandKind, command_from_text, inbound_parse
from notifications.inbound.commands import confirmation_code_normalize
from notifications.inbound.message import DROP_AUTO_REPLY, DROP_UNREADABLE, MAX_MIME_DEPTH, MAX_MIME_PARTS
from notifications.inbound.text import html_to_text, visible_text

DOMAIN = "reply.splendor.test"
HEAD = (
    b"From: Bob <bob@example.com>\r\nTo: play+12-0123456789abcdef01234567@reply.splendor.test\r\n"
    b"Subject: Re: Your turn\r\nMessage-ID: <m1@example.com>\r\nMIME-Version: 1.0\r\n"
)


def _nested(depth: int) -> bytes:
    """A multipart/mixed inside a multipart/mixed ... ``depth`` times, a text part at the bottom."""
    opening = b"".join(
        b"Content-Type: multipart/mixed; boundary=\"b%d\"\r\n\r\n--b%d\r\n" % (level, level) for level in range(depth)
    )
    closing = b"".join(b"\r\n--b%d--\r\n" % level for level in reversed(range(depth)))
    return HEAD + opening + b"Content-Type: text/plain\r\n\r\ntake WUG\r\n" + closing


def _with_parts(count: int) -> bytes:
    parts = b"".join(b"--b\r\nContent-Type: text/plain\r\n\r\ntake WUG\r\n" for _ in range(count))
    return HEAD + b"Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n" + parts + b"--b--\r\n"


def _plain(body: str, *, subject: str = "Re: Your turn", extra: str = "") -> bytes:
    head = HEAD.replace(b"Subject: Re: Your turn", f"Subject: {subject}".encode())
    return head + extra.encode() + b"Content-Type: text/plain; charset=utf-8\r\n\r\n" + body.encode("utf-8") + b"\r\n"


def _html(html: str) -> bytes:
    return HEAD + b"Content-Type: text/html; charset=utf-8\r\n\r\n" + html.encode("utf-8") + b"\r\n"


def test_a_structure_nested_a_thousand_deep_is_read_as_unreadable_without_raising() -> None:
    parsed = inbound_parse(_nested(1000), reply_domain=DOMAIN)
    assert parsed.drop_reason.startswith(DROP_UNREADABLE)
    assert parsed.command.kind is CommandKind.EMPTY


def test_a_structure_nested_past_the_depth_limit_is_unreadable_even_with_few_parts() -> None:
    assert MAX_MIME_DEPTH + 5 < MAX_MIME_PARTS
    parsed = inbound_parse(_nested(MAX_MIME_DEPTH + 5), reply_domain=DOMAIN)
    assert parsed.drop_reason == f"{DROP_UNREADABLE}: MIME parts nested more than {MAX_MIME_DEPTH} deep"


def test_a_message_with_more_parts_than_the_limit_is_unreadable() -> None:
    parsed = inbound_parse(_with_parts(MAX_MIME_PARTS + 1), reply_domain=DOMAIN)
    assert parsed.drop_reason == f"{DROP_UNREADABLE}: more than {MAX_MIME_PARTS} MIME parts"


def test_a_message_within_the_limits_is_read_as_usual() -> None:
    assert inbound_parse(_nested(3), reply_domain=DOMAIN).command.argument == "take WUG"
    assert inbound_parse(_with_parts(5), reply_domain=DOMAIN).command.argument == "take WUG"


@pytest.mark.parametrize("character", ["\x00", "\x01", "\x07", "\x1b", "\x7f", "\x85", "\u200b", "\u202e", "\ufeff"])
def test_control_and_invisible_characters_never_reach_the_command(character: str) -> None:
    parsed = inbound_parse(_plain(f"take{character} white{character} blue green"), reply_domain=DOMAIN)
    assert parsed.command.kind is CommandKind.MOVE
    assert character not in parsed.command.text and character not in parsed.text
    assert parsed.command.argument == "take white blue green"


def test_a_nul_in_the_subject_or_the_sender_never_reaches_what_is_stored() -> None:
    raw = _plain("", subject="board\x00\x01").replace(b"bob@example.com", b"bob\x00@example.com", 1)
    parsed = inbound_parse(raw, reply_domain=DOMAIN)
    assert "\x00" not in parsed.subject and "\x00" not in parsed.command.text and "\x00" not in parsed.sender
    assert parsed.command.kind is CommandKind.BOARD


def test_visible_text_keeps_line_breaks_and_turns_tabs_into_spaces() -> None:
    assert visible_text("take\tWUG\r\nthanks\x00") == "take WUG\r\nthanks"


@pytest.mark.parametrize(
    "hidden",
    [
        '<div style="display:none">take WUG</div>',
        '<div style="DISPLAY: none !important">take WUG</div>',
        '<span style="visibility:hidden">take WUG</span>',
        '<p style="font-size:0px">take WUG</p>',
        '<p style="opacity:0">take WUG</p>',
        '<div style="max-height:0;overflow:hidden">take WUG</div>',
        '<div style="mso-hide:all">take WUG</div>',
        '<div style="position:absolute;left:-9999px">take WUG</div>',
        '<div hidden>take WUG</div>',
        '<style>.x { display: none }</style><div class="a x">take WUG</div>',
        '<style>#cmd{visibility:hidden}</style><div id="cmd">take WUG</div>',
        '<template>take WUG</template>',
    ],
)
def test_text_hidden_in_html_is_never_read_as_a_command(hidden: str) -> None:
    assert "take WUG" not in html_to_text(f"<html><body>{hidden}<p>board</p></body></html>")
    parsed = inbound_parse(_html(f"<html><body>{hidden}<p>board</p></body></html>"), reply_domain=DOMAIN)
    assert parsed.command.kind is CommandKind.BOARD


def test_html_that_is_shown_is_still_read() -> None:
    html = '<style>.hide{display:none}</style><div class="show" style="color:#333">take RR</div>'
    assert inbound_parse(_html(html), reply_domain=DOMAIN).command.argument == "take RR"


@pytest.mark.parametrize(
    "body",
    [
        "I am out of the office until 10 March with limited access to email.\ntake care, Bob",
        "Holiday 14 days, back on the 20th.",
        "Vacation 14 days, back on the 20th.",
        "Thank you for your email. I'm currently on annual leave and will reply when I return.",
        "Ich bin bis zum 10. März nicht im Büro.",
        "Je suis absent du bureau jusqu'au 10 mars.",
    ],
)
def test_an_out_of_office_body_without_auto_reply_headers_gets_no_answer(body: str) -> None:
    parsed = inbound_parse(_plain(body, subject="Re: Your turn"), reply_domain=DOMAIN)
    assert parsed.drop_reason == DROP_AUTO_REPLY
    assert parsed.command.kind is not CommandKind.VACATION or parsed.command.error


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ("take WUG\n\nI'm out of the office next week, so expect slow moves.", CommandKind.MOVE),
        ("vacation 7\nI will be back on the 20th.", CommandKind.VACATION),
        ("Hi! board please", CommandKind.UNKNOWN),
    ],
)
def test_a_person_who_mentions_being_away_is_still_answered(body: str, kind: CommandKind) -> None:
    parsed = inbound_parse(_plain(body), reply_domain=DOMAIN)
    assert parsed.drop_reason == ""
    assert parsed.command.kind is kind


def test_a_message_with_two_from_fields_has_no_sender() -> None:
    raw = _plain("board").replace(b"From: Bob <bob@example.com>\r\n", b"From: bob@example.com\r\nFrom: eve@evil.example\r\n")
    assert inbound_parse(raw, reply_domain=DOMAIN).sender == ""


def test_a_from_field_with_two_addresses_has_no_sender() -> None:
    raw = _plain("board").replace(b"From: Bob <bob@example.com>", b"From: bob@example.com, eve@evil.example")
    assert inbound_parse(raw, reply_domain=DOMAIN).sender == ""


@pytest.mark.parametrize("typed", ["K7QD-2XMA-9FPT", "k7qd2xma9fpt", "K7QD-2XMA-9FPT.", "<k7qd-2xma-9fpt>", "K7QD-2XMA-9FPT,"])
def test_a_confirmation_code_is_read_however_it_is_typed(typed: str) -> None:
    assert confirmation_code_normalize(typed) == "k7qd2xma9fpt"
    assert command_from_text(f"Confirm {typed}").argument == "k7qd2xma9fpt"


def test_letters_that_look_like_digits_are_read_as_the_digits() -> None:
    assert confirmation_code_normalize("O1IL-oo") == "011100"
