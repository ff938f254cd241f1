"""The parallel run (pytest-xdist) runs every test the single-process run does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_every_collected_test_has_its_own_id_so_that_no_worker_drops_one() -> None:
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n0", "--collect-only", "-q", "tests/schema"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    ).stdout.splitlines()
    ids = [line for line in listed if "::" in line]
    assert len(ids) > 20
    duplicates = sorted({node for node in ids if ids.count(node) > 1})
    assert duplicates == []


class _Item:
    """What the ordering reads of a collected test: its name and its markers."""

    def __init__(self, name: str, *markers: str) -> None:
        self.name = name
        self.markers = {marker: pytest.Mark(marker, (), {}) for marker in markers}

    def get_closest_marker(self, name: str) -> pytest.Mark | None:
        return self.markers.get(name)


def test_the_serial_end_to_end_tests_go_first_then_what_starts_no_process_then_the_browser_and_the_rest() -> None:
    from tests.conftest import _order_for_parallel_runs

    items = [
        _Item("plain"),
        _Item("e2e", "e2e"),
        _Item("outage", "e2e", "serial", "xdist_group"),
        _Item("page", "e2e", "browser"),
        _Item("fuzz", "slow"),
        _Item("plain2"),
        _Item("redis", "redis", "xdist_group"),
        _Item("outage2", "e2e", "serial", "xdist_group"),
        _Item("e2e2", "e2e", "xdist_group"),
    ]
    _order_for_parallel_runs(items)  # type: ignore[arg-type]
    assert [item.name for item in items] == [
        "outage", "outage2", "fuzz", "redis", "plain", "plain2", "page", "e2e", "e2e2",
    ]


def test_pytest_xdist_keeps_the_order_the_suite_gives() -> None:
    """Its own reordering (largest groups first) would undo `_order_for_parallel_runs`."""
    import tomllib

    options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["addopts"]
    assert "--dist loadgroup" in options and "--no-loadscope-reorder" in options


@pytest.mark.slow
def test_the_tests_of_a_group_run_on_one_worker_of_a_parallel_run(tmp_path: Path) -> None:
    """pytest-xdist 3.8 on pytest 9.2 ignores every xdist_group unless the suite
    puts the group in the node id itself (tests/conftest.py, `_groups_in_node_ids`)."""
    record = tmp_path / "workers.txt"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2", "-q", "tests/xdist_group_probe.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env={**os.environ, "PROBE_RECORD": str(record)},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    ran = dict(line.split() for line in record.read_text().splitlines())
    assert sorted(ran) == sorted([f"grouped{n}" for n in range(4)] + [f"free{n}" for n in range(6)])
    assert len({ran[f"grouped{n}"] for n in range(4)}) == 1, ran
    assert set(ran.values()) == {"gw0", "gw1"}, ran  # the run was parallel: both workers took tests
