"""The site databases of end-to-end tests, copied from one migrated template per run.

An end-to-end test gives its processes a database of their own: a SQLite file in
its tmp folder, or a PostgreSQL database on DATABASE_URL's server. Running every
migration into each of them cost about 9 s of CPU per test. Instead, the first
test of a run that needs one runs ``manage.py migrate`` once into a template (a
SQLite file, or a PostgreSQL database ``splendor_e2e_template_<hex>``), under a
file lock in a folder of the run's own, and every test gets a copy: SQLite's
online backup into the test's file, or ``CREATE DATABASE ... TEMPLATE``.

The migrations are the same whatever a test's environment says (none of them reads
a setting but AUTH_USER_MODEL), so a copy is what migrating would have made. The
run's process without a worker id (the pytest-xdist controller, or the one process
of ``-n0``) hands the folder to the workers, and drops the PostgreSQL templates and
the folder when the run ends. Outside pytest (no folder), ``migrated`` migrates.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import shutil
import sqlite3
import tempfile
from contextlib import closing
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from tests.db_template import locked
from tests.e2e_support.processes import database_url_for, manage

# The key of the run's folder in each pytest-xdist worker's workerinput.
FOLDER_KEY = "splendor_e2e_database_templates"
_folder: Path | None = None


class _RunFolder:
    """On the process that owns the run: the folder, handed to every worker, and
    the templates dropped at the end."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[FOLDER_KEY] = str(self.folder)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        try:
            for record in sorted(self.folder.glob("postgres-*.json")):
                made = json.loads(record.read_text())
                try:
                    _admin(made["server"], f'DROP DATABASE IF EXISTS "{made["name"]}" WITH (FORCE)')
                except Exception as exc:  # a warning with its name, not a failed run
                    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
                    message = f"warning: the end-to-end template database {made['name']!r} was not dropped: {exc!r}"
                    if reporter is not None:
                        reporter.write_line(message, yellow=True)
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


def run_folder() -> Path | None:
    """The folder every process of this run shares (None outside a pytest run)."""
    return _folder


def plugin_register(config: pytest.Config) -> None:
    """Called from tests/conftest.py's pytest_configure, in every process of the run."""
    global _folder
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        _folder = Path(workerinput[FOLDER_KEY]) if FOLDER_KEY in workerinput else None
        return
    _folder = Path(tempfile.mkdtemp(prefix="splendor-e2e-databases-"))
    config.pluginmanager.register(_RunFolder(_folder), "splendor-e2e-database-templates")


def _admin(server_url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(database_url_for(server_url, "postgres"), autocommit=True) as conn:
        conn.execute(sql)


def _sqlite_path(url: str) -> Path | None:
    parts = urlsplit(url)
    if parts.scheme != "sqlite":
        return None
    return Path(unquote(parts.path)[1:])  # sqlite:///relative, sqlite:////absolute


def _migrate(env: dict[str, str], database_url: str) -> None:
    manage({**env, "DATABASE_URL": database_url}, "migrate", "--verbosity", "0", timeout=300)


def _sqlite_template(folder: Path, env: dict[str, str]) -> Path:
    template = folder / "sqlite-template.sqlite3"
    ready = folder / "sqlite-template.ready"
    with locked(folder / "sqlite.lock"):
        if not ready.exists():
            template.unlink(missing_ok=True)
            _migrate(env, f"sqlite:///{template}")
            # Out of WAL mode (the settings' init_command): every page in the one
            # file, which the copies read; each site's connection turns WAL on again.
            with closing(sqlite3.connect(template)) as db:
                db.execute("PRAGMA journal_mode=DELETE")
            ready.touch()
    return template


def _postgres_template(folder: Path, env: dict[str, str], server_url: str) -> str:
    """Called under the server's lock. The record is written before the database
    exists, so that a template whose migration failed is dropped too."""
    key = hashlib.sha256(database_url_for(server_url, "").encode()).hexdigest()[:12]
    record, ready = folder / f"postgres-{key}.json", folder / f"postgres-{key}.ready"
    if ready.exists():
        return str(json.loads(record.read_text())["name"])
    name = f"splendor_e2e_template_{secrets.token_hex(6)}"
    record.write_text(json.dumps({"server": server_url, "name": name}))
    _admin(server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    _admin(server_url, f'CREATE DATABASE "{name}"')
    _migrate(env, database_url_for(server_url, name))  # the process ends: nobody is left in the template
    ready.touch()
    return name


def migrated(env: dict[str, str], *, create: bool = False) -> None:
    """Make the database ``env['DATABASE_URL']`` names a migrated copy of the run's
    template: a SQLite file that must not exist yet, or, with ``create``, a
    PostgreSQL database created now (without ``create`` an existing PostgreSQL
    database is migrated in place)."""
    url = env["DATABASE_URL"]
    path = _sqlite_path(url)
    folder = _folder
    if path is not None:
        if path.exists() or folder is None:
            _migrate(env, url)
            return
        template = _sqlite_template(folder, env)
        path.parent.mkdir(parents=True, exist_ok=True)
        with closing(sqlite3.connect(f"{template.as_uri()}?mode=ro", uri=True)) as source, closing(
            sqlite3.connect(path)
        ) as copy:
            source.backup(copy)
        return
    name = urlsplit(url).path.lstrip("/")
    if not create:
        _migrate(env, url)
        return
    if folder is None:
        _admin(url, f'CREATE DATABASE "{name}"')
        _migrate(env, url)
        return
    with locked(folder / "postgres.lock"):
        template = _postgres_template(folder, env, url)
        # PostgreSQL copies a template only while nobody is connected to it: every
        # copy is made under the lock, and the template's migration ended above.
        _admin(url, f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
