"""Each web process keeps a token that authenticated for at most
API_TOKEN_CACHE_SECONDS (accounts.token_cache); docs/api.md promises that a revoke,
a suspension, a disabling or an erasure is then refused by every process. Here:
gunicorn with two workers and the stream's uvicorn, each kept busy with the token
until the change, so that each holds it when the change commits. The revoke is made
through the API (by one of the workers); the rest from a process of their own, as
a shell or a worker would. Once the bound has passed, every request with the token
is refused by both workers (told apart by their pids in gunicorn's access log) and
by the stream process, and an open stream of the revoked token is closed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.e2e_support.processes import (
    PYTHON,
    ROOT,
    PrivateDatabase,
    Process,
    Web,
    free_port,
    player_tokens,
    site_env,
    stop_all,
    wait_for,
)

pytestmark = [pytest.mark.e2e]

BOUND = 1  # API_TOKEN_CACHE_SECONDS, the default
# What a change needs to be seen after the bound: its commit is a moment before
# the changing process answers, and a request in flight may have read the rows
# just before it.
MARGIN = 0.5

# The changes an operator's shell or a worker makes, one a line on stdin, each
# answered with "done" once it has committed.
_CHANGES = """
import sys
import django
django.setup()
from django.contrib.auth import get_user_model
from accounts.services import player_disable, player_erase, player_suspend
User = get_user_model()
moderator = User.objects.get(username="mo")
for line in sys.stdin:
    change, username = line.split()
    user = User.objects.get(username=username)
    if change == "suspend":
        player_suspend(user=user, by_user=moderator, reason="abuse of the API")
    elif change == "disable":
        player_disable(user=user)
    elif change == "erase":
        player_erase(user=user)
    print("done", change, username, flush=True)
"""

_ACCESS = re.compile(r"^pid=<?(\d+)>? status=(\d+) path=(\S+)$", re.MULTILINE)


class Site:
    def __init__(self, tmp_path: Path) -> None:
        self.db = PrivateDatabase(os.environ["DATABASE_URL"])
        self.env = site_env(
            tmp_path, database_url=self.db.url, broker_url=None,
            API_TOKEN_CACHE_SECONDS=str(BOUND), STREAM_HEARTBEAT_SECONDS="1",
        )  # fmt: skip
        self.web = Web(self.env, tmp_path / "gunicorn.log")
        # Which worker answered each request: its pid in gunicorn's access log.
        self.web.command += ["--access-logfile", "-", "--access-logformat", "pid=%(p)s status=%(s)s path=%(U)s?%(q)s"]
        stream_port = free_port()
        self.stream_url = f"http://127.0.0.1:{stream_port}"
        self.stream = Process(
            "uvicorn",
            [PYTHON, "-m", "uvicorn", "splendor_site.asgi:application", "--host", "127.0.0.1",
             "--port", str(stream_port), "--no-access-log"],
            self.env, tmp_path / "stream.log",
        )  # fmt: skip
        self.changes: subprocess.Popen[str] | None = None
        self.tokens: dict[str, str] = {}

    def start(self) -> None:
        self.db.create(self.env)
        self.tokens = player_tokens(self.env, ["rita", "sam", "dora", "erin", "mo"])
        self.web.start()
        self.stream.start()
        wait_for(lambda: _status(self.stream_url + "/healthz") == 200, timeout=45, what="uvicorn answering",
                 explain=self.stream.tail)  # fmt: skip
        self.changes = subprocess.Popen(
            [PYTHON, "-c", _CHANGES], cwd=ROOT, env=self.env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )  # fmt: skip

    def change(self, change: str, username: str) -> None:
        assert self.changes is not None and self.changes.stdin and self.changes.stdout
        self.changes.stdin.write(f"{change} {username}\n")
        self.changes.stdin.flush()
        seen = []
        while not (answer := self.changes.stdout.readline()).startswith("done ") and answer:
            seen.append(answer)  # the site's log lines
        assert answer.strip() == f"done {change} {username}", "".join(seen)

    def explain(self) -> str:
        return self.web.tail(30) + "\n" + self.stream.tail(30)

    def stop(self) -> None:
        if self.changes is not None:
            self.changes.kill()
            self.changes.wait(timeout=10)
        stop_all([self.web, self.stream])
        self.db.drop()

    def answered(self, mark: str) -> dict[str, set[int]]:
        """The pids that answered requests whose query holds ``mark``, by status."""
        found: dict[str, set[int]] = {}
        for pid, status, path in _ACCESS.findall(self.web.output()):
            if mark in path:
                found.setdefault(status, set()).add(int(pid))
        return found


def _status(url: str, method: str = "GET", **kwargs: Any) -> int | None:
    try:
        return requests.request(method, url, timeout=5, **kwargs).status_code
    except requests.RequestException:
        return None


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    site = Site(tmp_path_factory.mktemp("token-cache"))
    try:
        site.start()
        yield site
    finally:
        site.stop()


class Busy:
    """Requests with one token, to gunicorn and to the stream process, one after the
    other in a thread of their own until stopped: each process keeps reading the
    token anew as its entry ages, so each holds it when the change commits."""

    def __init__(self, site: Site, token: str, mark: str) -> None:
        self.site, self.mark = site, mark
        self.headers = {"Authorization": f"Bearer {token}"}
        self.stream_answers: list[int | None] = []
        self.count = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.count += 1
            # A new connection each time: gunicorn's two workers take turns accepting.
            _status(f"{self.site.web.url}/api/v1/me/?{self.mark}={self.count}", headers=self.headers)
            self.stream_answers.append(_status(
                f"{self.site.stream_url}/api/v1/stream/", "HEAD",
                headers={**self.headers, "Accept": "application/x-ndjson"},
            ))  # fmt: skip

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


def _refused_everywhere(site: Site, token: str, code: str, mark: str) -> None:
    """Every request with the token is refused with ``code``, by both workers (asked
    until each has answered one) and by the stream process."""
    headers = {"Authorization": f"Bearer {token}"}
    asked = 0

    def both_workers_refused() -> bool:
        nonlocal asked
        for _ in range(4):
            asked += 1
            answer = requests.get(f"{site.web.url}/api/v1/me/?{mark}={asked}", headers=headers, timeout=5)
            assert answer.status_code == 401 and answer.json()["code"] == code, (asked, answer.text)
        answered = site.answered(mark)
        assert set(answered) <= {"401"}, answered
        return len(answered.get("401", set())) == 2

    wait_for(both_workers_refused, timeout=20, what=f"both gunicorn workers answering {mark}", every=0,
             explain=site.explain)  # fmt: skip
    for _ in range(3):
        answer = requests.head(f"{site.stream_url}/api/v1/stream/", timeout=5,
                               headers={**headers, "Accept": "application/x-ndjson"})  # fmt: skip
        assert answer.status_code == 401, answer.headers
        opened = requests.get(f"{site.stream_url}/api/v1/stream/", timeout=5,
                              headers={**headers, "Accept": "application/x-ndjson"})  # fmt: skip
        assert opened.status_code == 401 and opened.json()["code"] == code, opened.text


def _keep_busy_then_change(site: Site, who: str, mark: str, change: Any) -> Busy:
    busy = Busy(site, site.tokens[who], mark)
    try:
        # Both workers and the stream process have served the token: each holds it.
        wait_for(lambda: len(site.answered(mark).get("200", set())) == 2 and 200 in busy.stream_answers,
                 timeout=20, what=f"both workers and the stream serving {who}", every=0.05,
                 explain=site.explain)  # fmt: skip
        change()
        time.sleep(BOUND + MARGIN)
    finally:
        busy.stop()
    return busy


def test_a_revoke_through_the_api_is_refused_by_every_process_within_the_bound(site: Site) -> None:
    token = site.tokens["rita"]
    headers = {"Authorization": f"Bearer {token}"}
    tokens = requests.get(f"{site.web.url}/api/v1/tokens/", headers=headers, timeout=5).json()
    token_id = (tokens["results"] if isinstance(tokens, dict) else tokens)[0]["id"]
    events: list[dict[str, Any]] = []
    stream = requests.get(f"{site.stream_url}/api/v1/stream/", stream=True, timeout=30,
                          headers={**headers, "Accept": "application/x-ndjson"})  # fmt: skip
    assert stream.status_code == 200, stream.text

    def read() -> None:
        try:
            for line in stream.iter_lines(chunk_size=1):
                if line:
                    events.append(json.loads(line))
        except requests.RequestException:
            return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()

    def revoke() -> None:
        answer = requests.delete(f"{site.web.url}/api/v1/tokens/{token_id}/", headers=headers, timeout=5)
        assert answer.status_code in (200, 204), answer.text

    _keep_busy_then_change(site, "rita", "warm-rita", revoke)
    _refused_everywhere(site, token, "token_revoked", "probe-rita")
    # The open stream ends as docs/stream.md says, within a heartbeat (1 s here).
    reader.join(timeout=10)
    assert not reader.is_alive() and events[-1] == {"event": "closed", "data": {"reason": "revoked"}}, events[-3:]


@pytest.mark.parametrize(
    ("change", "who", "code"),
    [("suspend", "sam", "account_suspended"), ("disable", "dora", "account_disabled"), ("erase", "erin", "invalid_token")],
)
def test_a_change_made_by_another_process_is_refused_by_every_process_within_the_bound(
    site: Site, change: str, who: str, code: str
) -> None:
    _keep_busy_then_change(site, who, f"warm-{who}", lambda: site.change(change, who))
    _refused_everywhere(site, site.tokens[who], code, f"probe-{who}")
