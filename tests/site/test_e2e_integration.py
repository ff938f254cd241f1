"""The whole path with nobody polling: real Redis, real workers, one beat.

alice and bob play through the API on gunicorn; a private redis-server carries
the tasks; two workers and one beat do the rest. alice has a webhook on a small
HTTP server in this test, and both want a reminder an hour before each
deadline. Game clocks count seconds (GAME_CLOCK_SECONDS), so the reminder game
has a move time of an hour and a few seconds, and the deadline game a few
seconds. The test only acts through the API, then waits and reads: the emails
the workers wrote, the webhook requests it received, the database.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from standardwebhooks import Webhook

from tests.e2e_support.processes import (
    Stack,
    emails,
    headline_of,
    message_id_of,
    settled,
    start_stack,
    wait_for,
)

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.redis]

REMINDER_GAME_SECONDS = 3600 + 10  # the one-hour reminder is due 10 s into the turn
DEADLINE_GAME_SECONDS = 4


class Receiver:
    """An HTTP server that answers 204 and keeps every request's headers and body."""

    def __init__(self) -> None:
        received = self.received = []  # type: list[tuple[dict[str, str], bytes]]

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                received.append(({k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    running = start_stack(tmp_path, players=("alice", "bob"), workers=2)
    try:
        yield running
    finally:
        running.stop()


def _emails_to(stack: Stack, who: str) -> list[Any]:
    return [message for message in emails(stack.mail_dir) if message["To"] == f"{who}@example.com"]


def _user_id(stack: Stack, who: str) -> int:
    return int(stack.db.rows("SELECT id FROM auth_user WHERE username = %s", who)[0][0])


def test_a_move_leads_to_one_email_per_recipient_a_signed_webhook_a_reminder_and_enforced_deadlines(
    stack: Stack, receiver: Receiver
) -> None:
    api = stack.api
    hook = api.call("alice", "POST", "/api/v1/webhooks/", {"url": receiver.url})
    secret = hook["secret"]
    for who in ("alice", "bob"):
        api.call(who, "PATCH", "/api/v1/me/notifications/", {"reminder_hours": [1]})

    # --- a move: one email per recipient, and a signed webhook delivery -----------------
    slow = api.new_game("alice", ["bob"], move_timeout_seconds=REMINDER_GAME_SECONDS)
    mover, _ = api.play(slow)
    waiting = "bob" if mover == "alice" else "alice"
    move_event = stack.db.rows(
        "SELECT id FROM games_gameevent WHERE game_id = %s AND kind = 'move_played' ORDER BY id DESC LIMIT 1", slow
    )[0][0]

    def turn_email() -> list[Any]:
        return [
            m for m in _emails_to(stack, waiting)
            if "Your turn" in headline_of(m) and slow in headline_of(m) and mover in headline_of(m)
        ]  # fmt: skip

    wait_for(turn_email, timeout=60, what=f"{waiting}'s turn email", explain=stack.explain)

    def move_delivery() -> list[dict[str, Any]]:
        found = []
        for headers, body in list(receiver.received):
            payload = Webhook(secret).verify(body, headers)  # raises if the signature is wrong
            if payload.get("type") == "move_played" and payload["data"].get("game_id", slow) == slow:
                found.append(payload)
        return found

    wait_for(move_delivery, timeout=60, what="the move_played webhook delivery", explain=stack.explain)

    # --- the reminder, an hour before the deadline (10 s into the turn) ---------------------
    def reminder_sent() -> bool:
        rows = stack.db.rows(
            "SELECT message_id FROM notifications_notification WHERE kind = 'reminder' AND status = 'sent' "
            "AND user_id = %s AND game_id = %s", _user_id(stack, waiting), slow,
        )  # fmt: skip
        return bool(rows) and any(message_id_of(m) == rows[0][0] for m in _emails_to(stack, waiting))

    wait_for(reminder_sent, timeout=60, what=f"{waiting}'s reminder email", every=1, explain=stack.explain)

    # --- a deadline enforced by the bot, then by forfeit --------------------------------------
    fast = api.new_game(
        "alice", ["bob"], move_timeout_seconds=DEADLINE_GAME_SECONDS, timeout_policy={"forfeit_after": 2}
    )

    def finished() -> bool:
        return stack.db.rows("SELECT status FROM games_game WHERE id = %s", fast)[0][0] == "finished"

    wait_for(finished, timeout=90, what="the deadline game forfeited", every=1, explain=stack.explain)
    wait_for(lambda: settled(stack), timeout=60, what="every event handled and email sent", explain=stack.explain)

    kinds = [str(kind) for (kind,) in stack.db.rows(
        "SELECT kind FROM games_gameevent WHERE game_id = %s ORDER BY id", fast)]  # fmt: skip
    played_by = [payload.get("played_by") for (payload,) in stack.db.rows(
        "SELECT payload FROM games_gameevent WHERE game_id = %s AND kind = 'move_played' ORDER BY id", fast)]  # fmt: skip
    assert "bot" in played_by, kinds  # the first missed deadlines: the bot played
    assert kinds.count("seat_resigned") == 1 and kinds[-1] == "game_finished", kinds  # then a forfeit ended it
    sent_kinds = Counter(str(kind) for (kind,) in stack.db.rows(
        "SELECT kind FROM notifications_notification WHERE game_id = %s AND status = 'sent'", fast))  # fmt: skip
    assert sent_kinds["bot_played"] >= 1 and sent_kinds["forfeited"] == 2, sent_kinds

    # --- exactly once, everywhere ----------------------------------------------------------------
    everyone = emails(stack.mail_dir)
    per_message = Counter(message_id_of(m) for m in everyone)
    assert [mid for mid, count in per_message.items() if count > 1] == []
    recipients_of_move = stack.db.rows(
        "SELECT user_id, count(*) FROM notifications_notification WHERE event_id = %s GROUP BY user_id", move_event
    )
    assert recipients_of_move and all(count == 1 for _, count in recipients_of_move), recipients_of_move
    assert len(turn_email()) == 1
    ids = Counter(headers["webhook-id"] for headers, _ in receiver.received)
    assert ids and all(count == 1 for count in ids.values()), ids
    for headers, body in receiver.received:
        Webhook(secret).verify(body, headers)  # every delivery is signed with alice's secret
        assert json.loads(body)["type"]
