"""The cost of a whole review through the services, beside the search alone.

    python scripts/bench_review_service.py [--players 2] [--games 3] [--playouts N]

On a fresh SQLite database of its own (a temporary file, migrated first), plays
``--games`` games of ``--players`` seats to the end with the engine's greedy bot
through the services, then for each game times, in this one process (one core):

- the search alone: ``engine.review.review_position`` on every position, rebuilt
  from the move log as the task rebuilds it, with the seeds the service uses
  (reviews.services.review_seed);
- the whole review through the services: ``reviews.services.review_request`` with
  tasks run inline, each position's task rebuilding its state from the move log,
  searching, storing its row and queueing the next, until the review is done.

Prints each game's moves, both times (which of the two runs first alternates from
game to game), the time per position, and the services' own time: the whole review's
less the search within it (timed around each call), which the noise between two
runs of the search does not blur. ``--playouts`` defaults to REVIEW_PLAYOUTS (the engine's
DEFAULT_REVIEW_PLAYOUTS unless the environment sets it).

Not a test and not in CI. docs/benchmarks.md, "Reviews", keeps the figures and the command.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
_DATABASE = Path(tempfile.mkdtemp(prefix="bench-review-")) / "bench.sqlite3"
os.environ["DATABASE_URL"] = f"sqlite:///{_DATABASE}"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "splendor_site.settings")
os.environ["CELERY_BROKER_URL"] = "memory://"
os.environ["CELERY_TASK_ALWAYS_EAGER"] = "true"
os.environ["EMAIL_BACKEND"] = "django.core.mail.backends.locmem.EmailBackend"
os.environ["PROMETHEUS_MULTIPROC_DIR"] = ""

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402

import engine  # noqa: E402
from accounts.services import player_create  # noqa: E402
from engine.bots import GreedyBot  # noqa: E402
from engine.review import review_position  # noqa: E402
from games import services as game_services  # noqa: E402
from games.models import Game, Move, Seat  # noqa: E402
from games.replays import state_after  # noqa: E402
from reviews import services  # noqa: E402
from reviews.models import GameReview  # noqa: E402


def finished_game(players: list[Any], number: int) -> Game:
    creator, *invited = players
    game = game_services.game_create(creator=creator, seats=len(players), invited=invited)
    for user in invited:
        game_services.seat_join(game=game, user=user)
    while True:
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return game
        assert game.state is not None  # the game is active
        state = engine.from_dict(game.state)
        seat = engine.to_move(state)
        assert seat is not None
        legal = [engine.format_move(move) for move in engine.legal_moves(state)]
        text = GreedyBot(seed=number * 10 + seat).choose(engine.observe(state, seat), legal)
        mover = Seat.objects.get(game=game, index=seat).user
        game_services.move_submit(game_id=game.pk, user=mover, text=text, expected_version=game.version)


def search_alone(game: Game, playouts: int) -> float:
    """Each position's search alone, on a state rebuilt from the start as the task
    rebuilds it (a state that went through earlier searches may carry their caches)."""
    texts = list(Move.objects.filter(game=game).order_by("ply").values_list("text", flat=True))
    started = time.process_time()
    for ply, text in enumerate(texts):
        state = state_after(game, texts[:ply])
        assert state is not None
        review_position(state, text, playouts=playouts, seed=services.review_seed(game_id=game.pk, ply=ply))
    return time.process_time() - started


def through_services(game: Game, user: Any) -> tuple[float, float]:
    """The whole review's CPU seconds, and those spent in the search within it."""
    searched = [0.0]

    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            return review_position(*args, **kwargs)
        finally:
            searched[0] += time.process_time() - started

    services.review_position = timed  # type: ignore[attr-defined]  # the name the service calls
    try:
        started = time.process_time()
        services.review_request(game_id=game.pk, user=user)
        seconds = time.process_time() - started
    finally:
        services.review_position = review_position  # type: ignore[attr-defined]
    assert GameReview.objects.get(game=game).status == GameReview.Status.DONE
    return seconds, searched[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--playouts", type=int, default=None)
    args = parser.parse_args()
    if args.playouts:
        settings.REVIEW_PLAYOUTS = args.playouts
    playouts = settings.REVIEW_PLAYOUTS
    logging.getLogger("celery").setLevel(logging.WARNING)  # a line per task otherwise
    call_command("migrate", verbosity=0)
    settings.REVIEWS_PER_DAY = 10_000
    players = [
        player_create(username=f"bench{n}", email=f"bench{n}@example.com", display_name=f"Bench {n}")
        for n in range(args.players)
    ]
    print(f"{args.players} players, {playouts} playouts a position, CPU seconds of this process")
    print("game  moves  search alone  through services  per position  the services' own (outside the search)")
    per_position = []
    for number in range(args.games):
        game = finished_game(players, number)
        moves = Move.objects.filter(game=game).count()
        # The first of two runs over the same positions pays for warming the engine's
        # caches: which goes first alternates from game to game.
        if number % 2:
            whole, searched = through_services(game, players[0])
            alone = search_alone(game, playouts)
        else:
            alone = search_alone(game, playouts)
            whole, searched = through_services(game, players[0])
        per_position.append(whole / moves)
        own = whole - searched
        print(f"{number + 1:>4}  {moves:>5}  {alone:>11.2f}s  {whole:>15.2f}s  {whole / moves:>11.3f}s  "
              f"{own:>6.2f}s ({own / whole:.1%}, {own / moves * 1000:.1f} ms a position)")
    print(f"median per position through the services: {statistics.median(per_position):.3f}s; "
          f"a 60-move game: {60 * statistics.median(per_position):.1f}s")


if __name__ == "__main__":
    main()
