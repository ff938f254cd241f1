"""The fixed 2-player lines the game page's browser test clicks through.

Two greedy bots (``engine.bots``) play from a seed; the test clicks, on each
player's own page, the move the bot chose from the page's list of legal moves.
``SEEDS`` were found by running this module (``python -m tests.browser.game_page_line
[base|marvel] [first seed] [how many]``): per variant a seed whose greedy line has a
turn that must return tokens and a turn that must choose between two nobles (Marvel:
locations), and is short enough to click through in a minute.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import engine
from engine.bots import make_bot

# base: 52 turns; marvel: 60 turns. Each with a return of tokens and a choice of tiles.
SEEDS = {"base": 33, "marvel": 181}
SEED = SEEDS["base"]


@dataclass(frozen=True)
class Turn:
    seat: int
    text: str
    legal: tuple[str, ...]

    @property
    def returns_tokens(self) -> bool:
        return " return " in self.text

    @property
    def chooses_noble(self) -> bool:
        """A noble (Marvel: a location) chosen among several that the move earns."""
        return (" noble " in self.text or " location " in self.text) and sum(
            1 for other in self.legal if other.split()[:2] == self.text.split()[:2]
        ) > 1


def greedy_line(seed: int, *, variant: str = "base", limit: int = 200) -> list[Turn]:
    """Every turn of a 2-player game of ``variant`` between greedy bots from ``seed``."""
    state = engine.new_game(variant=variant, players=2, seed=seed)
    bots = [make_bot("greedy", 1), make_bot("greedy", 2)]
    turns: list[Turn] = []
    while not engine.is_over(state) and len(turns) < limit:
        seat = engine.to_move(state)
        assert seat is not None
        legal = tuple(engine.format_move(m) for m in engine.legal_moves(state))
        text = bots[seat].choose(engine.observe(state, seat), list(legal))
        turns.append(Turn(seat, text, legal))
        state = engine.apply(state, text)
    return turns


def search(start: int, count: int, variant: str = "base") -> list[tuple[int, int]]:
    """Seeds in ``[start, start + count)`` whose line returns tokens and chooses a tile, with their length."""
    found = []
    for seed in range(start, start + count):
        line = greedy_line(seed, variant=variant)
        if any(t.returns_tokens for t in line) and any(t.chooses_noble for t in line):
            found.append((seed, len(line)))
    return sorted(found, key=lambda f: f[1])


if __name__ == "__main__":
    variant = sys.argv[1] if len(sys.argv) > 1 else "base"
    first = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    for seed, length in search(first, int(sys.argv[3]) if len(sys.argv) > 3 else 500, variant)[:10]:
        print(seed, length)
