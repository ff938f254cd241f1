"""Self-play and the engine benchmark (``python -m engine selfplay|bench``)."""

from __future__ import annotations

import json
import random
import statistics
import time
from typing import Any

from .bots import make_bot
from .moves import Move
from .notation import parse_move
from .observation import observe
from .play import apply
from .rules import check_invariants, is_over, legal_moves, outcome, to_move
from .state import State, clear_memos, new_game


def _cards_in_play(state: State) -> int:
    return sum(len(d) for d in state.decks) + sum(1 for row in state.market for c in row if c)


def selfplay(variant: str, players: int, games: int, seed: int, bots: list[str],
             check: bool = True) -> dict[str, Any]:
    """Play ``games`` bot games; check every invariant at every ply when ``check``."""
    started = time.perf_counter()
    plies = finished = 0
    failures: list[str] = []
    wins: dict[str, float] = {}
    reasons: dict[str, int] = {}
    for g in range(games):
        game_seed = seed * 1_000_003 + g
        state = new_game(variant=variant, players=players, seed=game_seed)
        total_cards = _cards_in_play(state)
        # rotate who sits first so no bot always opens
        names = [bots[(g + s) % len(bots)] for s in range(players)]
        seats = [make_bot(n, game_seed * 10 + s) for s, n in enumerate(names)]
        while not is_over(state):
            seat = to_move(state)
            assert seat is not None
            legal = legal_moves(state)
            text = seats[seat].choose(observe(state, seat), [str(m) for m in legal])
            move = parse_move(state, text)
            if check:
                if list(legal) != sorted(legal) or not legal:
                    failures.append(f"game {g} ply {state.ply}: legal moves unsorted or empty")
                if move not in legal or parse_move(state, str(move)) != move:
                    failures.append(f"game {g} ply {state.ply}: {move} does not round-trip")
            state = apply(state, move)
            plies += 1
            if check:
                failures.extend(f"game {g} ply {state.ply}: {p}"
                                for p in check_invariants(state, total_cards))
        finished += 1
        result = outcome(state)
        assert result is not None
        reasons[result["reason"]] = reasons.get(result["reason"], 0) + 1
        for s in result["winners"]:
            wins[names[s]] = wins.get(names[s], 0) + 1 / len(result["winners"])
    seconds = time.perf_counter() - started
    return {
        "variant": variant,
        "players": players,
        "bots": bots,
        "games": games,
        "finished": finished,
        "plies": plies,
        "seconds": round(seconds, 3),
        "playouts_per_s": round(finished / seconds, 2) if seconds else None,
        "wins": {k: round(v, 2) for k, v in sorted(wins.items())},
        "reasons": reasons,
        "invariant_failures": len(failures),
        "failures": failures[:20],
    }


def random_playout(variant: str, players: int, seed: int) -> int:
    """One game of uniformly random legal moves (the full list generated every
    ply); returns its number of plies."""
    rng = random.Random(seed)
    state = new_game(variant=variant, players=players, seed=seed)
    plies = 0
    while not state.over:
        moves: tuple[Move, ...] = legal_moves(state)
        state = apply(state, moves[rng.randrange(len(moves))])
        plies += 1
    return plies


def bench(variant: str = "base", players: int = 2, rounds: int = 5, seconds: float = 2.0,
          seed: int = 1) -> dict[str, Any]:
    """Random playouts per second and legal-move generations per second.

    Each figure is the median of ``rounds`` timed rounds of about ``seconds``.
    """
    playout_rates = []
    ply_rates = []
    g = seed * 100_000
    for _ in range(rounds):
        start = time.perf_counter()
        done = plies = 0
        while time.perf_counter() - start < seconds:
            plies += random_playout(variant, players, g)
            g += 1
            done += 1
        elapsed = time.perf_counter() - start
        playout_rates.append(done / elapsed)
        ply_rates.append(plies / elapsed)
    # legal-move generation alone, on positions from real playouts, memos cleared
    positions = []
    rng = random.Random(seed)
    for k in range(20):
        state = new_game(variant=variant, players=players, seed=seed + k)
        while not state.over:
            positions.append(state)
            moves = legal_moves(state)
            state = apply(state, moves[rng.randrange(len(moves))])
    gen_rates = []
    sizes = []
    for _ in range(rounds):
        start = time.perf_counter()
        count = 0
        while time.perf_counter() - start < seconds / 2:
            for pos in positions:
                clear_memos(pos)
                sizes.append(len(legal_moves(pos)))
            count += len(positions)
        gen_rates.append(count / (time.perf_counter() - start))
    return {
        "variant": variant,
        "players": players,
        "rounds": rounds,
        "playouts_per_s": round(statistics.median(playout_rates), 1),
        "playouts_per_s_each_round": [round(r, 1) for r in playout_rates],
        "plies_per_s": round(statistics.median(ply_rates)),
        "legal_move_generations_per_s": round(statistics.median(gen_rates)),
        "mean_legal_moves": round(statistics.mean(sizes), 1),
    }
