"""Locust users for the REST API load run; run.py starts locust with this file.

- Player: owns one pair of players and their started games, and plays them turn
  after turn (GET legal-moves, POST the move with expected_version), at
  LOAD_TURN_RATE turns per second, or with no pause when that is 0. When a game
  ends it takes the next one, and makes a new one through the API when its share
  runs out.
- Watcher: a trivial authenticated read at a steady rate, alternating GET
  /api/v1/me/ and GET /api/v1/games/{id}/, to compare with the moves in the same run.

Configured by environment variables that run.py sets: LOAD_PLAN (the JSON file
seed.py wrote), LOAD_PLAYERS, LOAD_TURN_RATE (turns per second per player),
LOAD_WATCHERS, LOAD_WATCH_RATE (requests per second per watcher).
"""

from __future__ import annotations

import itertools
import json
import os
import random
from pathlib import Path
from typing import Any

from game_client import GameInPlay, TurnError, bearer, game_from_view, play_turn
from locust import FastHttpUser, constant, constant_throughput, task

PLAN: dict[str, Any] = json.loads(Path(os.environ["LOAD_PLAN"]).read_text())
_pairs = itertools.count()

# Request names group every game's requests into one row of the statistics.
LEGAL_MOVES = "GET /games/{id}/legal-moves/"
MOVE = "POST /games/{id}/moves/"
ME = "GET /me/"
GAME = "GET /games/{id}/"


TURN_RATE = float(os.environ.get("LOAD_TURN_RATE", "0"))


class Player(FastHttpUser):
    fixed_count = int(os.environ.get("LOAD_PLAYERS", "16"))
    wait_time = constant_throughput(TURN_RATE) if TURN_RATE > 0 else constant(0)

    def on_start(self) -> None:
        pair = PLAN["pairs"][next(_pairs) % len(PLAN["pairs"])]
        self.tokens: dict[str, str] = pair["tokens"]
        self.games = iter(pair["games"])
        self.game = self._next_game()

    def _next_game(self) -> GameInPlay:
        view = next(self.games, None)
        return game_from_view(view or self._new_game(), self.tokens)

    def _new_game(self) -> dict[str, Any]:
        (_, creator_token), (opponent, opponent_token) = self.tokens.items()
        created = self.client.post(
            "/api/v1/games/", json={"invited": [opponent]}, headers=bearer(creator_token), name="POST /games/"
        )
        game_id = created.json()["id"]
        joined = self.client.post(
            f"/api/v1/games/{game_id}/join/", json={}, headers=bearer(opponent_token), name="POST /games/{id}/join/"
        )
        return joined.json()

    @task
    def turn(self) -> None:
        try:
            if not play_turn(self.client, self.game, legal_moves_name=LEGAL_MOVES, move_name=MOVE):
                self.game = self._next_game()
        except TurnError:
            # Never expected (one client per game); follow the server's word and go on.
            token = next(iter(self.game.seat_tokens.values()))
            again = self.client.get(
                f"/api/v1/games/{self.game.game_id}/", headers=bearer(token), name="GET /games/{id}/ (resync)"
            )
            self.game = game_from_view(again.json(), self.tokens) if again.status_code == 200 else self._next_game()


class Watcher(FastHttpUser):
    fixed_count = int(os.environ.get("LOAD_WATCHERS", "4"))
    wait_time = constant_throughput(float(os.environ.get("LOAD_WATCH_RATE", "5")))

    def on_start(self) -> None:
        pair = random.choice(PLAN["pairs"])
        self.token = next(iter(pair["tokens"].values()))
        self.game_ids = [game["id"] for game in pair["games"]]
        self.reads = itertools.cycle([self.me, self.a_game])

    def me(self) -> None:
        self.client.get("/api/v1/me/", headers=bearer(self.token), name=ME)

    def a_game(self) -> None:
        self.client.get(f"/api/v1/games/{random.choice(self.game_ids)}/", headers=bearer(self.token), name=GAME)

    @task
    def read(self) -> None:
        next(self.reads)()
