"""Boards and results of real games match the schema's Board and GameResult.

games/serializers.py describes ``board`` and ``result`` with serializers that
never run (the JSON goes out as the engine and the services made it), so only a
check like this one ties the description to the real thing. Games of both
variants with 2, 3 and 4 players are played through the services by the engine's
greedy bot, each seat first reserving a card blind; before every move the board
is read through the API by the seat to move and by a spectator, and checked with
jsonschema against the components of the generated OpenAPI document.

Personas:
- alice, bob, charlie and dana take the seats, as many as a game has;
- eve holds no seat: she reads the spectator view, where a blind reservation
  shows only its level.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator
from jsonschema import Draft4Validator
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry
from referencing.jsonschema import DRAFT4
from rest_framework.test import APIClient

import engine
from engine.bots import make_bot
from games import services
from games.models import Game, Seat
from games.board_serializers import BOARD_END_REASONS
from tests.games.game_helpers import client_for, make_player

GAME = "/api/v1/games/{}/"
EXPORT = "/api/v1/games/{}/export/"
SEATED = ("alice", "bob", "charlie", "dana")
OPENAPI = "urn:splendor:openapi"


# --- the schema as a validator ----------------------------------------------------


def as_json_schema(node: Any) -> Any:
    """An OpenAPI 3.0 schema object as JSON Schema: ``nullable: true`` becomes a
    null alternative. ``discriminator`` is left in: it only guides a client's
    choice, and jsonschema ignores it (``oneOf`` still decides)."""
    if isinstance(node, list):
        return [as_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: as_json_schema(value) for key, value in node.items() if key != "nullable"}
    return {"anyOf": [converted, {"type": "null"}]} if node.get("nullable") is True else converted


class Components:
    """Checks JSON against the named schema components of an OpenAPI document,
    ``$ref``s resolved within the document."""

    def __init__(self, openapi: dict[str, Any]) -> None:
        document = as_json_schema({"components": openapi["components"]})
        self._registry = Registry().with_resource(OPENAPI, DRAFT4.create_resource(document))
        self._names = set(openapi["components"]["schemas"])
        self._validators: dict[str, Draft4Validator] = {}

    def errors(self, component: str, instance: Any) -> list[str]:
        """What is wrong with ``instance`` as a ``component``, one line per error."""
        assert component in self._names, f"the schema has no component {component}"
        if component not in self._validators:
            ref = {"$ref": f"{OPENAPI}#/components/schemas/{component}"}
            self._validators[component] = Draft4Validator(ref, registry=self._registry)
        return [_describe(error) for error in self._validators[component].iter_errors(instance)]


def _describe(error: ValidationError) -> str:
    # A oneOf failure says only "not valid under any"; the closest branch says why.
    deepest = best_match(error.context) if error.context else error
    path = "/".join(str(part) for part in deepest.absolute_path) or "(top)"
    return f"{path}: {deepest.message[:300]}"


@pytest.fixture(scope="module")
def components() -> Components:
    return Components(SchemaGenerator().get_schema(request=None, public=True))


# --- games played through the services, read through the API -------------------


class Table:
    """A game at the table: the seated players' API clients and eve's, and every
    board and result read so far, checked against the schema as they come."""

    def __init__(self, components: Components, variant: str, players: int) -> None:
        self.components = components
        users = [make_player(name) for name in SEATED[:players]]
        # forfeit_after 1: a timeout here forfeits at once (the bot's turns are tested in tests/games).
        # Public, so that eve, who has no seat, reads the spectator view.
        self.game = services.game_create(
            creator=users[0], variant=variant, seats=players, invited=users[1:], forfeit_after=1, public=True
        )
        for user in users[1:]:
            services.seat_join(game=self.game, user=user)
        self.game.refresh_from_db()
        assert self.game.status == Game.Status.ACTIVE
        self.clients = {user.pk: client_for(user, scopes=("read", "play")) for user in users}
        self.eve = client_for(make_player("eve"), scopes=("read",))
        self.bots = [make_bot("greedy", seed=seat) for seat in range(players)]
        self.boards: list[dict[str, Any]] = []
        self.board_problems: list[str] = []
        self.result_problems: list[str] = []

    def user_at(self, seat: int) -> Any:
        return Seat.objects.select_related("user").get(game=self.game, index=seat).user

    def read(self, client: APIClient, who: str) -> dict[str, Any]:
        """GET the game as ``client``; note any way its board or result is off-schema."""
        response = client.get(GAME.format(self.game.pk))
        assert response.status_code == 200, response.content
        body = response.json()
        ply = body["board"]["ply"]
        self.board_problems += [f"{who}, ply {ply}: {e}" for e in self.components.errors("Board", body["board"])]
        if body["result"] is not None:
            self.result_problems += [f"{who}: {e}" for e in self.components.errors("GameResult", body["result"])]
        self.boards.append(body["board"])
        return body

    def play(self, *, plies: int = 1000) -> None:
        """Play up to ``plies`` moves: each seat's first move reserves a card blind
        (so hidden cards appear), the greedy bot chooses the rest from the board
        the seat reads through the API."""
        for _ in range(plies):
            self.game.refresh_from_db()
            if self.game.status != Game.Status.ACTIVE:
                return
            seat = self.game.to_move
            user = self.user_at(seat)
            board = self.read(self.clients[user.pk], f"seat {seat}")["board"]
            self.read(self.eve, "eve")
            legal = [engine.format_move(move) for move in engine.legal_moves(engine.from_dict(self.game.state))]
            blind = [text for text in legal if text.startswith("reserve deck")]
            first_turn = board["ply"] < board["players"]
            text = blind[0] if first_turn and blind else self.bots[seat].choose(board, legal)
            services.move_submit(game_id=self.game.pk, user=user, text=text, expected_version=self.game.version)

    def read_the_end(self) -> dict[str, Any]:
        """Every seat's, eve's and the export's view of the finished game; its result."""
        self.game.refresh_from_db()
        assert self.game.status == Game.Status.FINISHED
        for seat in range(self.game.seat_count):
            self.read(self.clients[self.user_at(seat).pk], f"seat {seat}")
        result = self.read(self.eve, "eve")["result"]
        export = self.eve.get(EXPORT.format(self.game.pk)).json()
        self.result_problems += [f"export: {e}" for e in self.components.errors("GameResult", export["result"])]
        assert export["result"] == result
        return result


# --- boards ------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("variant", ["base", "marvel"])
def test_every_board_of_a_game_played_to_the_end_matches_the_schema(
    db: None, _no_throttling: None, components: Components, variant: str, players: int
) -> None:
    table = Table(components, variant, players)
    table.play()
    result = table.read_the_end()

    assert table.board_problems == []
    assert table.result_problems == []
    assert result["reason"] in BOARD_END_REASONS
    # The shapes the boards had to show, so the check above was not vacuous.
    assert {board["variant"] for board in table.boards} == {variant}
    reserved = [card for board in table.boards for seat in board["seats"] for card in seat["reserved"]]
    assert any(card.get("hidden") for card in reserved), "eve never saw a blind reservation"
    assert any(card.get("blind") for card in reserved), "no seat saw its own blind reservation"
    assert table.boards[-1]["outcome"] is not None and table.boards[0]["outcome"] is None


# --- results -------------------------------------------------------------------------


def _resign(table: Table, seat: int) -> None:
    services.game_resign(game=table.game, user=table.user_at(seat))


def _time_out(table: Table) -> None:
    from django.test import override_settings

    table.game.refresh_from_db()
    assert table.game.deadline_at is not None
    with override_settings(VACATION_DAYS_PER_YEAR=0):  # else the deadline takes a vacation day
        assert services.game_time_out(game_id=table.game.pk, now=table.game.deadline_at + timedelta(seconds=1))


def two_players_one_resigns(table: Table) -> None:
    table.play(plies=3)
    _resign(table, 0)


def three_players_one_resigns_and_the_others_play_on(table: Table) -> None:
    table.play(plies=4)
    _resign(table, 1)
    table.play()


def four_players_all_but_one_leave(table: Table) -> None:
    table.play(plies=5)
    _resign(table, 2)
    _time_out(table)
    table.game.refresh_from_db()
    _resign(table, table.game.to_move)


def two_players_one_runs_out_of_time(table: Table) -> None:
    table.play(plies=2)
    _time_out(table)


EARLY_ENDINGS: list[tuple[str, int, Callable[[Table], None], set[str]]] = [
    ("base", 2, two_players_one_resigns, {"resignation"}),
    ("marvel", 3, three_players_one_resigns_and_the_others_play_on, set(BOARD_END_REASONS)),
    ("base", 4, four_players_all_but_one_leave, {"resignation"}),
    ("marvel", 2, two_players_one_runs_out_of_time, {"timeout"}),
]


@pytest.mark.parametrize(
    ("variant", "players", "ending", "reasons"), EARLY_ENDINGS, ids=[e[2].__name__ for e in EARLY_ENDINGS]
)
def test_the_result_of_a_game_ended_by_resignation_or_timeout_matches_the_schema(
    db: None,
    _no_throttling: None,
    components: Components,
    variant: str,
    players: int,
    ending: Callable[[Table], None],
    reasons: set[str],
) -> None:
    table = Table(components, variant, players)
    ending(table)
    result = table.read_the_end()

    assert table.board_problems == []
    assert table.result_problems == []
    assert result["reason"] in reasons
    assert result["resigned"], "a seat left the game"


# --- the check can fail ------------------------------------------------------------

Breaking = Callable[[dict[str, Any]], Any]


def _at(data: Any, path: str) -> Any:
    """The value at a dotted path of keys and list indexes, "seats.0.tokens"."""
    for part in path.split(".") if path else []:
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


def _drop(path: str, key: str) -> Breaking:
    return lambda data: _at(data, path).pop(key)


def _set(path: str, key: str | int, value: Any) -> Breaking:
    return lambda data: _at(data, path).__setitem__(key, value)


def _first_market_card(board: dict[str, Any]) -> dict[str, Any]:
    return next(card for row in board["market"].values() for card in row if card)


def _first_hidden_card(board: dict[str, Any]) -> dict[str, Any]:
    return next(card for seat in board["seats"] for card in seat["reserved"] if card.get("hidden"))


def _swap_tile_key(board: dict[str, Any]) -> None:
    old, new = ("nobles", "locations") if board["variant"] == "base" else ("locations", "nobles")
    board[new] = board.pop(old)


BROKEN_BOARDS: dict[str, Breaking] = {
    "without its supply": _drop("", "supply"),
    "with the seat as text": _set("", "seat", "0"),
    "with a negative token count": _set("seats.0.tokens", "J", -1),
    "with a seat's tokens missing the joker": _drop("seats.0.tokens", "J"),
    "with a card of an unknown colour": lambda board: _first_market_card(board).__setitem__("color", "X"),
    "with a market slot that is not a slot": lambda board: _first_market_card(board).__setitem__("slot", "4e"),
    "with a market row as a map": _set("market", "1", {"a": None}),
    "with a hidden card that has no level": lambda board: _first_hidden_card(board).pop("level"),
    "with the other variant's tiles": _swap_tile_key,
    "with an unknown end reason": _set(
        "", "outcome", {"winners": [0], "scores": [1, 0, 0], "ranking": [0, 1, 2], "places": [1, 2, 2], "reason": "?"}
    ),
}
BROKEN_MARVEL_BOARDS: dict[str, Breaking] = {
    "without a seat's gauntlet": _drop("seats.0", "gauntlet"),
    "without the Time Stone in the supply": _drop("supply", "T"),
    "with a base colour missing from the gauntlet": _set("seats.0.gauntlet", "missing_colors", ["W"]),
    "without avengers_assemble": _drop("", "avengers_assemble"),
}
BROKEN_RESULTS: dict[str, Breaking] = {
    "without places": _drop("", "places"),
    "without timed_out": _drop("", "timed_out"),
    "with winners as text": _set("", "winners", "0"),
    "with an unknown reason": _set("", "reason", "boredom"),
    "with a place 0": _set("places", 0, 0),
}


def accepted_when_broken(
    components: Components, component: str, data: Any, breakings: dict[str, Breaking]
) -> list[str]:
    """The names of the breakings that ``component`` still accepts."""
    accepted = []
    for name, breaking in breakings.items():
        broken = copy.deepcopy(data)
        breaking(broken)
        if not components.errors(component, broken):
            accepted.append(name)
    return accepted


@pytest.mark.parametrize("variant", ["base", "marvel"])
def test_a_broken_board_is_refused_by_the_same_check(
    db: None, _no_throttling: None, components: Components, variant: str
) -> None:
    table = Table(components, variant, 3)
    table.play(plies=4)
    board = table.read(table.eve, "eve")["board"]  # every seat has reserved blind by now
    assert components.errors("Board", board) == []

    breakings = {**BROKEN_BOARDS, **(BROKEN_MARVEL_BOARDS if variant == "marvel" else {})}
    assert accepted_when_broken(components, "Board", board, breakings) == []


def test_a_broken_result_is_refused_by_the_same_check(
    db: None, _no_throttling: None, components: Components
) -> None:
    table = Table(components, "base", 3)
    table.play(plies=3)
    _resign(table, 0)
    _time_out(table)
    result = table.read_the_end()
    assert components.errors("GameResult", result) == []

    assert accepted_when_broken(components, "GameResult", result, BROKEN_RESULTS) == []
