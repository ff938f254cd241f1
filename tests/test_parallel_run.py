"""The parallel run (pytest-xdist) runs every test the single-process run does."""

from __future__ import annotations

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
