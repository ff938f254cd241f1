"""Real gunicorn, started with the shipped config (splendor_site/gunicorn_conf.py)
as docs/deploy.md starts it, DEBUG off and SITE_URL https: only Django decides
whether a request came over https, and the load balancer's plain-http health check
sees the health, not a redirect."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.e2e_support.processes import Web, site_env

pytestmark = [pytest.mark.e2e]


@pytest.fixture
def https_site(tmp_path: Path) -> Iterator[Web]:
    env = site_env(
        tmp_path,
        database_url=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        broker_url=None,
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1",
        SITE_URL="https://splendor.example",
    )
    web = Web(env, tmp_path / "gunicorn.log")
    web.start()  # waits for /healthz over plain http to answer 200
    try:
        yield web
    finally:
        web.stop()


def test_gunicorn_does_not_take_a_forwarded_proto_from_localhost_for_https(https_site: Web) -> None:
    # SECURE_PROXY_SSL_HEADER is off: nobody's X-Forwarded-Proto is believed, not
    # even from 127.0.0.1, where gunicorn's own default would believe it.
    answer = requests.get(
        https_site.url + "/", headers={"X-Forwarded-Proto": "https"}, allow_redirects=False, timeout=10
    )
    assert answer.status_code == 301, https_site.tail()
    assert answer.headers["Location"] == f"https://127.0.0.1:{https_site.port}/"
    assert "Strict-Transport-Security" not in answer.headers  # HSTS goes out over https only
    assert "Using worker: api.gunicorn_workers.ProblemJsonSyncWorker" in https_site.output()


def test_the_health_check_answers_plain_http_with_json_while_pages_redirect(https_site: Web) -> None:
    health = requests.get(https_site.url + "/healthz", allow_redirects=False, timeout=10)
    assert health.status_code == 200, https_site.tail()
    assert health.headers["Content-Type"] == "application/json"
    assert health.json()["checks"]["database"]["state"] == "up"
    page = requests.get(https_site.url + "/accounts/login/", allow_redirects=False, timeout=10)
    assert page.status_code == 301 and page.headers["Location"].startswith("https://")
