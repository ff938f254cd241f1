"""Create the players and started two-player games a load run plays.

Run by run.py with the benchmark's environment (its own database); prints a JSON
plan on stdout. Setup goes through the services, not the API, so that it is quick
and is not part of what is timed.

    python scripts/load/seed.py --pairs 32 --games-per-pair 6 --tag r1
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, required=True, help="pairs of players; one load client per pair")
    parser.add_argument("--games-per-pair", type=int, required=True)
    parser.add_argument("--tag", required=True, help="makes usernames unique across runs on one database")
    args = parser.parse_args()

    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "splendor_site.settings")
    import django

    django.setup()
    from accounts.services import player_create, token_create
    from games import services
    from games.models import Seat

    def player(username: str) -> tuple[str, str]:
        user = player_create(username=username, email=f"{username}@load.example", display_name=username)
        _, token = token_create(user=user, name="load test", scopes=["read", "play"])
        return user, token

    pairs = []
    for index in range(args.pairs):
        (alice, alice_token), (bob, bob_token) = player(f"{args.tag}p{index}a"), player(f"{args.tag}p{index}b")
        games = []
        for _ in range(args.games_per_pair):
            game = services.game_create(creator=alice, seats=2, invited=[bob])
            services.seat_join(game=game, user=bob)
            seats = Seat.objects.filter(game=game).select_related("user")
            games.append(
                {
                    "id": game.pk,
                    "status": game.status,
                    "to_move": game.to_move,
                    "seats": [{"seat": s.index, "username": s.user.username} for s in seats],
                }
            )
        pairs.append({"tokens": {alice.username: alice_token, bob.username: bob_token}, "games": games})
    json.dump({"pairs": pairs}, sys.stdout)


if __name__ == "__main__":
    main()
