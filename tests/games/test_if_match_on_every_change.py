"""If-Match on the routes that change a game: a header that names another version
is a 412 and changes nothing, on every such route; a header of any size is read
without error (a tag too long to be a version names none)."""

from __future__ import annotations

from typing import Any

import pytest

from games import services
from games.models import Game, GameEvent, Seat
from tests.games.game_helpers import client_for, user_to_move

pytestmark = pytest.mark.django_db

# One digit past Python's limit on converting text to int (4,300 digits).
HUGE = '"' + "9" * 4301 + '"'


def url(game: Game, suffix: str) -> str:
    return f"/api/v1/games/{game.pk}/{suffix}"


def unchanged(game: Game) -> tuple[Any, ...]:
    """What a refused change must leave as it was."""
    fresh = Game.objects.get(pk=game.pk)
    seats = tuple(Seat.objects.filter(game=game).order_by("pk").values_list("user_id", "joined_at", "resigned"))
    return fresh.version, fresh.status, seats, GameEvent.objects.filter(game=game).count()


def assert_412(response: Any, game: Game) -> None:
    assert response.status_code == 412, response.content
    body = response.json()
    assert body["code"] == "precondition_failed"
    assert body["current_version"] == Game.objects.get(pk=game.pk).version


@pytest.fixture
def open_game(alice: Any, bob: Any) -> Game:
    # alice created it, bob is invited; one seat is open to anyone.
    return services.game_create(creator=alice, seats=3, invited=[bob])


def test_a_move_with_an_if_match_of_4301_digits_is_a_412_not_a_server_error(active_game: Game) -> None:
    mover = client_for(user_to_move(active_game))
    response = mover.post(url(active_game, "moves/"), {"move": "pass"}, HTTP_IF_MATCH=HUGE)
    assert_412(response, active_game)
    assert len(response.json()["detail"]) < 300  # the header is not echoed whole


def test_resigning_with_an_if_match_of_4301_digits_is_a_412_and_resigns_nothing(active_game: Game, alice: Any) -> None:
    before = unchanged(active_game)
    assert_412(client_for(alice).post(url(active_game, "resign/"), HTTP_IF_MATCH=HUGE), active_game)
    assert unchanged(active_game) == before


def test_resigning_with_a_mismatched_if_match_is_a_412_and_resigns_nothing(active_game: Game, alice: Any) -> None:
    before = unchanged(active_game)
    stale = f'"{active_game.version - 1}"'
    assert_412(client_for(alice).post(url(active_game, "resign/"), HTTP_IF_MATCH=stale), active_game)
    assert unchanged(active_game) == before
    assert not Seat.objects.get(game=active_game, user=alice).resigned


def test_resigning_with_several_tags_none_of_them_the_version_is_a_412(active_game: Game, alice: Any) -> None:
    before = unchanged(active_game)
    tags = f'"{active_game.version + 1}", "{active_game.version + 2}", "x"'
    assert_412(client_for(alice).post(url(active_game, "resign/"), HTTP_IF_MATCH=tags), active_game)
    assert unchanged(active_game) == before


@pytest.mark.parametrize("header", ["current", "star", "list"])
def test_resigning_with_a_matching_if_match_resigns(active_game: Game, alice: Any, header: str) -> None:
    value = {
        "current": f'"{active_game.version}"',
        "star": "*",
        "list": f'"{active_game.version + 5}", W/"{active_game.version}"',
    }[header]
    response = client_for(alice).post(url(active_game, "resign/"), HTTP_IF_MATCH=value)
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "finished"
    assert response["ETag"] == f'"{Game.objects.get(pk=active_game.pk).version}"'


def test_cancelling_with_a_mismatched_if_match_is_a_412_and_cancels_nothing(open_game: Game, alice: Any) -> None:
    before = unchanged(open_game)
    response = client_for(alice).post(url(open_game, "cancel/"), HTTP_IF_MATCH=f'"{open_game.version + 1}"')
    assert_412(response, open_game)
    assert unchanged(open_game) == before
    matching = client_for(alice).post(url(open_game, "cancel/"), HTTP_IF_MATCH=f'"{open_game.version}"')
    assert matching.status_code == 200 and matching.json()["status"] == "aborted"


def test_declining_with_a_mismatched_if_match_is_a_412_and_declines_nothing(open_game: Game, bob: Any) -> None:
    before = unchanged(open_game)
    response = client_for(bob).post(url(open_game, "decline/"), HTTP_IF_MATCH=HUGE)
    assert_412(response, open_game)
    assert unchanged(open_game) == before
    matching = client_for(bob).post(url(open_game, "decline/"), HTTP_IF_MATCH=f'"{open_game.version}"')
    assert matching.status_code == 200, matching.content


def test_joining_with_a_mismatched_if_match_is_a_412_and_takes_no_seat(open_game: Game, charlie: Any) -> None:
    before = unchanged(open_game)
    response = client_for(charlie).post(url(open_game, "join/"), {}, HTTP_IF_MATCH=f'"{open_game.version + 3}"')
    assert_412(response, open_game)
    assert unchanged(open_game) == before
    matching = client_for(charlie).post(url(open_game, "join/"), {}, HTTP_IF_MATCH=f'"{open_game.version}"')
    assert matching.status_code == 200


def test_joining_with_if_match_and_a_stale_expected_version_in_the_body_is_still_a_409(
    open_game: Game, charlie: Any
) -> None:
    # As for a move: If-Match that matches, expected_version that does not.
    response = client_for(charlie).post(
        url(open_game, "join/"), {"expected_version": open_game.version + 1}, HTTP_IF_MATCH=f'"{open_game.version}"'
    )
    assert response.status_code == 409 and response.json()["code"] == "stale_version"


def test_the_routes_that_change_a_game_still_need_no_if_match(active_game: Game, alice: Any) -> None:
    # If-Match is a precondition a client may add; without one, resigning acts as before.
    assert client_for(alice).post(url(active_game, "resign/")).status_code == 200


def test_the_schema_names_if_match_and_412_on_every_route_that_changes_a_game() -> None:
    from drf_spectacular.generators import SchemaGenerator

    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    for route in ("moves", "resign", "cancel", "decline", "join"):
        operation = paths[f"/api/v1/games/{{game_id}}/{route}/"]["post"]
        assert "412" in operation["responses"], route
        assert any(p["name"] == "If-Match" and p["in"] == "header" for p in operation["parameters"]), route
