"""An erased player's seats stay in every game, shown as "deleted player N", so
that no game loses its history; their active seats leave at once."""

from __future__ import annotations

from typing import Any

import pytest
from tests.games.game_helpers import client_for, play_moves, play_to_end, start_two_player_game

from accounts.services import player_erase
from games import services
from games.models import Game, GameEvent, Seat

pytestmark = pytest.mark.django_db


def erase(user: Any, capture: Any) -> None:
    with capture(execute=True):
        player_erase(user=user)


def names_in(game_view: dict[str, Any]) -> list[tuple[str, str]]:
    return [(seat["username"], seat["display_name"]) for seat in game_view["seats"]]


def test_a_finished_game_keeps_the_erased_players_seat_under_their_new_name(
    alice: Any, bob: Any, charlie: Any, django_capture_on_commit_callbacks: Any
) -> None:
    game = start_two_player_game(alice, bob, public=True)
    play_to_end(game)
    result = Game.objects.get(pk=game.pk).result
    erase(bob, django_capture_on_commit_callbacks)
    view = client_for(charlie, scopes=("read",)).get(f"/api/v1/games/{game.pk}/").json()
    assert (f"deleted-{bob.pk}", f"deleted player {bob.pk}") in names_in(view)
    assert ("alice", "Alice") in names_in(view)
    assert view["result"] == result
    assert Seat.objects.filter(game=game).count() == 2
    export = client_for(charlie, scopes=("read",)).get(f"/api/v1/games/{game.pk}/export/").json()
    assert f"deleted-{bob.pk}" in [seat["username"] for seat in export["seats"]]


def test_an_erased_players_active_seat_leaves_the_game_at_once(
    alice: Any, bob: Any, django_capture_on_commit_callbacks: Any
) -> None:
    game = start_two_player_game(alice, bob)
    play_moves(game, 2)
    erase(bob, django_capture_on_commit_callbacks)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.result is not None
    assert game.result["reason"] == "account-disabled"
    assert game.result["winners"] == [Seat.objects.get(game=game, user=alice).index]
    resigned = GameEvent.objects.get(game=game, kind="seat_resigned")
    assert resigned.payload["reason"] == "account-disabled"
    view = client_for(alice).get(f"/api/v1/games/{game.pk}/").json()
    assert (f"deleted-{bob.pk}", f"deleted player {bob.pk}") in names_in(view)
    assert len(client_for(alice).get(f"/api/v1/games/{game.pk}/moves/").json()) >= 2


def test_a_game_created_by_an_erased_player_names_its_creator_as_erased(
    alice: Any, bob: Any, charlie: Any, dave: Any, django_capture_on_commit_callbacks: Any
) -> None:
    game = services.game_create(creator=alice, seats=3, invited=[bob, charlie], public=True)
    services.seat_join(game=game, user=bob)
    services.seat_join(game=game, user=charlie)
    erase(alice, django_capture_on_commit_callbacks)
    listed = client_for(dave, scopes=("read",)).get("/api/v1/games/").json()["results"]
    summary = next(item for item in listed if item["id"] == game.pk)
    assert summary["created_by"] == f"deleted-{alice.pk}"
    assert summary["status"] == Game.Status.ACTIVE  # the other two play on


def test_an_erased_players_invitations_are_declined(
    alice: Any, bob: Any, charlie: Any, django_capture_on_commit_callbacks: Any
) -> None:
    invite_only = services.game_create(creator=alice, seats=2, invited=[bob])
    with_open_seat = services.game_create(creator=alice, seats=3, invited=[bob])
    erase(bob, django_capture_on_commit_callbacks)
    assert Game.objects.get(pk=invite_only.pk).status == Game.Status.ABORTED
    assert not Seat.objects.filter(game=with_open_seat, user=bob).exists()
    assert client_for(charlie).post(f"/api/v1/games/{with_open_seat.pk}/join/").status_code == 200


def test_an_erased_player_cannot_be_invited(alice: Any, bob: Any, django_capture_on_commit_callbacks: Any) -> None:
    erase(bob, django_capture_on_commit_callbacks)
    for name in ("bob", f"deleted-{bob.pk}"):
        answer = client_for(alice).post("/api/v1/games/", {"seats": 2, "invited": [name]}, format="json")
        assert answer.status_code == 400, name
