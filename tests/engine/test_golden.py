"""Golden playthroughs: the recorded bot games are played again and must match
line for line. After an intended change of play, regenerate them with
``python scripts/regen_golden.py`` and review the diff."""

from __future__ import annotations

import json

import pytest

from tests.engine.playthroughs import GAMES, GOLDEN_DIR, filename, playthrough


def first_difference(expected: list[str], actual: list[str]) -> str | None:
    """Where two playthroughs part, in words, or None when they agree."""
    for index, (want, got) in enumerate(zip(expected, actual)):
        if want != got:
            w, g = json.loads(want), json.loads(got)
            keys = sorted(k for k in set(w) | set(g) if w.get(k) != g.get(k))
            lines = [f"first difference at ply {w.get('ply')} (line {index + 1}): {', '.join(keys)}"]
            for key in keys:
                if key != "views":
                    lines.append(f"  {key}: golden {w.get(key)!r}, now {g.get(key)!r}")
            return "\n".join(lines)
    if len(expected) != len(actual):
        return f"the golden game has {len(expected)} lines, the game played now {len(actual)}"
    return None


@pytest.mark.parametrize("variant, players, seed", GAMES, ids=[filename(*g) for g in GAMES])
def test_a_recorded_game_plays_out_the_same(variant, players, seed):
    path = GOLDEN_DIR / filename(variant, players, seed)
    assert path.exists(), f"{path.name} is missing: run python scripts/regen_golden.py"
    expected = path.read_text(encoding="utf-8").splitlines()
    actual = list(playthrough(variant, players, seed))
    difference = first_difference(expected, actual)
    assert difference is None, difference + "\n(if the change is intended: python scripts/regen_golden.py)"


def test_every_golden_file_belongs_to_a_recorded_game():
    """A stale file would never be checked."""
    known = {filename(*g) for g in GAMES}
    assert {p.name for p in GOLDEN_DIR.glob("*.jsonl")} == known


def test_first_difference_names_the_ply_and_the_field():
    a = ['{"ply":0,"move":"take WUG"}', '{"ply":1,"move":"take RR"}']
    b = ['{"ply":0,"move":"take WUG"}', '{"ply":1,"move":"take KK"}']
    assert first_difference(a, b) == ("first difference at ply 1 (line 2): move\n"
                                      "  move: golden 'take RR', now 'take KK'")
    assert first_difference(a, a) is None
    assert "2 lines" in first_difference(a, a[:1])
