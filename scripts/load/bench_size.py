"""A move's CPU and queries on a small site and a big one, side by side.

    python scripts/load/bench_size.py
    python scripts/load/bench_size.py --finished 100000 --accounts 10000 --history 1000 --rounds 3

Makes two PostgreSQL databases of its own: a small one (--small-finished finished
games among --small-accounts accounts) and a big one (--finished finished games
among --accounts accounts), each filled once by ``manage.py bench_make_games``.
Then, --rounds times, it runs profile_requests.py on each in turn (the same code,
alternated, each going first in turn, so that a busy machine weighs on both alike); each run's two measured
players first take the seats of --history finished games each. It prints every run
and the medians of the runs' p50s, per request: CPU milliseconds of the web process
and SQL queries. GET /me/, which reads nothing from the database once its token is
kept, shows how much the machine's own noise moves the two columns apart. The
databases are vacuumed once filled, and dropped at the end unless --keep.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
ROW = re.compile(r"^(GET legal-moves|POST moves|GET /me/|GET /games/\{id\}/)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)$")


def fill(args: argparse.Namespace, name: str, finished: int, accounts: int) -> None:
    from run import database_url, recreate_database

    recreate_database(args.postgres, name)
    env = {**os.environ, "DATABASE_URL": database_url(args.postgres, name), "DJANGO_SETTINGS_MODULE": "splendor_site.settings"}
    started = time.perf_counter()
    for command in (["migrate", "--verbosity", "0"], ["bench_make_games", "--active", "0", "--finished", str(finished),
                                                      "--players", str(accounts)]):  # fmt: skip
        subprocess.run([sys.executable, str(ROOT / "manage.py"), *command], env=env, check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
    # Vacuumed now, so that autovacuum does not go through the new rows while the
    # other database is measured.
    import psycopg

    with psycopg.connect(database_url(args.postgres, name), autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
    print(f"{name}: {finished} finished games, {accounts} accounts ({time.perf_counter() - started:.0f} s)", flush=True)


def measure(args: argparse.Namespace, name: str) -> dict[str, tuple[float, int]]:
    command = [sys.executable, str(HERE / "profile_requests.py"), "--db-name", name, "--existing",
               "--games", str(args.games), "--history", str(args.history), "--postgres", args.postgres]  # fmt: skip
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    rows = {}
    for line in out.splitlines():
        match = ROW.match(line.strip())
        if match:
            rows[match[1]] = (float(match[3]), int(match[5]))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--finished", type=int, default=100_000)
    parser.add_argument("--accounts", type=int, default=10_000)
    parser.add_argument("--small-finished", type=int, default=10)
    parser.add_argument("--small-accounts", type=int, default=10)
    parser.add_argument("--history", type=int, default=1000, help="finished games given to each measured player")
    parser.add_argument("--games", type=int, default=3, help="games played per run (profile_requests.py --games)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--keep", action="store_true", help="keep the two databases")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    sizes = {"small": ("splendor_size_small", args.small_finished, args.small_accounts),
             "big": ("splendor_size_big", args.finished, args.accounts)}  # fmt: skip
    from run import recreate_database

    try:
        for name, finished, accounts in sizes.values():
            fill(args, name, finished, accounts)
        runs: dict[str, list[dict[str, tuple[float, int]]]] = {size: [] for size in sizes}
        for number in range(args.rounds):
            order = list(sizes.items())
            for size, (name, _, _) in order if number % 2 == 0 else order[::-1]:  # each goes first in turn
                rows = measure(args, name)
                runs[size].append(rows)
                shown = ", ".join(f"{request} {cpu:.1f} ms/{queries}q" for request, (cpu, queries) in rows.items())
                print(f"round {number + 1}, {size}: {shown}", flush=True)
        print()
        print(f"{'request':<18} {'small CPU ms':>12} {'big CPU ms':>11} {'big/small':>9} {'queries small':>14} {'big':>4}")
        for request in runs["small"][0]:
            small = statistics.median(run[request][0] for run in runs["small"])
            big = statistics.median(run[request][0] for run in runs["big"])
            queries = [max(run[request][1] for run in runs[size]) for size in sizes]
            print(f"{request:<18} {small:>12.1f} {big:>11.1f} {big / small:>9.2f} {queries[0]:>14} {queries[1]:>4}")
    finally:
        if not args.keep:
            for name, _, _ in sizes.values():
                recreate_database(args.postgres, name, drop_only=True)


if __name__ == "__main__":
    main()
