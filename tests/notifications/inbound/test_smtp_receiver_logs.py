"""The SMTP receiver's log over real SMTP sessions (aiosmtpd in a thread, smtplib
or a raw socket as the sending server): a session that ends with QUIT logs
nothing above DEBUG, a client that goes away in the middle is logged at INFO,
and no normal run logs a warning or an error."""

from __future__ import annotations

import logging
import smtplib
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
from tests.e2e_support.processes import free_port
from tests.notifications.inbound.sender_helpers import FakeZone

from notifications.management.commands.smtpd import receiver_start
from notifications.models import InboundMessage

# The receiver's thread stores what it receives: each test commits for real.
pytestmark = pytest.mark.django_db(transaction=True)

RECEIVER_LOG = "notifications.management.commands.smtpd"
REPLY = (
    b"From: Bob <bob@example.com>\r\nTo: play+12-0123456789abcdef01234567@reply.splendor.test\r\n"
    b"Subject: Re: Your turn\r\nMessage-ID: <logs-%d@example.com>\r\n\r\nboard\r\n"
)


def _ends(caplog: Any) -> list[logging.LogRecord]:
    ends = [r for r in caplog.records if r.name == RECEIVER_LOG and r.getMessage().startswith("smtpd")]
    return [r for r in ends if "ended" in r.getMessage() or "lost" in r.getMessage()]


@pytest.fixture
def port(caplog: Any) -> Iterator[int]:
    """A listening receiver whose start is over: the controller connects to itself
    once to check that it listens, and that check (logged, or not, as its timing
    falls) is waited for and left out of what the test reads."""
    caplog.set_level(logging.DEBUG)
    number = free_port()
    controller = receiver_start(host="127.0.0.1", port=number, resolver=FakeZone())
    deadline = time.monotonic() + 1
    while not _ends(caplog) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.1)
    assert _warnings(caplog) == []
    caplog.clear()
    try:
        yield number
    finally:
        controller.stop()


def _session_end(caplog: Any, *, sessions: int = 1) -> list[logging.LogRecord]:
    """The receiver's records of how the tests' own ``sessions`` ended (the
    receiver's thread logs them after the client is gone)."""
    deadline = time.monotonic() + 10
    while True:
        ends = _ends(caplog)
        if len(ends) >= sessions or time.monotonic() > deadline:
            return ends
        time.sleep(0.05)


def _warnings(caplog: Any) -> list[str]:
    return [f"{r.levelname} {r.name}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.WARNING]


def _reply(line: bytes, reader: Any) -> bytes:
    answer = b""
    while True:
        received = reader.readline()
        answer += received
        if received[3:4] != b"-":
            return answer


def test_a_session_that_delivers_a_message_and_quits_logs_no_warning_or_error(port: int, caplog: Any) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        assert client.sendmail("bob@example.com", ["play+12-0123456789abcdef01234567@reply.splendor.test"],
                               REPLY % 1) == {}  # fmt: skip
    ends = _session_end(caplog)
    assert InboundMessage.objects.count() == 1
    assert [r.levelno for r in ends] == [logging.DEBUG]
    assert "lost" not in caplog.text.lower()
    assert _warnings(caplog) == []


def test_a_quit_whose_answer_the_client_does_not_wait_for_logs_no_warning(port: int, caplog: Any) -> None:
    # Postfix's smtp client by default (smtp_skip_quit_response = yes): QUIT, then close.
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        reader = connection.makefile("rb")
        _reply(b"", reader)
        for line in (b"EHLO mx.example.org", b"MAIL FROM:<bob@example.com>",
                     b"RCPT TO:<play+12-0123456789abcdef01234567@reply.splendor.test>", b"DATA", REPLY % 2 + b"."):
            connection.sendall(line + b"\r\n")
            assert _reply(line, reader)[:1] in (b"2", b"3")
        connection.sendall(b"QUIT\r\n")
    ends = _session_end(caplog)
    assert [r.levelno for r in ends] == [logging.DEBUG]
    assert _warnings(caplog) == []


def test_several_sessions_in_a_row_each_end_quietly(port: int, caplog: Any) -> None:
    for _ in range(3):
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
            client.ehlo("mx.example.org")
            client.noop()
    ends = _session_end(caplog, sessions=3)
    assert {r.levelno for r in ends} == {logging.DEBUG} and len(ends) == 3
    assert _warnings(caplog) == []


def test_a_client_that_goes_away_without_quit_is_logged_at_info_and_not_as_a_warning(
    port: int, caplog: Any
) -> None:
    client = smtplib.SMTP("127.0.0.1", port, timeout=30)
    client.ehlo("mx.example.org")
    client.close()  # no QUIT
    ends = _session_end(caplog)
    assert [r.levelno for r in ends] == [logging.INFO]
    assert ends[-1].getMessage() == "smtpd connection from 127.0.0.1 lost before QUIT"
    assert _warnings(caplog) == []


def test_starting_the_receiver_logs_nothing_above_debug(caplog: Any) -> None:
    # The controller connects to itself once to check that it listens: that
    # session's end, when it is logged at all, is a DEBUG line.
    caplog.set_level(logging.DEBUG)
    controller = receiver_start(host="127.0.0.1", port=free_port(), resolver=FakeZone())
    try:
        time.sleep(1)
    finally:
        controller.stop()
    assert {r.levelno for r in _ends(caplog)} <= {logging.DEBUG}
    assert [r for r in caplog.records if r.levelno >= logging.INFO and r.name.startswith(("mail", RECEIVER_LOG))] == []
    assert _warnings(caplog) == []
