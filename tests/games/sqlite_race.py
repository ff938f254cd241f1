"""Races one turn between threads on a real SQLite file, as the site runs it.

Run by test_games_concurrency.py in a subprocess, because the test suite's
SQLite database lives in memory, where locking does not work as it does on
disk. Usage: python -m tests.games.sqlite_race DB_PATH BUSY_TIMEOUT_SECONDS THREADS
Prints one JSON object: the responses, the moves and the event versions.
"""

from __future__ import annotations

import json
import logging
import os
import sys


class _CountRetries(logging.Handler):
    count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if "database locked" in record.getMessage():
            _CountRetries.count += 1


def main(path: str, busy_timeout: float, threads: int) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{path}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "splendor_site.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.test.utils import setup_test_environment

    setup_test_environment()  # the test client's host, in-memory email

    call_command("migrate", verbosity=0)
    # A short busy timeout makes writers give up quickly, so the service's own retry must cover it.
    settings.DATABASES["default"]["OPTIONS"]["timeout"] = busy_timeout
    settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = {"anon": "100000/minute", "user": "100000/minute"}
    logging.getLogger("core.db").addHandler(_CountRetries())
    logging.getLogger("core.db").setLevel(logging.INFO)

    from games.models import GameEvent, Move
    from tests.games.game_helpers import make_player, race_same_turn, start_two_player_game

    game = start_two_player_game(make_player("alice"), make_player("bob"))
    rounds = []
    for _ in range(3):
        results = race_same_turn(game, threads)
        rounds.append([[status, body.get("code") if isinstance(body, dict) else body] for status, body in results])
    game.refresh_from_db()
    print(
        json.dumps(
            {
                "rounds": rounds,
                "moves": list(Move.objects.filter(game=game).order_by("ply").values_list("ply", flat=True)),
                "versions": [e.payload["version"] for e in GameEvent.objects.filter(game=game).order_by("id")],
                "version": game.version,
                "retries": _CountRetries.count,
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]), int(sys.argv[3]))
