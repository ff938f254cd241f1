"""/metrics on a whole site: gunicorn with two workers, a Celery worker and beat,
on PostgreSQL and a private Redis, sending mail to an SMTP server (aiosmtpd) that
refuses one address for good. A game is played until a deadline is missed twice
and forfeits; an invitation to the refused address bounces. Each of those is read
in /metrics, and the counts of the two web workers add up."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from aiosmtpd.controller import Controller

from tests.e2e_support.processes import Stack, free_port, player_token, start_stack, wait_for
from tests.metrics_helpers import value

pytestmark = [pytest.mark.e2e, pytest.mark.postgres, pytest.mark.redis]

REFUSED = "carol@example.com"
# /metrics is closed to everyone, loopback included, until the operator names a scraper.
TOKEN = "the-scrapers-token-long-enough"


class RefusingHandler:
    """Accepts every message, except for one address, refused for good (550)."""

    def __init__(self) -> None:
        self.accepted: list[str] = []

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:  # noqa: N802
        if address.lower() == REFUSED:
            return "550 5.1.1 <carol@example.com>: Recipient address rejected: User unknown"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        self.accepted.extend(envelope.rcpt_tos)
        return "250 Message accepted"


@pytest.fixture
def smtp() -> Iterator[tuple[RefusingHandler, int]]:
    handler = RefusingHandler()
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield handler, port
    finally:
        controller.stop()


@pytest.fixture
def stack(tmp_path: Path, smtp: tuple[RefusingHandler, int]) -> Iterator[Stack]:
    _, port = smtp
    running = start_stack(
        tmp_path, players=("alice", "bob"), workers=1,
        EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend", EMAIL_HOST="127.0.0.1",
        EMAIL_PORT=str(port), EMAIL_TIMEOUT="10", METRICS_TOKEN=TOKEN,
    )  # fmt: skip
    try:
        yield running
    finally:
        running.stop()


def _scrape(stack: Stack) -> str:
    answer = requests.get(stack.web.url + "/metrics", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.text


def test_a_timeout_a_forfeit_a_bounce_and_the_moves_of_two_web_workers_are_read_in_metrics(
    stack: Stack, smtp: tuple[RefusingHandler, int]
) -> None:
    closed = requests.get(stack.web.url + "/metrics", timeout=10)
    assert closed.status_code == 404 and "splendor_" not in closed.text
    api = stack.api
    api.tokens["carol"] = player_token(stack.env, "carol")

    # Moves from several clients at once, so that both web workers answer some.
    games = [api.new_game("alice", ["bob"]) for _ in range(4)]
    errors: list[BaseException] = []

    def play(game_id: str) -> None:
        try:
            for _ in range(3):
                api.play(game_id)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=play, args=(game_id,)) for game_id in games]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors

    # A deadline missed twice in a row: the bot plays, then the seat is forfeited.
    fast = api.new_game("alice", ["bob"], move_timeout_seconds=3, timeout_policy={"forfeit_after": 2})

    def finished() -> bool:
        return stack.db.rows("SELECT status FROM games_game WHERE id = %s", fast)[0][0] == "finished"

    wait_for(finished, timeout=90, what="the deadline game forfeited", every=1, explain=stack.explain)

    # An invitation to an address the mail server refuses for good.
    api.call("alice", "POST", "/api/v1/games/", {"seats": 2, "invited": ["carol"]})

    def bounced() -> bool:
        rows = stack.db.rows("SELECT email_undeliverable_at FROM accounts_player p JOIN auth_user u "
                             "ON u.id = p.user_id WHERE u.username = 'carol'")  # fmt: skip
        return bool(rows) and rows[0][0] is not None

    wait_for(bounced, timeout=60, what="carol's invitation bounced", every=0.5, explain=stack.explain)

    def counted() -> str | None:
        text = _scrape(stack)
        done = (
            value("splendor_email_bounces_total", text, source="smtp") >= 1
            and value("splendor_timeouts_total", text, action="forfeit") >= 1
            and value("splendor_beat_last_run_timestamp_seconds", text, beat_job="deadline_sweep") > 0
        )
        return text if done else None

    text = wait_for(counted, timeout=60, what="the bounce and the forfeit in /metrics", explain=stack.explain)

    player_moves = stack.db.rows("SELECT count(*) FROM games_move WHERE played_by = 'player'")[0][0]
    assert value("splendor_moves_total", text, outcome="accepted", code="ok") == player_moves == 12
    posted = value("splendor_http_requests_total", text, route="games:game-moves", method="POST", status="2xx")
    assert posted == 12, text
    assert value("splendor_emails_total", text, kind="invitation", outcome="bounced") == 1
    assert value("splendor_timeouts_total", text, action="bot") >= 1
    assert value("splendor_bot_moves_total", text, reason="timeout") >= 1
    assert value("splendor_forfeits_total", text, reason="timeout") == 1
    assert value("splendor_games_finished_total", text, reason="timeout") == 1
    assert value("splendor_games_started_total", text, variant="base") == 5
    assert value("splendor_emails_total", text, kind="your_turn", outcome="sent") >= 1
    assert value("splendor_task_duration_seconds_count", text, task="games.tasks.sweep_deadlines") >= 1
    assert value("splendor_active_games", text, variant="base") == 4

    # Two web workers, the Celery worker and beat each counted in files of their own.
    folder = Path(stack.env["VAR_DIR"]) / "metrics"
    writers = {int(m.group(1)) for p in folder.iterdir() if (m := re.fullmatch(r"\w+_(\d+)\.db", p.name))}
    assert len(writers) >= 3, sorted(p.name for p in folder.iterdir())
    moves_by_process = _moves_by_process(folder)
    assert len([pid for pid, count in moves_by_process.items() if count > 0]) >= 2, moves_by_process
    assert sum(moves_by_process.values()) == posted


def _moves_by_process(folder: Path) -> dict[int, float]:
    """The answered move POSTs (2xx) each process counted, read from its own file."""
    from prometheus_client.mmap_dict import MmapedDict

    found: dict[int, float] = {}
    for path in folder.glob("counter_*.db"):
        pid = int(path.stem.split("_")[1])
        for key, count, _, _ in MmapedDict.read_all_values_from_file(str(path)):
            if "splendor_http_requests" in key and "games:game-moves" in key and '"POST"' in key and '"2xx"' in key:
                found[pid] = found.get(pid, 0) + count
    return found
