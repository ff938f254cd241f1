"""Which tests `.ci/run` runs again on PostgreSQL (tests/conftest.py): the marker
reaches the tests it should, and the list of modules names files that exist."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import BOTH_DATABASES_MODULES

ROOT = Path(__file__).resolve().parent.parent


def test_every_module_named_to_run_on_both_databases_exists_and_says_why() -> None:
    assert len(BOTH_DATABASES_MODULES) >= 20
    missing = [path for path in BOTH_DATABASES_MODULES if not (ROOT / path).is_file()]
    assert missing == [], f"renamed or removed; update tests/conftest.py: {missing}"
    assert all(reason.strip() for reason in BOTH_DATABASES_MODULES.values())


def test_a_test_that_commits_for_real_runs_on_both_databases(transactional_db: None, request: Any) -> None:
    assert request.node.get_closest_marker("both_databases") is not None


@pytest.mark.django_db(transaction=True)
def test_a_test_marked_transaction_runs_on_both_databases(request: Any) -> None:
    assert request.node.get_closest_marker("both_databases") is not None


def test_a_test_inside_one_rolled_back_transaction_runs_once(db: None, request: Any) -> None:
    assert request.node.get_closest_marker("both_databases") is None


def test_the_folders_markers_are_read_before_what_they_mark_is_left_out() -> None:
    # tests/browser's conftest marks its tests `e2e` in its own collection hook; the
    # suite's hook must see those markers, or the browser tests run without E2E=1.
    import subprocess
    import sys

    env = {key: value for key, value in os.environ.items() if key not in ("E2E", "SLOW")}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-n0", "-p", "no:cacheprovider", "tests/browser"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert "left out:" in run.stdout and "marked e2e" in run.stdout, run.stdout[-2000:]
    listed = [line for line in run.stdout.splitlines() if line.startswith("tests/browser/") and "::" in line]
    assert listed == [], listed


def test_a_test_of_a_listed_module_that_never_opens_the_test_database_runs_once() -> None:
    from tests.conftest import _mark_both_databases

    class Item:
        def __init__(self, path: str, fixturenames: tuple[str, ...], django_db: bool) -> None:
            self.path = ROOT / path
            self.fixturenames = fixturenames
            self.marks = {"django_db": pytest.Mark("django_db", (), {})} if django_db else {}

        def get_closest_marker(self, name: str) -> Any:
            return self.marks.get(name)

        def add_marker(self, mark: Any) -> None:
            self.marks[mark.name] = mark

    listed = "tests/games/test_games_concurrency.py"
    assert listed in BOTH_DATABASES_MODULES
    own_file, marked, with_db = Item(listed, ("tmp_path",), False), Item(listed, (), True), Item(listed, ("db",), False)
    elsewhere = Item("tests/engine/test_properties.py", ("db",), False)
    config = type("Config", (), {"rootpath": ROOT})()
    _mark_both_databases(config, [own_file, marked, with_db, elsewhere])  # type: ignore[list-item]
    assert own_file.get_closest_marker("both_databases") is None
    assert marked.get_closest_marker("both_databases") is not None
    assert with_db.get_closest_marker("both_databases") is not None
    assert elsewhere.get_closest_marker("both_databases") is None
