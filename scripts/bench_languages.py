"""What speaking the player's language costs: reading a move, and writing the turn email.

    python scripts/bench_languages.py [--rounds 7]

Side by side in one process, the cases alternated round by round:

- ``engine.parse_move`` on the same position: canonical English text read in English
  only (the bots' and the API's usual path), the same text read in English and Italian,
  the move in Italian words ("prendi bianco blu verde") and in Latvian words
  ("ņem baltu zilu zaļu"), with and without a trailing courtesy word;
- rendering one turn email (``notifications.email.render.email_render``: subject,
  text and HTML with the board) for an English, an Italian and a Latvian recipient.

Prints the median microseconds (parsing) and milliseconds (rendering) of each, and
each one's ratio to the English case. Not a test and not in CI; docs/benchmarks.md
keeps the figures and the command.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "splendor_site.settings")
os.environ["CELERY_BROKER_URL"] = "memory://"
os.environ["CELERY_TASK_ALWAYS_EAGER"] = "true"
os.environ["EMAIL_BACKEND"] = "django.core.mail.backends.locmem.EmailBackend"
os.environ["DATABASE_URL"] = "sqlite://:memory:"

import django  # noqa: E402

django.setup()

import engine  # noqa: E402
from django.core.management import call_command  # noqa: E402

PARSES = {
    "canonical, English only": ("take WUG", ("en",)),
    "canonical, English + Italian": ("take WUG", ("en", "it")),
    "Italian words": ("prendi bianco blu verde", ("en", "it")),
    "Latvian words": ("ņem baltu zilu zaļu", ("en", "lv")),
    "Latvian words + courtesy": ("ņem baltu zilu zaļu, lūdzu", ("en", "lv")),
}


def _parse_us(state: engine.State, text: str, languages: tuple[str, ...], n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        engine.parse_move(state, text, languages=languages)
    return (time.perf_counter() - start) / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--parses", type=int, default=2000)
    parser.add_argument("--renders", type=int, default=20)
    args = parser.parse_args()

    state = engine.new_game("base", 2, seed=7)
    parse_times: dict[str, list[float]] = {name: [] for name in PARSES}

    call_command("migrate", verbosity=0)
    from games import services
    from notifications.email.render import email_render
    from notifications.models import Notification
    from tests.games.game_helpers import make_player

    alice, bob = make_player("alice"), make_player("bob")
    game = services.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    services.seat_join(game=game, user=bob)
    game.refresh_from_db()
    notification = Notification.objects.filter(kind="your_turn").order_by("-id").first()
    assert notification is not None, "no turn email was made"
    render_times: dict[str, list[float]] = {language: [] for language in ("en", "it", "lv")}

    for _ in range(args.rounds):
        for name, (text, languages) in PARSES.items():
            parse_times[name].append(_parse_us(state, text, languages, args.parses))
        for language in render_times:
            player = notification.user.player
            player.language = language
            player.save(update_fields=["language"])
            notification.refresh_from_db()
            start = time.perf_counter()
            for _ in range(args.renders):
                email_render(notification)
            render_times[language].append((time.perf_counter() - start) / args.renders * 1e3)

    base = statistics.median(parse_times["canonical, English only"])
    print(f"parse_move, median of {args.rounds} rounds of {args.parses}:")
    for name, times in parse_times.items():
        median = statistics.median(times)
        print(f"  {name:32s} {median:8.1f} us   x{median / base:.2f}")
    base = statistics.median(render_times["en"])
    print(f"turn email render, median of {args.rounds} rounds of {args.renders}:")
    for language, times in render_times.items():
        median = statistics.median(times)
        print(f"  {language:32s} {median:8.2f} ms   x{median / base:.2f}")


if __name__ == "__main__":
    main()
