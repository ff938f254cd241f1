"""Bots against bots, for their strength (``python -m engine arena``).

Each game seats the bots in turn: with ``k`` seatings (the number of seats), deal
``d`` is played ``k`` times, the bots rotated one seat further each time, so every
bot meets every deal from every seat. Deals and bots' generators come from fixed
seeds, so a run with a playout budget gives the same games on any machine and
with any number of jobs; a budget in seconds depends on the machine's speed.

A bot is named as ``python -m engine arena`` takes it: ``random``, ``greedy``,
``ismcts``, or ``ismcts:N`` for the search bot at ``N`` playouts a move (the run's
own budget otherwise). A game won by one seat is that bot's win; a shared first
place is a draw.
"""

from __future__ import annotations

import math
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Iterator, Sequence

from .bots import BOTS, Bot, ISMCTSBot, make_bot
from .observation import observe
from .play import apply
from .rules import legal_moves, outcome
from .state import new_game


def parse_bot(label: str) -> tuple[str, int | None]:
    """``ismcts:250`` -> (``ismcts``, 250); ``greedy`` -> (``greedy``, None)."""
    name, _, budget = label.partition(":")
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r}; known bots: {', '.join(sorted(BOTS))}")
    if not budget:
        return name, None
    if BOTS[name] is not ISMCTSBot:
        raise ValueError(f"{label!r}: only the search bot takes a budget")
    if not budget.isdigit() or int(budget) < 1:
        raise ValueError(f"{label!r}: the budget after ':' is a number of playouts")
    return name, int(budget)


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    centre = p + z * z / (2 * games)
    spread = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    denominator = 1 + z * z / games
    return (round(max(0.0, (centre - spread) / denominator), 4), round(min(1.0, (centre + spread) / denominator), 4))


def _make(label: str, seed: int, playouts: int | None, seconds: float | None) -> Bot:
    name, own = parse_bot(label)
    if BOTS[name] is not ISMCTSBot:
        return make_bot(name, seed)
    if own is not None:
        return make_bot(name, seed, playouts=own)
    if seconds is not None:
        return make_bot(name, seed, seconds=seconds)
    return make_bot(name, seed, playouts=playouts)


def play_game(job: tuple[str, int, Sequence[str], int, int | None, float | None]) -> dict[str, Any]:
    """One game: ``labels[k]`` sits at seat ``k``. Returns the winners' seats,
    the scores and, for each seat, the seconds its choices took."""
    variant, players, labels, seed, playouts, seconds = job
    state = new_game(variant=variant, players=players, seed=seed)
    bots = [_make(label, seed * 10 + seat, playouts, seconds) for seat, label in enumerate(labels)]
    spent: list[list[float]] = [[] for _ in labels]
    clock: Callable[[], float] = time.perf_counter
    while not state.over:
        seat = state.ply % players
        legal = [str(m) for m in legal_moves(state)]
        started = clock()
        text = bots[seat].choose(observe(state, seat), legal)
        spent[seat].append(clock() - started)
        state = apply(state, text)
    result = outcome(state)
    assert result is not None
    return {"labels": list(labels), "seed": seed, "winners": result["winners"], "scores": result["scores"],
            "reason": str(result["reason"]), "plies": state.ply, "seconds": spent}


def schedule(bots: Sequence[str], players: int, games: int, seed: int) -> Iterator[tuple[int, list[str]]]:
    """(deal seed, the bots by seat) for each game: the seats rotated game by game."""
    if len(bots) != players:
        raise ValueError(f"{players} players need {players} bots, one a seat; {len(bots)} were named")
    for g in range(games):
        turn = g % players
        yield seed * 1_000_003 + g // players, [bots[(turn + k) % players] for k in range(players)]


def arena(bots: Sequence[str], *, variant: str = "base", games: int = 100, playouts: int | None = None,
          seconds: float | None = None, seed: int = 1, jobs: int = 1,
          progress: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Play ``games`` games between ``bots`` (one a seat) and count wins by bot label."""
    players = len(bots)
    for label in bots:
        parse_bot(label)
    if playouts is not None and seconds is not None:
        raise ValueError("give a budget in playouts or in seconds, not both")
    jobs_list = [(variant, players, labels, deal, playouts, seconds)
                 for deal, labels in schedule(bots, players, games, seed)]
    labels_once = list(dict.fromkeys(bots))
    wins = {label: 0 for label in labels_once}
    draws = 0
    per_move: dict[str, list[float]] = {label: [] for label in labels_once}
    started = time.perf_counter()
    results: list[dict[str, Any]] = []
    if jobs > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for game in pool.map(play_game, jobs_list):
                results.append(game)
                if progress:
                    progress(game)
    else:
        for job in jobs_list:
            game = play_game(job)
            results.append(game)
            if progress:
                progress(game)
    for game in results:
        winners = game["winners"]
        if len(winners) == 1:
            wins[game["labels"][winners[0]]] += 1
        else:
            draws += 1
        for seat, spent in enumerate(game["seconds"]):
            per_move[game["labels"][seat]].extend(spent)
    return {
        "bots": list(bots),
        "variant": variant,
        "players": players,
        "budget": {"playouts": playouts} if seconds is None else {"seconds": seconds},
        "games": games,
        "wins": wins,
        "draws": draws,
        "interval95": {label: list(wilson(wins[label], games)) for label in labels_once},
        "seconds_per_move": {label: round(statistics.median(spent), 4) if spent else None
                             for label, spent in per_move.items()},
        "wall_seconds": round(time.perf_counter() - started, 1),
    }
