"""Players, started two-player games and one webhook per player for a turn_cost.py run.

Run by turn_cost.py with the environment of the code being measured (its own
database); TURN_COST_CODE names that code's folder, which is imported first, so
that the code before a change can be seeded by this script too. Prints a JSON
plan on stdout: per game, its id, the seat to move, and each seat's token.

    TURN_COST_CODE=. python scripts/load/turn_cost_seed.py --games 60 --webhook-url http://127.0.0.1:9000/
"""

from __future__ import annotations

import argparse
import json
import os
import sys


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, required=True)
    parser.add_argument("--webhook-url", required=True)
    args = parser.parse_args()

    sys.path.insert(0, os.path.abspath(os.environ.get("TURN_COST_CODE", ".")))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "splendor_site.settings")
    import django

    django.setup()
    from accounts.services import player_create, token_create
    from games import services
    from games.models import Seat
    from webhooks.services import endpoint_create

    def player(username: str) -> tuple[object, str]:
        user = player_create(username=username, email=f"{username}@turns.example", display_name=username.title())
        _, token = token_create(user=user, name="turn cost", scopes=["read", "play"])
        endpoint_create(owner=user, url=f"{args.webhook_url.rstrip('/')}/{username}")
        return user, token

    games = []
    for index in range(args.games):
        (alice, alice_token), (bob, bob_token) = player(f"tc{index}a"), player(f"tc{index}b")
        game = services.game_create(creator=alice, seats=2, invited=[bob])
        services.seat_join(game=game, user=bob)
        game.refresh_from_db()
        tokens = {alice.pk: alice_token, bob.pk: bob_token}  # type: ignore[attr-defined]
        seats = {str(s.index): tokens[s.user_id] for s in Seat.objects.filter(game=game)}
        games.append({"id": game.pk, "version": game.version, "to_move": game.to_move, "tokens": seats})
    json.dump({"games": games}, sys.stdout)


if __name__ == "__main__":
    main()
