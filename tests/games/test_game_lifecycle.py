"""A game's life before and around play: cancelling, declining, expiring, resigning
twice, and an account disabled mid-game."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from tests.games.game_helpers import client_for, make_player, start_two_player_game

from accounts.services import player_disable
from games import errors, services
from games.models import Game, GameEvent, IdempotencyRecord, Seat


def test_the_creator_cancels_a_game_that_has_not_started(alice: Any, bob: Any) -> None:
    game = services.game_create(creator=alice, seats=3, invited=[bob])
    answer = client_for(alice).post(f"/api/v1/games/{game.pk}/cancel/")
    assert answer.status_code == 200, answer.content
    assert answer.json()["status"] == "aborted"
    event = GameEvent.objects.filter(game=game).last()
    assert event is not None and event.kind == "game_aborted"
    assert event.payload["reason"] == "cancelled" and event.payload["by_user_id"] == alice.pk


def test_only_the_creator_can_cancel(alice: Any, bob: Any) -> None:
    game = services.game_create(creator=alice, seats=3, invited=[bob])
    answer = client_for(bob).post(f"/api/v1/games/{game.pk}/cancel/")
    assert answer.status_code == 403 and answer.json()["code"] == "not_the_creator"


def test_a_started_game_cannot_be_cancelled(active_game: Game, alice: Any) -> None:
    answer = client_for(alice).post(f"/api/v1/games/{active_game.pk}/cancel/")
    assert answer.status_code == 409 and answer.json()["code"] == "game_not_open"
    assert answer.json()["game_status"] == "active"


def test_a_declined_seat_opens_to_anyone_when_the_game_has_open_seats(alice: Any, bob: Any, charlie: Any) -> None:
    game = services.game_create(creator=alice, seats=3, invited=[bob])
    answer = client_for(bob).post(f"/api/v1/games/{game.pk}/decline/")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["status"] == "open" and body["open_seats"] == 2
    assert not Seat.objects.filter(game=game, user=bob).exists()
    # The seat is anyone's now.
    services.seat_join(game=game, user=charlie)


def test_declining_ends_a_game_the_creator_made_for_the_invitees_alone(alice: Any, bob: Any) -> None:
    game = services.game_create(creator=alice, seats=2, invited=[bob])
    answer = client_for(bob).post(f"/api/v1/games/{game.pk}/decline/")
    assert answer.status_code == 200 and answer.json()["status"] == "aborted"
    kinds = list(GameEvent.objects.filter(game=game).values_list("kind", flat=True))
    assert kinds[-2:] == ["seat_declined", "game_aborted"]


def test_only_an_invitee_can_decline(alice: Any, bob: Any, charlie: Any) -> None:
    game = services.game_create(creator=alice, seats=3, invited=[bob], public=True)
    answer = client_for(charlie).post(f"/api/v1/games/{game.pk}/decline/")
    assert answer.status_code == 409 and answer.json()["code"] == "not_invited"


def test_open_games_nobody_joins_expire(alice: Any, bob: Any, settings: Any) -> None:
    settings.OPEN_GAME_EXPIRY_DAYS = 14
    old = services.game_create(creator=alice, seats=2)
    fresh = services.game_create(creator=alice, seats=2)
    Game.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=15))

    assert services.game_expire_open() == 1
    assert services.game_expire_open() == 0

    assert Game.objects.get(pk=old.pk).status == "aborted"
    assert Game.objects.get(pk=fresh.pk).status == "open"
    assert GameEvent.objects.filter(game=old).last().payload["reason"] == "expired"  # type: ignore[union-attr]


def test_resigning_twice_in_a_two_player_game_that_it_ended_has_its_own_code(active_game: Game, alice: Any) -> None:
    client = client_for(alice)
    assert client.post(f"/api/v1/games/{active_game.pk}/resign/").status_code == 200
    again = client.post(f"/api/v1/games/{active_game.pk}/resign/")
    assert again.status_code == 409 and again.json()["code"] == "already_resigned"


def test_resigning_twice_has_its_own_code(alice: Any, bob: Any, charlie: Any) -> None:
    dave = make_player("dave")
    game = services.game_create(creator=alice, seats=3, invited=[bob, dave])
    services.seat_join(game=game, user=bob)
    services.seat_join(game=game, user=dave)
    client = client_for(bob)
    assert client.post(f"/api/v1/games/{game.pk}/resign/").status_code == 200
    again = client.post(f"/api/v1/games/{game.pk}/resign/")
    assert again.status_code == 409 and again.json()["code"] == "already_resigned"
    with pytest.raises(errors.AlreadyResigned):
        services.game_resign(game=game, user=bob)


def test_a_disabled_accounts_seats_leave_at_once_and_it_is_recorded(
    alice: Any, bob: Any, django_capture_on_commit_callbacks: Any
) -> None:
    game = start_two_player_game(alice, bob)
    invited_to = services.game_create(creator=alice, seats=2, invited=[bob])
    with django_capture_on_commit_callbacks(execute=True):
        player_disable(user=bob)
    game.refresh_from_db()
    assert game.status == "finished"
    assert game.result is not None
    assert game.result["reason"] == "account-disabled"
    assert game.result["winners"] == [Seat.objects.get(game=game, user=alice).index]
    resigned = GameEvent.objects.filter(game=game, kind="seat_resigned").get()
    assert resigned.payload["reason"] == "account-disabled"
    assert Game.objects.get(pk=invited_to.pk).status == "aborted"
    # And the account's tokens stop working.
    answer = client_for(bob).get("/api/v1/me/")
    assert answer.status_code == 401 and answer.json()["code"] == "account_disabled"


def test_idempotency_keys_are_honoured_for_a_day_then_deleted(active_game: Game, settings: Any) -> None:
    settings.IDEMPOTENCY_KEY_TTL_HOURS = 24
    from tests.games.game_helpers import user_to_move

    mover = user_to_move(active_game)
    client = client_for(mover)
    url = f"/api/v1/games/{active_game.pk}/moves/"
    body = {"move": "take WUG", "expected_version": 3}
    first = client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    again = client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == 201 and again["Idempotent-Replayed"] == "true"

    IdempotencyRecord.objects.update(created_at=timezone.now() - timedelta(hours=25))
    # Past its time the key is no longer honoured: the same request is a new move (now stale).
    late = client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY="k-1")
    assert late.status_code == 409 and late.json()["code"] == "stale_version"
    assert services.idempotency_records_delete_expired() == 1


def test_a_disabled_player_who_joined_an_open_game_frees_the_seat_for_someone_else(
    alice: Any, bob: Any, charlie: Any, django_capture_on_commit_callbacks: Any
) -> None:
    dave = make_player("dave")
    game = services.game_create(creator=alice, seats=4)
    services.seat_join(game=game, user=bob)
    services.seat_join(game=game, user=charlie)
    with django_capture_on_commit_callbacks(execute=True):
        player_disable(user=bob)
    game.refresh_from_db()
    assert game.status == "open"
    assert not Seat.objects.filter(game=game, user=bob).exists()
    event = GameEvent.objects.filter(game=game).last()
    assert event is not None and event.kind == "seat_left" and event.payload["user_id"] == bob.pk
    # Join positions stay 0..n-1, so the seeded seat order still checks out at the start.
    services.seat_join(game=game, user=dave)
    services.seat_join(game=game, user=make_player("erin"))
    game.refresh_from_db()
    assert game.status == "active"
    positions = sorted(Seat.objects.filter(game=game).values_list("join_position", flat=True))
    assert positions == [0, 1, 2, 3]


def test_the_housekeeping_command_expires_open_games_and_deletes_old_keys(alice: Any) -> None:
    from io import StringIO

    from django.core.management import call_command

    old = services.game_create(creator=alice, seats=2)
    Game.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=30))
    out = StringIO()
    call_command("housekeeping", stdout=out)
    assert "1 open game(s) expired" in out.getvalue()
    assert Game.objects.get(pk=old.pk).status == "aborted"
