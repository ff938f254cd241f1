"""Where one turn's server time goes: CPU and SQL queries per request, in process.

    python scripts/load/profile_requests.py
    python scripts/load/profile_requests.py --profile move --top 40
    python scripts/load/profile_requests.py --db-name big --existing --history 1000

--existing measures on a database that is already there (say one filled by
``manage.py bench_make_games``, as scripts/load/bench_size.py does) and keeps it;
--history N first hands the two measured players the seats of N finished games
each, so that their own history is as large as the site's.

Makes its own PostgreSQL database (dropped at the end), plays --games games
through Django's test client with the same client logic as the load run, and
prints, for GET legal-moves, POST moves, GET /me/ and GET /games/{id}/, the
median and p95 CPU milliseconds of the process per request (time.process_time,
so other work on a shared machine inflates it much less than wall time) and the
number of SQL queries of one such request. --profile runs cProfile, on the CPU
clock, around one kind of request and prints the functions that cost most.
No HTTP server and no network: only the database on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import secrets
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
KINDS = ("legal", "move", "me", "game")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=3, help="games played to the end and measured (default 3)")
    parser.add_argument("--profile", choices=KINDS, help="cProfile this kind of request")
    parser.add_argument("--top", type=int, default=30, help="functions listed by --profile (default 30)")
    parser.add_argument("--sort", default="cumulative", help="pstats sort key for --profile (default cumulative)")
    parser.add_argument("--postgres", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--db-name", default="splendor_profile_requests")
    parser.add_argument("--cache-url", default="redis://127.0.0.1:6379/14")
    parser.add_argument("--existing", action="store_true", help="use --db-name as it is, and keep it")
    parser.add_argument("--history", type=int, default=0, help="finished games given to each measured player")
    args = parser.parse_args()

    from run import database_url, recreate_database

    if not args.existing:
        recreate_database(args.postgres, args.db_name)
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "splendor_site.settings",
            "DATABASE_URL": database_url(args.postgres, args.db_name),
            "DEBUG": "false",
            "SECRET_KEY": "profile-only-" + secrets.token_hex(24),
            "ALLOWED_HOSTS": "127.0.0.1",
            "SECURE_SSL_REDIRECT": "false",
            "API_THROTTLE_USER_RATE": "1000000/minute",
            "API_THROTTLE_ANON_RATE": "1000000/minute",
            "CACHE_URL": args.cache_url,
            "LOG_LEVEL": "WARNING",
        }
    )
    sys.path.insert(0, str(ROOT))
    try:
        measure(args)
    finally:
        from django.db import connections

        connections.close_all()
        if not args.existing:
            recreate_database(args.postgres, args.db_name, drop_only=True)


def measure(args: argparse.Namespace) -> None:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from game_client import choose_move

    from accounts.services import player_create, token_create
    from games import services
    from games.models import Seat

    call_command("migrate", verbosity=0)
    run = secrets.token_hex(3)  # a database kept between runs gets new players each run
    alice = player_create(username=f"alice{run}", email=f"alice{run}@example.com")
    bob = player_create(username=f"bob{run}", email=f"bob{run}@example.com")
    if args.history:
        give_history(alice.pk, bob.pk, args.history)
    tokens = {user.pk: token_create(user=user, name="profile", scopes=["read", "play"])[1] for user in (alice, bob)}
    client = Client(HTTP_HOST="127.0.0.1")
    cpu: dict[str, list[float]] = {kind: [] for kind in KINDS}
    queries: dict[str, int] = {}
    profiler = cProfile.Profile(time.process_time)

    seen: dict[str, int] = dict.fromkeys(KINDS, 0)

    def timed(kind: str, request: Callable[..., Any], *request_args: Any, **kwargs: Any) -> Any:
        seen[kind] += 1
        if seen[kind] == 3:  # past the once-a-minute writes (the token's last use) of the first requests
            with CaptureQueriesContext(connection) as captured:
                answer = request(*request_args, **kwargs)
            queries[kind] = len(captured.captured_queries)
            return answer
        profiling = kind == args.profile
        started = time.process_time()
        if profiling:
            profiler.enable()
        answer = request(*request_args, **kwargs)
        if profiling:
            profiler.disable()
        cpu[kind].append(time.process_time() - started)
        return answer

    for number in range(args.games + 1):
        if number == 1:  # the first game warms up and is not counted
            for times in cpu.values():
                times.clear()
            profiler = cProfile.Profile(time.process_time)
        game = services.game_create(creator=alice, seats=2, invited=[bob])
        services.seat_join(game=game, user=bob)
        seat_tokens = {seat.index: tokens[seat.user_id] for seat in Seat.objects.filter(game=game)}
        to_move, url = game.to_move, f"/api/v1/games/{game.pk}/"
        while to_move is not None:
            auth = {"HTTP_AUTHORIZATION": f"Bearer {seat_tokens[to_move]}"}
            legal = timed("legal", client.get, url + "legal-moves/", **auth).json()
            body = {"move": choose_move(legal["moves"]), "expected_version": legal["version"]}
            played = timed("move", client.post, url + "moves/", body, content_type="application/json", **auth)
            assert played.status_code == 201, played.content
            view = played.json()["game"]
            to_move = view["to_move"] if view["status"] == "active" else None
            timed("me", client.get, "/api/v1/me/", **auth)
            timed("game", client.get, url, **auth)
    labels = {"legal": "GET legal-moves", "move": "POST moves", "me": "GET /me/", "game": "GET /games/{id}/"}
    print(f"{'request':<18} {'count':>6} {'cpu p50 ms':>11} {'cpu p95 ms':>11} {'queries':>8}")
    for kind in KINDS:
        times = sorted(cpu[kind])
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        print(
            f"{labels[kind]:<18} {len(times):>6} {1000 * statistics.median(times):>11.1f} {1000 * p95:>11.1f} "
            f"{queries[kind]:>8}"
        )
    turn = statistics.median(cpu["legal"]) + statistics.median(cpu["move"])
    print(f"one turn (legal-moves + move): {1000 * turn:.1f} ms of CPU in the web process")
    if args.profile:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats(args.sort).print_stats(args.top)
        print(out.getvalue())


def give_history(first: int, second: int, count: int) -> None:
    """The two players take the seats of ``count`` finished two-seat games that neither
    holds yet, as if they had played them against each other."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id FROM games_game WHERE status = 'finished' AND seat_count = 2 AND id NOT IN "
            "(SELECT game_id FROM games_seat WHERE user_id IN (%s, %s)) ORDER BY id LIMIT %s",
            [first, second, count],
        )
        games = [row[0] for row in cursor.fetchall()]
        for index, user in enumerate((first, second)):
            cursor.execute(
                'UPDATE games_seat SET user_id = %s WHERE "index" = %s AND game_id = ANY(%s)', [user, index, games]
            )
    if len(games) < count:
        print(f"only {len(games)} finished games to hand over (asked for {count})", file=sys.stderr)


if __name__ == "__main__":
    main()
