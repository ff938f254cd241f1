"""Regenerate the engine's golden playthroughs (tests/engine/golden/*.jsonl).

Run from the repository root, after a change that is *meant* to alter how the
engine or its bots play, and review the diff before committing it:

    python scripts/regen_golden.py
    git diff --stat tests/engine/golden/

tests/engine/test_golden.py replays the same games in memory and fails at the
first ply that differs from these files. Which games are recorded, and what a
line holds, is in tests/engine/playthroughs.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.engine.playthroughs import write_all


def main() -> int:
    for path in write_all():
        size = path.stat().st_size
        lines = path.read_text(encoding="utf-8").count("\n")
        print(f"{path.relative_to(ROOT)}: {lines} lines, {size // 1024} KiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
