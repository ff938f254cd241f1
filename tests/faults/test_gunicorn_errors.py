"""gunicorn's own error answers are problem details with the worker class
``api.gunicorn_workers.ProblemJsonSyncWorker``.

A request gunicorn cannot parse never reaches Django; with its stock sync worker
gunicorn answers it with an HTML page. This starts a real gunicorn with the
project's worker class on a free loopback port (SQLite; nothing here reaches the
database) and sends raw bytes over a socket.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.e2e_support.processes import free_port

ROOT = Path(__file__).resolve().parents[2]
WORKER_CLASS = "api.gunicorn_workers.ProblemJsonSyncWorker"
SITE_URL = "https://splendor.test"

pytestmark = pytest.mark.e2e




def _exchange(port: int, raw: bytes, timeout: float = 10) -> bytes:
    """Send ``raw``, read until the server closes the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        conn.sendall(raw)
        received = b""
        while chunk := conn.recv(65536):
            received += chunk
    return received


def _parse(answer: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(status_line.split(" ")[1]), headers, body


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    port = free_port()
    logs = tmp_path_factory.mktemp("gunicorn") / "gunicorn.log"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "splendor_site.settings",
        # Nothing reaches the database; a throwaway SQLite file keeps it off any real one.
        "DATABASE_URL": f"sqlite:///{logs.parent / 'unused.sqlite3'}",
        "CACHE_URL": "locmem://",
        "CELERY_BROKER_URL": "memory://",
        "SITE_URL": SITE_URL,
    }
    command = [
        sys.executable, "-m", "gunicorn", "splendor_site.wsgi",
        "--bind", f"127.0.0.1:{port}",
        "--workers", "1",
        "--worker-class", WORKER_CLASS,
        "--no-control-socket",
        "--log-level", "info",
        "--timeout", "30",
    ]  # fmt: skip
    with logs.open("wb") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=log, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                pytest.fail(f"gunicorn exited with {process.returncode}:\n{logs.read_text()}")
            try:
                answer = _exchange(port, b"GET /api/v1/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", 2)
                if answer.startswith(b"HTTP/1.1 "):
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"gunicorn did not answer within 30 s:\n{logs.read_text()}")
            time.sleep(0.2)
        yield port
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)


def _assert_problem(answer: bytes, status: int, code: str, title: str) -> dict[str, object]:
    got_status, headers, body = _parse(answer)
    assert got_status == status, answer[:400]
    assert headers["content-type"] == "application/problem+json"
    assert headers["connection"] == "close"
    assert int(headers["content-length"]) == len(body)
    assert b"<html" not in answer.lower()
    problem = json.loads(body)
    assert problem["type"] == f"{SITE_URL}/problems/{code}/"
    assert problem["code"] == code
    assert problem["status"] == status
    assert problem["title"] == title
    assert isinstance(problem["detail"], str) and problem["detail"]
    return problem


def test_request_line_too_long_is_414_problem(server: int) -> None:
    line = b"GET /api/v1/games/?q=" + b"a" * (10_000 - len(b"GET /api/v1/games/?q= HTTP/1.1")) + b" HTTP/1.1"
    assert len(line) == 10_000
    answer = _exchange(server, line + b"\r\nHost: 127.0.0.1\r\n\r\n")
    problem = _assert_problem(answer, 414, "uri_too_long", "URI Too Long")
    # gunicorn's default --limit-request-line; the detail does not echo the 10,000 characters back.
    assert "4094" in str(problem["detail"])
    assert len(answer) < 1000


def test_malformed_request_line_is_400_problem(server: int) -> None:
    answer = _exchange(server, b"THIS IS NOT HTTP\r\n\r\n")
    problem = _assert_problem(answer, 400, "bad_request", "Bad Request")
    assert "THIS IS NOT HTTP" in str(problem["detail"])


def test_bad_http_version_is_400_problem(server: int) -> None:
    answer = _exchange(server, b"GET /api/v1/ HTTP/1.1 extra\r\nHost: 127.0.0.1\r\n\r\n")
    _assert_problem(answer, 400, "bad_request", "Bad Request")


def test_too_many_header_fields_is_431_problem(server: int) -> None:
    # gunicorn's default --limit-request-fields is 100.
    fields = b"".join(b"X-Filler-%d: x\r\n" % number for number in range(150))
    answer = _exchange(server, b"GET /api/v1/ HTTP/1.1\r\nHost: 127.0.0.1\r\n" + fields + b"\r\n")
    _assert_problem(answer, 431, "request_header_fields_too_large", "Request Header Fields Too Large")


def test_a_request_gunicorn_can_parse_still_reaches_django(server: int) -> None:
    """The worker changes only gunicorn's own answers: Django's still come from Django."""
    conn = http.client.HTTPConnection("127.0.0.1", server, timeout=10)
    try:
        conn.request("GET", "/api/v1/no-such-thing/", headers={"Host": "127.0.0.1"})
        answer = conn.getresponse()
        assert answer.status == 404
        assert answer.getheader("Content-Type") == "application/problem+json"
        assert json.loads(answer.read())["code"] == "not_found"
    finally:
        conn.close()
