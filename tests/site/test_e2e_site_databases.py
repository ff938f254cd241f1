"""The end-to-end tests' site databases are copies of one migrated template per run
(tests/e2e_support/databases.py): a copy must be exactly what migrating gives, and
the run must leave no template behind."""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.e2e_support import databases
from tests.e2e_support.processes import PrivateDatabase, database_url_for, manage, site_env


def _tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_a_sqlite_url_names_its_file() -> None:
    assert databases._sqlite_path("sqlite:////tmp/x/db.sqlite3") == Path("/tmp/x/db.sqlite3")
    assert databases._sqlite_path("sqlite:///relative.sqlite3") == Path("relative.sqlite3")
    assert databases._sqlite_path("postgres://postgres@127.0.0.1:5432/x") is None


@pytest.mark.e2e
def test_a_sqlite_site_database_is_a_copy_of_the_runs_template_with_no_migration_left(tmp_path: Path) -> None:
    folder = databases.run_folder()
    assert folder is not None, "a pytest run always has its folder"
    first, second = tmp_path / "one" / "db.sqlite3", tmp_path / "two" / "db.sqlite3"
    databases.migrated(site_env(tmp_path / "one", database_url=f"sqlite:///{first}", broker_url=None))
    assert (folder / "sqlite-template.ready").exists()
    env = site_env(tmp_path / "two", database_url=f"sqlite:///{second}", broker_url=None)
    databases.migrated(env)

    assert _tables(first) == _tables(second)
    assert {"games_game", "accounts_player", "django_migrations"} <= _tables(second)
    # `migrate --check` exits non-zero when any migration is unapplied.
    manage(env, "migrate", "--check", "--verbosity", "0")
    # A copy is a database of its own: a row written to one is not in the other.
    manage(env, "player_create", "carol", "--email", "carol@example.com")
    with sqlite3.connect(first) as db:
        assert db.execute("SELECT count(*) FROM accounts_player").fetchone()[0] == 0
    with sqlite3.connect(second) as db:
        assert db.execute("SELECT count(*) FROM accounts_player").fetchone()[0] == 1


@pytest.mark.e2e
@pytest.mark.postgres
def test_a_postgres_site_database_is_created_from_the_runs_template_with_no_migration_left(tmp_path: Path) -> None:
    db = PrivateDatabase(os.environ["DATABASE_URL"])
    env = site_env(tmp_path, database_url=db.url, broker_url=None)
    try:
        db.create(env)
        manage(env, "migrate", "--check", "--verbosity", "0")
        tables = {row[0] for row in db.rows("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
        assert {"games_game", "accounts_player", "django_migrations"} <= tables
    finally:
        db.drop()
    folder = databases.run_folder()
    assert folder is not None
    records = [json.loads(path.read_text()) for path in folder.glob("postgres-*.json")]
    assert [record["name"] for record in records if record["name"].startswith("splendor_e2e_template_")]


@pytest.mark.postgres
def test_the_run_drops_the_postgres_templates_it_recorded(tmp_path: Path) -> None:
    server = os.environ["DATABASE_URL"]
    name = f"splendor_e2e_template_{secrets.token_hex(6)}"
    databases._admin(server, f'CREATE DATABASE "{name}"')
    (tmp_path / "postgres-test.json").write_text(json.dumps({"server": server, "name": name}))
    session: Any = SimpleNamespace(config=SimpleNamespace(pluginmanager=SimpleNamespace(get_plugin=lambda _: None)))

    databases._RunFolder(tmp_path).pytest_sessionfinish(session)

    import psycopg

    with psycopg.connect(database_url_for(server, "postgres"), autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM pg_database WHERE datname = %s", (name,)).fetchone() == (0,)
    assert not tmp_path.exists()  # the run's folder goes too
