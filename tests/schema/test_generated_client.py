"""A client author's first try: generate a Python client from ``/api/schema/``
with openapi-python-client. It builds without a warning, and its typed models
read real answers and write them back unchanged
(``Model.from_dict(body).to_dict() == body``).

- alice holds the token the answers are read with; she is to move or waits.
- bob is her opponent, so that her games start, and moves when it is his turn.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs
import pytest
from django.test import Client
from rest_framework.test import APIClient

from games.models import Game
from tests.games.game_helpers import client_for, play_moves, play_to_end, start_two_player_game, user_to_move

pytestmark = pytest.mark.django_db

PACKAGE = "splendor_generated_client"
# The generator formats what it writes with ruff, one of its dependencies: found
# beside this Python even when the environment is not activated.
TOOLS = Path(sys.executable).parent


@pytest.fixture(scope="module")
def generation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ModuleType, str]]:
    """The client generated once for the module from the schema the site serves,
    imported; and what the generator printed."""
    root = tmp_path_factory.mktemp("generated")
    answer = Client().get("/api/schema/", {"format": "json"})
    assert answer.status_code == 200
    schema = root / "schema.json"
    schema.write_bytes(answer.content)
    run = subprocess.run(
        [sys.executable, "-m", "openapi_python_client", "generate", "--path", str(schema),
         "--output-path", str(root / PACKAGE), "--meta", "none", "--fail-on-warning"],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "PATH": f"{TOOLS}{os.pathsep}{os.environ.get('PATH', '')}"},
        timeout=300,
    )
    printed = run.stdout + run.stderr
    assert run.returncode == 0, printed
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module(f"{PACKAGE}.models"), printed
    finally:
        sys.path.remove(str(root))
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


@pytest.fixture
def models(generation: tuple[ModuleType, str]) -> ModuleType:
    return generation[0]


@pytest.fixture(autouse=True)
def _no_throttling(settings: Any) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "user": "100000/minute"},
    }


RFC_3339 = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})")


def instants(value: Any) -> Any:
    """The JSON value with each RFC 3339 date-time read as the instant it names: the
    site writes UTC as ``Z`` and the generated models as ``+00:00``, the same time."""
    if isinstance(value, dict):
        return {key: instants(item) for key, item in value.items()}
    if isinstance(value, list):
        return [instants(item) for item in value]
    if isinstance(value, str) and RFC_3339.fullmatch(value):
        return datetime.fromisoformat(value)
    return value


def undeclared(value: Any, where: str) -> list[str]:
    """The members of an answer that a generated model kept only as untyped
    ``additional_properties``: the schema did not declare them."""
    if isinstance(value, list):
        return [found for index, item in enumerate(value) for found in undeclared(item, f"{where}[{index}]")]
    if not attrs.has(type(value)):
        return []
    declared = [member.name for member in attrs.fields(type(value)) if member.name != "additional_properties"]
    if not declared:
        return []  # a map by design (a problem's `errors`): its keys are data, not members
    found = [f"{where}.{name}" for name in getattr(value, "additional_properties", {})]
    for member in attrs.fields(type(value)):
        if member.name != "additional_properties":
            found += undeclared(getattr(value, member.name), f"{where}.{member.name}")
    return found


def round_trips(model: type[Any], body: Any) -> None:
    read = model.from_dict(body)
    assert isinstance(read, model)
    assert instants(read.to_dict()) == instants(body)
    assert undeclared(read, model.__name__) == []


def _read(client: APIClient, path: str) -> Any:
    answer = client.get(path)
    assert answer.status_code == 200, answer.content
    return answer.json()


def test_the_client_builds_without_a_warning(generation: tuple[ModuleType, str]) -> None:
    _, printed = generation
    lines = [line for line in printed.splitlines() if line.strip()]
    assert lines and all(line.startswith("Generating ") for line in lines), printed


def test_the_client_has_a_typed_model_for_each_answer_a_bot_reads(models: ModuleType) -> None:
    for name in ("GameView", "PaginatedGameSummaryList", "LegalMoves", "MoveCreated", "GameProblem", "Me", "Token"):
        assert isinstance(getattr(models, name), type), name


def test_no_member_of_a_generated_model_is_left_untyped(models: ModuleType) -> None:
    # A member the schema gives no type comes out as `name: Any` (a JSONField, say).
    folder = Path(models.__file__).parent
    untyped = [
        f"{path.stem}.{match.group(1)}"
        for path in sorted(folder.glob("*.py"))
        for match in re.finditer(r"^    (\w+): Any$", path.read_text(), re.MULTILINE)
    ]
    assert untyped == []


@pytest.mark.parametrize("variant", ["base", "marvel"])
def test_a_game_in_play_round_trips_for_a_player_and_a_spectator(
    models: ModuleType, alice: Any, bob: Any, charlie: Any, variant: str
) -> None:
    game = start_two_player_game(alice, bob, variant=variant, public=True)
    play_moves(game, 6)
    round_trips(models.GameView, _read(client_for(alice, ("read",)), f"/api/v1/games/{game.pk}/"))
    round_trips(models.GameView, _read(client_for(charlie, ("read",)), f"/api/v1/games/{game.pk}/"))


def test_a_finished_game_round_trips(models: ModuleType, alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    play_to_end(game)
    body = _read(client_for(alice, ("read",)), f"/api/v1/games/{game.pk}/")
    assert body["status"] == Game.Status.FINISHED and body["result"] is not None
    round_trips(models.GameView, body)


def test_an_open_game_waiting_for_players_round_trips(models: ModuleType, alice: Any) -> None:
    created = client_for(alice).post("/api/v1/games/", {"seats": 3}, format="json")
    assert created.status_code == 201, created.content
    round_trips(models.GameView, created.json())


def test_a_page_of_the_game_list_round_trips(models: ModuleType, alice: Any, bob: Any) -> None:
    start_two_player_game(alice, bob)
    client_for(alice).post("/api/v1/games/", {"seats": 2}, format="json")
    body = _read(client_for(alice, ("read",)), "/api/v1/games/?limit=1")
    assert body["count"] == 2 and body["next"] is not None
    round_trips(models.PaginatedGameSummaryList, body)


def test_the_legal_moves_round_trip_for_the_seat_to_move_and_the_other(models: ModuleType, alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    for user in (alice, bob):
        round_trips(models.LegalMoves, _read(client_for(user, ("read",)), f"/api/v1/games/{game.pk}/legal-moves/"))


def test_a_move_created_round_trips(models: ModuleType, alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    mover = client_for(user_to_move(game))
    moves = _read(mover, f"/api/v1/games/{game.pk}/legal-moves/")["moves"]
    answer = mover.post(
        f"/api/v1/games/{game.pk}/moves/", {"move": moves[0], "expected_version": game.version}, format="json"
    )
    assert answer.status_code == 201, answer.content
    round_trips(models.MoveCreated, answer.json())


def test_problem_bodies_round_trip(models: ModuleType, alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    waiter = client_for(bob if user_to_move(game) == alice else alice)
    out_of_turn = waiter.post(
        f"/api/v1/games/{game.pk}/moves/", {"move": "take WUG", "expected_version": game.version}, format="json"
    )
    invalid = waiter.post(f"/api/v1/games/{game.pk}/moves/", {"move": 7}, format="json")
    assert (out_of_turn.status_code, invalid.status_code) == (409, 400)
    round_trips(models.GameProblem, out_of_turn.json())
    round_trips(models.GameProblem, invalid.json())


def test_a_minted_token_and_a_page_of_tokens_round_trip(models: ModuleType, alice: Any) -> None:
    client = client_for(alice, ("read", "play"))
    minted = client.post("/api/v1/tokens/", {"name": "bot", "scopes": ["read"]}, format="json")
    assert minted.status_code == 201, minted.content
    round_trips(models.TokenCreated, minted.json())
    round_trips(models.PaginatedTokenList, _read(client, "/api/v1/tokens/"))


def test_the_me_answer_round_trips(models: ModuleType, alice: Any) -> None:
    round_trips(models.Me, _read(client_for(alice, ("read",)), "/api/v1/me/"))
