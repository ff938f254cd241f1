"""What one load-test client does, independent of the tool that times it.

A client owns one two-player game and both of its players' tokens. It plays the
game the way a bot would: GET legal-moves with the token of the seat to move, then
POST one of those moves with the version it was chosen on. Every move is sent with
the token of the seat that plays it, so the server sees two players taking turns.

`http` is anything with requests-style ``get(path, headers=...)`` and
``post(path, json=..., headers=...)`` whose answers have ``status_code`` and
``json()``: locust's client, a ``requests.Session`` with a base URL, or a test client
wrapped to look like one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


class Answer(Protocol):
    status_code: int

    def json(self) -> Any: ...


class Http(Protocol):
    def get(self, path: str, **kwargs: Any) -> Answer: ...

    def post(self, path: str, **kwargs: Any) -> Answer: ...


def choose_move(moves: list[str]) -> str:
    """Buy the dearest card on offer, else take gems, else whatever comes first.

    Deterministic, and games end in a few dozen plies, like real ones.
    """
    buys = [m for m in moves if m.startswith("buy ")]
    if buys:
        return buys[-1]
    takes = [m for m in moves if m.startswith("take ") and " return " not in m]
    return takes[len(takes) // 2] if takes else moves[0]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclass
class GameInPlay:
    """A started game: its id and which token plays each seat."""

    game_id: str
    seat_tokens: dict[int, str]
    to_move: int | None
    over: bool = False


class TurnError(RuntimeError):
    """The server refused a step that a correct client never sees refused."""


def game_from_view(view: dict[str, Any], tokens: dict[str, str]) -> GameInPlay:
    """The game as a client tracks it, from the server's game view and username → token."""
    seat_tokens = {seat["seat"]: tokens[seat["username"]] for seat in view["seats"]}
    return GameInPlay(
        game_id=view["id"],
        seat_tokens=seat_tokens,
        to_move=view["to_move"],
        over=view["status"] != "active",
    )


def play_turn(http: Http, game: GameInPlay, **names: str) -> bool:
    """Play one turn of ``game``; False when the game is over.

    ``names`` may give the two requests a label for the load tool
    (``legal_moves_name=``, ``move_name=``), so that every game counts as one row.
    """
    if game.over or game.to_move is None:
        game.over = True
        return False
    token = game.seat_tokens[game.to_move]
    base = f"/api/v1/games/{game.game_id}/"
    legal = http.get(base + "legal-moves/", headers=bearer(token), **_name(names.get("legal_moves_name")))
    if legal.status_code != 200:
        raise TurnError(f"legal-moves answered {legal.status_code}")
    listed = legal.json()
    if not listed["moves"]:
        # Not this seat's turn after all, or the game ended: follow the server.
        game.to_move = listed["to_move"]
        game.over = listed["to_move"] is None
        return not game.over
    body = {"move": choose_move(listed["moves"]), "expected_version": listed["version"]}
    played = http.post(base + "moves/", json=body, headers=bearer(token), **_name(names.get("move_name")))
    if played.status_code != 201:
        raise TurnError(f"the move answered {played.status_code}")
    view = played.json()["game"]
    game.to_move = view["to_move"]
    game.over = view["status"] != "active"
    return not game.over


def _name(name: str | None) -> dict[str, str]:
    return {"name": name} if name else {}
