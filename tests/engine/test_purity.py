"""The engine stays pure Python (style rules 1 and 7), its command line works, and
its greedy bot is measurably better than chance."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from engine.bots import make_bot

REPO = Path(__file__).resolve().parents[2]
ENGINE_DIR = Path(engine.__file__).resolve().parent
FORBIDDEN = ("django", "rest_framework", "celery")


def run_python(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=REPO, capture_output=True, text=True, timeout=120, check=False)


def engine_modules() -> list[Path]:
    return sorted(ENGINE_DIR.rglob("*.py"))


def test_importing_the_engine_loads_no_django_rest_framework_or_celery():
    """The engine is pure Python: checked in a fresh interpreter, every engine module imported."""
    names = sorted(
        "engine." + ".".join(p.relative_to(ENGINE_DIR).with_suffix("").parts)
        for p in engine_modules() if p.name not in ("__init__.py", "__main__.py")
    )
    code = (
        "import sys, json, importlib\n"
        "import engine\n"
        f"for name in {names!r}: importlib.import_module(name)\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r})))\n"
    )
    result = run_python("-c", code)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []


def imports_of(path: Path) -> set[str]:
    """Top-level names of the absolute imports in a source file."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("path", engine_modules(), ids=lambda p: str(p.relative_to(ENGINE_DIR)))
def test_engine_modules_import_only_the_standard_library(path):
    """The engine imports no Django, DRF or Celery."""
    outside = {name for name in imports_of(path) if name not in sys.stdlib_module_names and name != "engine"}
    assert not outside, f"{path.name} imports {sorted(outside)}"


@pytest.mark.parametrize("path", engine_modules(), ids=lambda p: str(p.relative_to(ENGINE_DIR)))
def test_engine_modules_never_call_the_global_random_generator(path):
    """Randomness only from private ``random.Random(seed)`` generators, never the global one."""
    calls = [
        node.func.attr
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name) and node.func.value.id == "random"
        and node.func.attr != "Random"
    ]
    assert not calls, f"{path.name} calls random.{', random.'.join(calls)}"


@pytest.mark.parametrize("variant", ["base", "marvel"])
def test_selfplay_from_the_command_line_finishes_its_games_and_reports_json(variant):
    result = run_python("-m", "engine", "selfplay", "--variant", variant, "--players", "2",
                        "--games", "3", "--seed", "1")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert {"games", "finished", "plies", "seconds", "playouts_per_s"} <= set(report)
    assert report["games"] == report["finished"] == 3
    assert report["plies"] > 0 and report["seconds"] >= 0 and report["playouts_per_s"] > 0
    assert report["variant"] == variant


def test_selfplay_refuses_a_bad_argument():
    result = run_python("-m", "engine", "selfplay", "--players", "5")
    assert result.returncode != 0 and "players" in result.stderr


@pytest.mark.parametrize("variant", ["base", "marvel"])
def test_the_greedy_bot_clearly_beats_the_random_one(variant):
    """20 seeded 2-player games, seats alternating; a shared victory counts half."""
    greedy_wins = 0.0
    for game in range(20):
        seed = 1000 + game
        greedy_seat = game % 2
        bots = [make_bot("greedy" if s == greedy_seat else "random", seed * 10 + s) for s in range(2)]
        state = engine.new_game(variant=variant, players=2, seed=seed)
        while not engine.is_over(state):
            seat = engine.to_move(state)
            text = bots[seat].choose(engine.observe(state, seat), [m.text for m in engine.legal_moves(state)])
            state = engine.apply(state, engine.parse_move(state, text))
        winners = engine.outcome(state)["winners"]
        if greedy_seat in winners:
            greedy_wins += 1 / len(winners)
    assert greedy_wins >= 15, f"greedy won {greedy_wins} of 20"


def test_make_bot_refuses_an_unknown_name():
    with pytest.raises(ValueError, match="greedy"):
        make_bot("clever")
