"""How long a Swiss round takes to pair (tournaments.pairing), docs/benchmarks.md,
"Tournament pairing".

A tournament of PLAYERS players is played for ROUNDS rounds of random results
(places drawn at random at every table, prestige 0-20); each round's pairing is
timed. One run gives the median of its rounds; the figure printed per seat count
is the median of the runs' medians, with the slowest round seen.

    python scripts/bench_pairing.py --players 64 --rounds 5 --repeats 5
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tournaments.pairing import RoundResult, TableResult, history, standings, swiss_round  # noqa: E402


def points_for_place(place: int, table_size: int) -> float:
    return float(table_size - place)


def one_tournament(players: int, seats: int, rounds: int, seed: int) -> list[float]:
    """The seconds each round's pairing took."""
    rng = random.Random(seed)
    ratings = {player: float(rng.randint(1200, 1800)) for player in range(1, players + 1)}
    played: list[RoundResult] = []
    times = []
    for number in range(rounds):
        table = standings(ratings, played, points_for_place, seed=seed)
        met, byes = history(played)
        started = time.perf_counter()
        paired = swiss_round([line.as_swiss_player() for line in table], met=met, had_bye=byes,
                             seats=seats, seed=seed + number)  # fmt: skip
        times.append(time.perf_counter() - started)
        results = []
        for group in paired.tables:
            places = list(range(1, len(group) + 1))
            rng.shuffle(places)
            results.append(TableResult(dict(zip(group, places, strict=True)),
                                       {player: rng.randint(0, 20) for player in group}))  # fmt: skip
        played.append(RoundResult(tuple(results), paired.bye))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 3, 4])
    arguments = parser.parse_args()
    for seats in arguments.seats:
        medians, slowest = [], 0.0
        for repeat in range(arguments.repeats):
            times = one_tournament(arguments.players, seats, arguments.rounds, seed=repeat)
            medians.append(statistics.median(times))
            slowest = max(slowest, *times)
        print(f"{arguments.players} players, {seats} seats, {arguments.rounds} rounds x {arguments.repeats} runs: "
              f"median round {statistics.median(medians) * 1000:.0f} ms, slowest round {slowest * 1000:.0f} ms")


if __name__ == "__main__":
    main()
