#!/usr/bin/env bash
# The engine installs on its own (engine/pyproject.toml: distribution splendor-engine,
# import name engine): into a fresh virtual environment, from a copy of engine/ alone
# (so nothing outside that folder is needed, and the checkout gets no build folders),
# then imported from outside the checkout; it plays a whole game with its bots, and
# Django is not there. Usage: scripts/check_engine_dist.sh [python]
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${1:-python3}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

mkdir "$work/src"
cp -R engine "$work/src/engine"
rm -rf "$work/src/engine/build" "$work/src/engine/"*.egg-info
find "$work/src/engine" -name __pycache__ -prune -exec rm -rf {} +

"$PYTHON" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check "$work/src/engine"

cd "$work"
"$work/venv/bin/python" - <<'PY'
import importlib.metadata
import importlib.util
import sys

import engine
from engine.bots import make_bot

dist = importlib.metadata.distribution("splendor-engine")
assert dist.version == "0.1.0", dist.version
assert not dist.requires, f"the engine depends on nothing, not {dist.requires}"
assert engine.__file__ and "site-packages" in engine.__file__, engine.__file__

for variant in ("base", "marvel"):
    state = engine.new_game(variant=variant, players=3, seed=11)
    bots = [make_bot("greedy", seed=s) for s in range(3)]
    plies = 0
    while not engine.is_over(state):
        seat = engine.to_move(state)
        assert seat is not None
        move = bots[seat].choose(engine.observe(state, seat), engine.legal_moves(state))
        state = engine.apply(state, move)
        plies += 1
    result = engine.outcome(state)
    assert result is not None and result["winners"], result
    print(f"engine dist: a {variant} game of {plies} plies, won by seat(s) {result['winners']} ({result['reason']})")

for name in ("django", "rest_framework", "celery"):
    assert importlib.util.find_spec(name) is None, f"{name} is importable beside the engine alone"
    assert name not in sys.modules, f"{name} was loaded"
print("engine dist: installed alone, no django, rest_framework or celery")
PY
