"""The shared test helpers stay shared, and the factories make what they say.

`_to_move` (now tests.factories.seat_to_move), and the fixtures `active_game`,
`staff_client` (tests/conftest.py) and `fixed_clock` (tests/games/conftest.py) have
one definition each; a test module that defines one again fails here, named by
file and line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from games.models import Game, Seat
from tests.factories import (
    FinishedGameFactory,
    OpenGameFactory,
    PlayerFactory,
    StartedGameFactory,
    seat_to_move,
)

TESTS = Path(__file__).resolve().parent

# Each shared name and the one file allowed to define it (None: no file may).
SHARED: dict[str, str | None] = {
    "_to_move": None,
    "active_game": "conftest.py",
    "staff_client": "conftest.py",
    "fixed_clock": "games/conftest.py",
}


def _fixture_name(decorator: ast.expr) -> str | None:
    """The name given by ``@pytest.fixture(name="...")``, if any."""
    if isinstance(decorator, ast.Call):
        for keyword in decorator.keywords:
            if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                return str(keyword.value.value)
    return None


def definitions() -> list[tuple[str, str, int]]:
    """(name, file relative to tests/, line) of every function or fixture that
    defines one of the SHARED names anywhere under tests/."""
    found: list[tuple[str, str, int]] = []
    for path in sorted(TESTS.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        relative = path.relative_to(TESTS).as_posix()
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            names = {node.name} | {n for d in node.decorator_list if (n := _fixture_name(d))}
            found.extend((name, relative, node.lineno) for name in sorted(names & SHARED.keys()))
    return found


def test_no_test_module_defines_a_shared_helper_or_fixture_again() -> None:
    copies = [
        f"tests/{relative}:{line} defines {name}"
        + (f" (use the one in tests/{SHARED[name]})" if SHARED[name] else " (use tests.factories.seat_to_move)")
        for name, relative, line in definitions()
        if relative != SHARED[name]
    ]
    assert not copies, "\n".join(copies)


def test_each_shared_fixture_is_defined_once_where_it_is_shared() -> None:
    where = [(name, relative) for name, relative, _ in definitions()]
    homes = {name: home for name, home in SHARED.items() if home is not None}
    assert homes and {name: where.count((name, home)) for name, home in homes.items()} == dict.fromkeys(homes, 1)


@pytest.mark.django_db
def test_a_player_is_made_as_player_create_makes_one() -> None:
    user = PlayerFactory.create(username="zoe")
    assert user.pk is not None and user.email == "zoe@example.com"
    assert user.player.display_name == "Zoe" and user.player.email_verified_at is not None
    assert PlayerFactory.create().username != PlayerFactory.create().username


@pytest.mark.django_db
def test_an_open_invitation_waits_for_its_invited_player() -> None:
    guest = PlayerFactory.create()
    game = OpenGameFactory.create(invited=[guest], seats=3)
    assert game.status == Game.Status.OPEN
    seats = Seat.objects.filter(game=game)
    assert set(seats.values_list("user", flat=True)) == {game.created_by_id, guest.pk}
    assert seats.filter(joined_at__isnull=True).get().user == guest


@pytest.mark.django_db
@pytest.mark.parametrize(("variant", "seats"), [("base", 2), ("marvel", 3)])
def test_a_started_games_seat_to_move_is_one_of_its_real_seats(variant: str, seats: int) -> None:
    game = StartedGameFactory.create(variant=variant, seats=seats)
    assert game.status == Game.Status.ACTIVE and game.variant == variant
    joined = Seat.objects.filter(game=game, joined_at__isnull=False)
    assert joined.count() == seats
    seat = seat_to_move(game)
    assert seat in joined and seat.index == game.to_move


@pytest.mark.django_db
def test_a_finished_game_is_finished() -> None:
    creator = PlayerFactory.create()
    game = FinishedGameFactory.create(creator=creator, seats=3)
    assert game.status == Game.Status.FINISHED
    assert game.result is not None
    assert game.result["winners"] == [Seat.objects.get(game=game, user=creator).index]


@pytest.mark.django_db
def test_the_factories_refuse_to_build_rows_the_services_did_not_write() -> None:
    with pytest.raises(TypeError, match="create"):
        StartedGameFactory.build()
