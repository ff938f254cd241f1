"""docs/deploy.md followed as written, on one machine: the units' ExecStart lines
start gunicorn, uvicorn and smtpd (no systemd runs in a test), and Debian's nginx
runs step 8's site in front of them. Through it the admin's log-in works on a
port other than 80, the API and the stream answer, and /metrics is not there;
smtpd takes a reply. The nightly backup and the restore of "Backups and
upgrades", run on PostgreSQL, bring back a game that goes on."""

from __future__ import annotations

import json
import os
import re
import secrets
import smtplib
import sqlite3
import subprocess
from pathlib import Path

import pytest
import requests

from tests.e2e_support.deploy_guide import Nginx, exec_start, moved, nginx_site, port_open, runnable, shell_block
from tests.e2e_support.processes import (
    Api,
    PrivateDatabase,
    Process,
    Web,
    database_url_for,
    free_port,
    manage,
    player_token,
    site_env,
    stop_all,
    wait_for,
)

pytestmark = [pytest.mark.e2e]

REPLY_DOMAIN = "reply.splendor.test"
ADMIN_PASSWORD = "a-long-admin-password-for-the-test"


def admin_log_in(base: str) -> requests.Response:
    """Log in to the admin as a browser does: the form's page, then its POST with
    the CSRF token and the Origin and Referer a browser sends."""
    session = requests.Session()
    page = session.get(f"{base}/admin/login/?next=/admin/", timeout=10)
    assert page.status_code == 200, page.text[:500]
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    assert token, page.text[:500]
    answer = session.post(
        f"{base}/admin/login/?next=/admin/",
        data={"csrfmiddlewaretoken": token.group(1), "username": "admin", "password": ADMIN_PASSWORD, "next": "/admin/"},
        headers={"Origin": base, "Referer": page.url}, allow_redirects=False, timeout=10,
    )  # fmt: skip
    if answer.status_code == 302:
        index = session.get(f"{base}{answer.headers['Location']}", timeout=10)
        assert index.status_code == 200 and "Log out" in index.text, index.text[:500]
    return answer


def test_the_guides_nginx_units_and_smtpd_serve_the_admin_the_api_the_stream_and_mail(tmp_path: Path) -> None:
    web_port, stream_port, smtpd_port = free_port(), free_port(), free_port()
    nginx = Nginx(tmp_path / "nginx", web_port=web_port, stream_port=stream_port)
    metrics_token = secrets.token_urlsafe(32)
    database = tmp_path / "db.sqlite3"
    # Step 4's production settings, for a trial over plain http behind the proxy.
    env = site_env(
        tmp_path, database_url=f"sqlite:///{database}", broker_url=None,
        DEBUG="false", SECRET_KEY=secrets.token_urlsafe(50), ALLOWED_HOSTS="127.0.0.1",
        SITE_URL=nginx.url, TRUSTED_PROXIES="1", METRICS_TOKEN=metrics_token,
        STATIC_ROOT=str(tmp_path / "static"), EMAIL_REPLY_DOMAIN=REPLY_DOMAIN,
        INBOUND_TRUSTED_RELAYS="127.0.0.1",
    )  # fmt: skip
    manage(env, "migrate", "--verbosity", "0")
    manage(env, "collectstatic", "--no-input", "--verbosity", "0")
    manage({**env, "DJANGO_SUPERUSER_PASSWORD": ADMIN_PASSWORD},
           "createsuperuser", "--no-input", "--username", "admin", "--email", "admin@example.com")  # fmt: skip
    alice = player_token(env, "alice")
    web = Process("gunicorn", runnable(exec_start("splendor-web"), bind=f"127.0.0.1:{web_port}"), env,
                  tmp_path / "web.log")  # fmt: skip
    stream = Process("uvicorn", runnable(exec_start("splendor-stream"), port=str(stream_port)), env,
                     tmp_path / "stream.log")  # fmt: skip
    smtpd = Process("smtpd", runnable(exec_start("splendor-smtpd"), host="127.0.0.1", port=str(smtpd_port)), env,
                    tmp_path / "smtpd.log")  # fmt: skip
    with_host = Nginx(tmp_path / "nginx-host", web_port=web_port, stream_port=stream_port,
                      site=nginx_site().replace("$http_host;", "$host;"))  # fmt: skip
    processes = [web, stream, smtpd, nginx, with_host]
    try:
        for process in processes:
            process.start()
        for process, port in ((web, web_port), (stream, stream_port), (smtpd, smtpd_port)):
            wait_for(lambda: port_open(port) or not process.alive(), timeout=60,
                     what=f"{process.name} listening", explain=process.tail)  # fmt: skip
            assert process.alive(), process.tail()
        base = nginx.url

        # The admin: logged in through nginx on a port other than 80.
        assert admin_log_in(base).status_code == 302
        # With `Host $host` nginx would drop the port, and the form's Origin no longer matches.
        assert admin_log_in(with_host.url).status_code == 403

        # The API, through gunicorn.
        bearer = {"Authorization": f"Bearer {alice}"}
        me = requests.get(f"{base}/api/v1/me/", headers=bearer, timeout=10)
        assert me.status_code == 200 and me.json()["username"] == "alice", me.text

        # The stream, through uvicorn: its first line arrives while it stays open.
        with requests.get(f"{base}/api/v1/stream/", headers={**bearer, "Accept": "application/x-ndjson"},
                          stream=True, timeout=10) as opened:  # fmt: skip
            assert opened.status_code == 200, opened.text
            first = json.loads(next(opened.iter_lines()))
        assert first["event"] == "snapshot"
        # The game page's stream, through uvicorn too: it asks the page's session (none here),
        # where gunicorn would have answered that it serves none (404).
        page_stream = requests.get(f"{base}/games/abcdefghij/events/", timeout=10)
        assert page_stream.status_code == 403 and page_stream.json()["detail"], page_stream.text

        # /metrics: nginx answers 404 itself, token or not; gunicorn serves it to the token.
        assert requests.get(f"{base}/metrics", timeout=10).status_code == 404
        scraped = {"Authorization": f"Bearer {metrics_token}"}
        assert requests.get(f"{base}/metrics", headers=scraped, timeout=10).status_code == 404
        direct = requests.get(f"http://127.0.0.1:{web_port}/metrics", headers=scraped, timeout=10)
        assert direct.status_code == 200 and "splendor_" in direct.text

        # smtpd, started by its unit's line, takes a reply for the reply domain and stores it.
        reply = f"From: alice@example.com\r\nTo: play+abc@{REPLY_DOMAIN}\r\nSubject: Re: Your turn\r\n\r\npass\r\n"
        with smtplib.SMTP("127.0.0.1", smtpd_port, timeout=30) as client:
            assert client.sendmail("alice@example.com", [f"play+abc@{REPLY_DOMAIN}"], reply.encode()) == {}
        with sqlite3.connect(database) as connection:
            stored = connection.execute("SELECT count(*) FROM notifications_inboundmessage").fetchone()[0]
        assert stored == 1

        # The stream was uvicorn's: without it nginx has no one to ask (gunicorn could serve it too).
        stream.stop()
        assert requests.get(f"{base}/api/v1/stream/", headers=bearer, timeout=10).status_code == 502
        assert requests.get(f"{base}/games/abcdefghij/events/", timeout=10).status_code == 502
        assert requests.get(f"{base}/api/v1/me/", headers=bearer, timeout=10).status_code == 200
    finally:
        stop_all(processes)


def run_sh(script: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["sh", "-e", "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{script}\n{done.stdout}\n{done.stderr}"
    return done


def database_create_empty(database: PrivateDatabase) -> None:
    import psycopg

    with psycopg.connect(database_url_for(database.server_url, "postgres"), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{database.name}"')


@pytest.mark.postgres
def test_the_nightly_dump_restored_as_the_guide_says_carries_on_a_game_in_progress(tmp_path: Path) -> None:
    original = PrivateDatabase(os.environ["DATABASE_URL"])
    restored = PrivateDatabase(os.environ["DATABASE_URL"])
    env = site_env(tmp_path, database_url=original.url, broker_url=None)
    etc, backups, sbin = tmp_path / "etc", tmp_path / "backups", tmp_path / "sbin"
    places = {"/etc/splendor": str(etc), "/var/backups/splendor": str(backups), "/usr/local/sbin": str(sbin),
              "/etc/cron.d": str(tmp_path / "cron.d")}  # fmt: skip
    for folder in (etc, sbin, tmp_path / "cron.d"):
        folder.mkdir()
    (etc / "env").write_text(f"DEBUG=false\nDATABASE_URL={original.url}\n")
    web = Web(env, tmp_path / "web.log")
    try:
        original.create(env)
        api = Api(web.url, {name: player_token(env, name) for name in ("alice", "bob")})
        web.start()
        game_id = api.new_game("alice", ["bob"])
        api.play(game_id)
        version = api.game("alice", game_id)["version"]

        # The nightly backup: the guide's script, installed and run as it says.
        run_sh(moved(shell_block("pg_dump -Fc"), places), {"PATH": os.environ["PATH"]})
        run_sh(str(sbin / "splendor-backup"), {"PATH": os.environ["PATH"]})
        (dump,) = backups.glob("splendor-*.dump")
        web.stop()

        # The restore: into a new database (the test's role makes it), with the
        # guide's pg_restore line, and the env file's DATABASE_URL swapped by its sed line.
        restore = shell_block("pg_restore")
        lines = [line for line in restore.splitlines() if line.startswith(("set -a", "pg_restore", "sed "))]
        assert len(lines) == 3, restore
        script = moved("\n".join(lines), {"/etc/splendor": str(etc), "/var/backups/splendor": str(backups),
                                           "splendor_restored": restored.name})  # fmt: skip
        script = re.sub(rf"{re.escape(str(backups))}/splendor-[0-9-]+\.dump", str(dump), script)
        database_create_empty(restored)
        run_sh(script, {"PATH": os.environ["PATH"]})
        assert f"DATABASE_URL={database_url_for(original.url, restored.name)}\n" in (etc / "env").read_text()

        # The service, pointed at the restored database, carries on the game.
        web = Web({**env, "DATABASE_URL": restored.url}, tmp_path / "web-restored.log").start()
        api.url = web.url
        assert api.game("alice", game_id)["version"] == version
        api.play(game_id)  # answered 201: Api.call checks it
        assert api.game("alice", game_id)["version"] == version + 1
        moves = restored.rows("SELECT count(*) FROM games_move WHERE game_id = %s", game_id)[0][0]
        assert moves == 2
    finally:
        web.stop()
        original.drop()
        restored.drop()
