"""The test databases of a parallel run, cloned from one migrated template.

Each pytest-xdist worker used to create its test database by running every
migration, so a run migrated once per worker. Now the first worker that needs a
database creates and migrates a template, once per run, under a file lock in a
folder the controller hands every worker; each worker then clones the template
under the same lock (Django's own creation code does both):

- SQLite, whose test database lives in memory: the template is a file in that
  folder, copied page by page into the worker's in-memory database (as Django's
  parallel runner does for spawned workers);
- SQLite with a file TEST NAME: the file is copied (``clone_test_db``);
- PostgreSQL: ``CREATE DATABASE test_<name>_<worker> TEMPLATE test_<name>``
  (``clone_test_db``), so the workers' databases keep pytest-django's names.

A worker drops its clone when it ends; the controller drops the template when
the run ends. A run in one process (``-n0``) and ``--reuse-db`` set their
databases up as pytest-django does: one database, migrated (or kept) in place.
Tests on ``transactional_db`` or ``live_server`` empty the tables after
themselves (flush); nothing is migrated again.
"""

from __future__ import annotations

import fcntl
import shutil
import sqlite3
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import pytest

# The key of the controller's folder in each worker's workerinput.
FOLDER_KEY = "splendor_database_templates"


class TemplateFolder:
    """On the pytest-xdist controller: gives the workers one folder for the run
    (the lock, the records of the templates, SQLite's template file), and drops
    the templates and the folder once every worker is done."""

    def __init__(self) -> None:
        self.folder: Path | None = None

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="splendor-test-databases-"))
        node.workerinput[FOLDER_KEY] = str(self.folder)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.folder is None:
            return
        try:
            templates_drop(self.folder, session.config)
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


def plugin_register(config: pytest.Config) -> None:
    """Called from tests/conftest.py's pytest_configure, in every process; the
    controller is the process without a workerinput."""
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(TemplateFolder(), "splendor-database-templates")


def databases_set_up(
    request: pytest.FixtureRequest,
    django_db_blocker: Any,
    *,
    use_migrations: bool,
    keepdb: bool,
    createdb: bool,
) -> Iterator[None]:
    """The body of the django_db_setup fixture: pytest-django's, but a worker of
    a parallel run clones the run's template instead of migrating."""
    from django.test.utils import setup_databases, teardown_databases
    from pytest_django.fixtures import _disable_migrations, _get_databases_for_setup

    if not use_migrations:
        _disable_migrations()
    keep = keepdb and not createdb
    aliases, serialized_aliases = _get_databases_for_setup(request.session.items)
    verbosity = request.config.option.verbose
    workerinput = getattr(request.config, "workerinput", {})
    folder = workerinput.get(FOLDER_KEY)

    with django_db_blocker.unblock():
        if folder is None or keep or not _clonable(aliases):
            # pytest-django's way: the xdist suffix on each database's name, then
            # one database per process, migrated (or kept with --reuse-db).
            request.getfixturevalue("django_db_modify_db_settings")
            old_config = setup_databases(
                verbosity=verbosity,
                interactive=False,
                aliases=aliases,
                serialized_aliases=serialized_aliases,
                keepdb=keep,
            )
        else:
            old_config = [
                _clone(alias, Path(folder), workerinput["workerid"], verbosity, alias in serialized_aliases)
                for alias in sorted(aliases)
            ]

    yield

    if not keepdb:
        with django_db_blocker.unblock():
            try:
                teardown_databases(old_config, verbosity=verbosity)
            except Exception as exc:  # as pytest-django: a warning, not an error of the last test
                request.node.warn(pytest.PytestWarning(f"Error when trying to teardown test databases: {exc!r}"))


def _clonable(aliases: set[str]) -> bool:
    """Mirrors and dependencies between databases are left to Django's own set-up."""
    from django.db import connections

    return all(
        not connections[alias].settings_dict["TEST"].get("MIRROR")
        and not connections[alias].settings_dict["TEST"].get("DEPENDENCIES")
        for alias in aliases
    )


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock on the file ``path`` (made if missing), across processes."""
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _name_set(connection: Any, name: str) -> None:
    """Point the alias at another database, as create_test_db does."""
    from django.conf import settings

    connection.close()
    settings.DATABASES[connection.alias]["NAME"] = name
    connection.settings_dict["NAME"] = name


def _in_memory(connection: Any) -> bool:
    creation = connection.creation
    return bool(connection.vendor == "sqlite" and creation.is_in_memory_db(creation._get_test_db_name()))


def _template_name(connection: Any, folder: Path, worker_id: str) -> str:
    if _in_memory(connection):
        return str(folder / f"{connection.alias}.sqlite3")
    # The name pytest-django gives the database of a run in one process
    # (test_<NAME>, or TEST NAME); the clones add "_<worker>" to it.
    return str(connection.creation._get_test_db_name()).removesuffix(f"_{worker_id}")


def _template(connection: Any, folder: Path, worker_id: str, verbosity: int) -> str:
    """The run's migrated template of this alias, made now if no worker has made it.
    Called under the lock. The name is recorded before the database exists, so
    that the controller drops even a template whose migration failed."""
    record, ready = folder / f"{connection.alias}.template", folder / f"{connection.alias}.ready"
    if ready.exists():
        return record.read_text()
    name = _template_name(connection, folder, worker_id)
    record.write_text(name)
    original, test_settings = connection.settings_dict["NAME"], connection.settings_dict["TEST"]
    test_name = test_settings.get("NAME")
    test_settings["NAME"] = name
    try:
        connection.creation.create_test_db(verbosity=verbosity, autoclobber=True, serialize=False, keepdb=False)
        if connection.vendor == "sqlite":
            # Out of WAL mode: every page in the one file, which is what is copied.
            with connection.cursor() as cursor:
                cursor.execute("PRAGMA journal_mode=DELETE")
    finally:
        test_settings["NAME"] = test_name
        _name_set(connection, original)  # closes the template: PostgreSQL copies only a database no one is in
    ready.write_text(name)
    return name


def _clone(alias: str, folder: Path, worker_id: str, verbosity: int, serialize: bool) -> tuple[Any, str, bool]:
    """This worker's database of ``alias``, cloned from the template; the entry
    for django.test.utils.teardown_databases."""
    from django.db import connections

    connection = connections[alias]
    creation = connection.creation
    original = connection.settings_dict["NAME"]
    with locked(folder / f"{alias}.lock"):
        template = _template(connection, folder, worker_id, verbosity)
        if _in_memory(connection):
            if verbosity >= 1:
                creation.log(f"Copying test database for alias {alias!r} from {template}...")
            _name_set(connection, creation._get_test_db_name())
            connection.ensure_connection()
            with closing(sqlite3.connect(f"{Path(template).as_uri()}?mode=ro", uri=True)) as source:
                source.backup(connection.connection)
        else:
            _name_set(connection, template)
            creation.clone_test_db(suffix=worker_id, verbosity=verbosity, keepdb=False)
            _name_set(connection, creation.get_test_db_clone_settings(worker_id)["NAME"])
    if serialize:
        connection._test_serialized_contents = creation.serialize_db_to_string()
    connection.ensure_connection()
    return connection, original, True


def templates_drop(folder: Path, config: pytest.Config) -> None:
    """On the controller, after every worker has dropped its clone: drop each
    template the workers recorded. A template that cannot be dropped is a
    warning with its name, not a failed run."""
    from django.db import connections
    from pytest_django.plugin import blocking_manager_key

    verbosity = config.option.verbose
    for record in sorted(folder.glob("*.template")):
        connection, name = connections[record.stem], record.read_text()
        original = connection.settings_dict["NAME"]
        try:
            with config.stash[blocking_manager_key].unblock():
                _name_set(connection, name)
                connection.creation.destroy_test_db(old_database_name=original, verbosity=verbosity)
        except Exception as exc:
            _name_set(connection, original)
            reporter = config.pluginmanager.get_plugin("terminalreporter")
            message = f"The template test database {name!r} was not dropped: {exc!r}"
            if reporter is not None:
                reporter.write_line(f"warning: {message}", yellow=True)
            else:
                warnings.warn(message, pytest.PytestWarning, stacklevel=1)
