"""Run by tests/test_parallel_run.py in a parallel run of its own (not collected
by the suite: its name does not start with test_). Each test writes which worker
ran it; those marked `serial` must all have run on one."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest


def _record(name: str) -> None:
    time.sleep(0.3)  # long enough that both workers are handed tests
    with Path(os.environ["PROBE_RECORD"]).open("a") as out:
        out.write(f"{name} {os.environ.get('PYTEST_XDIST_WORKER', '-')}\n")


@pytest.mark.serial
@pytest.mark.parametrize("n", range(4))
def test_grouped(n: int) -> None:
    _record(f"grouped{n}")


@pytest.mark.parametrize("n", range(6))
def test_free(n: int) -> None:
    _record(f"free{n}")
