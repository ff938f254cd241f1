"""Golden playthroughs: fixed bot games written one JSON line per ply.

``scripts/regen_golden.py`` writes them to ``tests/engine/golden/``;
``test_golden.py`` plays them again in memory and compares. A line holds the
position before a move: ply, seat to move, number of legal moves, a SHA-256 of
every seat's ``observe()`` view, the move played, and, every ``VIEW_EVERY``
plies, the views themselves (so a diff shows what changed). The last line is
the end: the outcome and the final views.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import engine
from engine.bots import make_bot

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
VIEW_EVERY = 25

# (variant, players, seed): greedy bots in even seats, random bots in odd ones.
GAMES = [
    ("base", 2, 1),
    ("base", 3, 2),
    ("base", 4, 3),
    ("marvel", 2, 4),
    ("marvel", 3, 6),
    ("marvel", 4, 5),
]


def filename(variant: str, players: int, seed: int) -> str:
    return f"{variant}-{players}p-seed{seed}.jsonl"


def dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _views(state: engine.State) -> list[dict[str, Any]]:
    return [engine.observe(state, seat) for seat in range(state.n)]


def playthrough(variant: str, players: int, seed: int) -> Iterator[str]:
    """The lines of one golden game."""
    bots = [make_bot("greedy" if seat % 2 == 0 else "random", seed * 10 + seat) for seat in range(players)]
    state = engine.new_game(variant=variant, players=players, seed=seed)
    while not engine.is_over(state):
        seat = engine.to_move(state)
        assert seat is not None
        legal = engine.legal_moves(state)
        views = _views(state)
        move = engine.parse_move(state, bots[seat].choose(views[seat], [m.text for m in legal]))
        line: dict[str, Any] = {
            "ply": state.ply,
            "seat": seat,
            "legal": len(legal),
            "views_sha256": hashlib.sha256(dumps(views).encode()).hexdigest(),
            "move": move.text,
        }
        if state.ply % VIEW_EVERY == 0:
            line["views"] = views
        yield dumps(line)
        state = engine.apply(state, move)
    yield dumps({"ply": state.ply, "end": True, "outcome": engine.outcome(state), "views": _views(state)})


def write_all(directory: Path = GOLDEN_DIR) -> list[Path]:
    """(Re)write every golden file; returns their paths."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for variant, players, seed in GAMES:
        path = directory / filename(variant, players, seed)
        path.write_text("\n".join(playthrough(variant, players, seed)) + "\n", encoding="utf-8")
        paths.append(path)
    return paths
