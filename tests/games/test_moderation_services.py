"""The moderation services (games.moderation): each action's effect on the game,
its outbox event, its log row, and that nothing is half-applied.

Personas (tests/games/conftest.py): alice and bob play; charlie takes a seat
over; mo is the moderator, who holds no seat.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.contrib.auth import get_user_model

from core.errors import InvalidInput
from games import errors, moderation, selectors, services
from games.models import BotTurn, Game, GameEvent, GamePause, ModerationEntry, Move, PlayedBy, Seat
from tests.games.clock_helpers import NOON, events, play_a_take, seat_to_move
from tests.games.game_helpers import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def mo(db: None) -> Any:
    return get_user_model().objects.create_user("mo", "mo@example.com", "a long moderator password", is_staff=True)


@pytest.fixture
def game(alice: Any, bob: Any) -> Game:
    with time_machine.travel(NOON, tick=False):
        created = services.game_create(creator=alice, seats=2, invited=[bob], move_timeout_hours=24)
        services.seat_join(game=created, user=bob)
    created.refresh_from_db()
    return created


def entries(**filters: Any) -> list[ModerationEntry]:
    return list(ModerationEntry.objects.filter(**filters).order_by("id"))


# --- abort --------------------------------------------------------------------------


def test_a_moderator_aborts_an_active_game_with_no_result_and_a_logged_reason(game: Game, mo: Any) -> None:
    moderation.moderation_game_abort(game_id=game.pk, by_user=mo, reason="Collusion reported by both players")

    game.refresh_from_db()
    assert game.status == Game.Status.ABORTED and game.result is None and game.deadline_at is None
    aborted = events(game, GameEvent.Kind.GAME_ABORTED)[-1]
    assert aborted.payload["reason"] == "moderator" and aborted.payload["by_user_id"] == mo.pk
    (entry,) = entries(game_id=game.pk)
    assert (entry.action, entry.user_id, entry.reason) == ("game_aborted", mo.pk, "Collusion reported by both players")


def test_aborting_a_paused_game_ends_its_pauses(game: Game, mo: Any) -> None:
    moderation.moderation_game_pause(game_id=game.pk, by_user=mo, reason="Looking into a complaint")
    moderation.moderation_game_abort(game_id=game.pk, by_user=mo, reason="Annulled after the complaint")

    assert not GamePause.objects.filter(game=game, ended_at__isnull=True).exists()


def test_a_game_that_is_over_cannot_be_aborted(game: Game, mo: Any, alice: Any) -> None:
    services.game_resign(game=game, user=alice)

    with pytest.raises(errors.GameNotActive):
        moderation.moderation_game_abort(game_id=game.pk, by_user=mo, reason="Too late")
    assert entries() == []


@pytest.mark.parametrize("reason", ["", "   ", None])
def test_every_action_needs_a_reason(game: Game, mo: Any, reason: Any) -> None:
    with pytest.raises(InvalidInput) as refused:
        moderation.moderation_game_abort(game_id=game.pk, by_user=mo, reason=reason)

    assert "reason" in refused.value.errors
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and entries() == []


# --- adjudicate ------------------------------------------------------------------------


def test_an_adjudicated_game_finishes_with_the_moderators_places_and_says_so(game: Game, mo: Any) -> None:
    moderation.moderation_game_adjudicate(game_id=game.pk, by_user=mo, reason="Server outage", places=[2, 1])

    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.result is not None
    assert game.result["reason"] == "adjudicated"
    assert (game.result["winners"], game.result["places"], game.result["ranking"]) == ([1], [2, 1], [1, 0])
    kinds = [event.kind for event in events(game)][-2:]
    assert kinds == ["game_adjudicated", "game_finished"]
    (entry,) = entries(game_id=game.pk)
    assert entry.action == "game_adjudicated" and entry.details["places"] == [2, 1]


def test_an_adjudicated_result_may_be_a_shared_first_place(game: Game, mo: Any) -> None:
    moderation.moderation_game_adjudicate(game_id=game.pk, by_user=mo, reason="A draw agreed", places=[1, 1])

    game.refresh_from_db()
    assert game.result is not None and game.result["winners"] == [0, 1]


@pytest.mark.parametrize("places", [[1], [1, 2, 3], [1, 3], [0, 1], [2, 2]])
def test_places_that_are_no_ranking_are_refused_and_nothing_changes(game: Game, mo: Any, places: list[int]) -> None:
    with pytest.raises(InvalidInput) as refused:
        moderation.moderation_game_adjudicate(game_id=game.pk, by_user=mo, reason="Outage", places=places)

    assert "places" in refused.value.errors
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and entries() == []


# --- deadlines ---------------------------------------------------------------------------


def test_extending_the_deadline_moves_it_on_by_the_hours_given(game: Game, mo: Any) -> None:
    before = game.deadline_at
    assert before is not None

    with time_machine.travel(NOON + timedelta(hours=2), tick=False):
        moderation.moderation_deadline_extend(game_id=game.pk, by_user=mo, reason="Travel", hours=12)

    game.refresh_from_db()
    assert game.deadline_at == before + timedelta(hours=12)
    (extended,) = events(game, GameEvent.Kind.DEADLINE_EXTENDED)
    assert extended.payload["hours"] == 12 and extended.payload["seat"] == game.to_move
    (entry,) = entries(game_id=game.pk)
    assert entry.action == "deadline_extended" and entry.target_user_id == seat_to_move(game).user_id


def test_an_extended_deadline_is_not_timed_out_at_the_old_one(game: Game, mo: Any) -> None:
    old = game.deadline_at
    assert old is not None
    moderation.moderation_deadline_extend(game_id=game.pk, by_user=mo, reason="Illness", hours=5)

    assert services.game_time_out(game_id=game.pk, now=old + timedelta(minutes=1)) is False
    assert services.game_time_out(game_id=game.pk, now=old + timedelta(hours=5, minutes=1)) is True


def test_extending_a_paused_game_adds_to_the_clock_it_resumes_with(game: Game, mo: Any) -> None:
    with time_machine.travel(NOON, tick=False):
        moderation.moderation_game_pause(game_id=game.pk, by_user=mo, reason="Checking")
        moderation.moderation_deadline_extend(game_id=game.pk, by_user=mo, reason="And more time", hours=3)
        game.refresh_from_db()
        assert game.deadline_at is None and game.clock_remaining == timedelta(hours=27)
        moderation.moderation_game_resume(game_id=game.pk, by_user=mo, reason="Done checking")

    game.refresh_from_db()
    assert game.deadline_at == NOON + timedelta(hours=27)


@pytest.mark.parametrize("hours", [0, -1, 24 * 30 + 1])
def test_an_extension_out_of_range_is_refused(game: Game, mo: Any, hours: int) -> None:
    with pytest.raises(InvalidInput):
        moderation.moderation_deadline_extend(game_id=game.pk, by_user=mo, reason="Oops", hours=hours)
    assert entries() == []


# --- pause and resume -------------------------------------------------------------------


def test_a_moderator_pause_stops_the_clock_until_a_moderator_resumes_it(game: Game, mo: Any) -> None:
    moderation.moderation_game_pause(game_id=game.pk, by_user=mo, reason="Dispute")
    game.refresh_from_db()
    assert game.deadline_at is None
    pause = GamePause.objects.get(game=game)
    assert (pause.reason, pause.user_id, pause.note) == ("moderator", mo.pk, "Dispute")

    moderation.moderation_game_resume(game_id=game.pk, by_user=mo, reason="Dispute settled")

    game.refresh_from_db()
    assert game.deadline_at is not None
    assert [e.action for e in entries(game_id=game.pk)] == ["game_paused", "game_resumed"]


def test_resuming_a_game_no_moderator_paused_is_refused_and_not_logged(game: Game, mo: Any) -> None:
    with pytest.raises(InvalidInput):
        moderation.moderation_game_resume(game_id=game.pk, by_user=mo, reason="Nothing to resume")
    assert entries() == []


# --- seats --------------------------------------------------------------------------------


def test_a_seat_handed_to_another_player_is_theirs_and_the_old_links_stop(
    game: Game, mo: Any, charlie: Any
) -> None:
    seat = seat_to_move(game)
    old_user, old_link_key = seat.user_id, seat.link_key

    moderation.moderation_seat_replace(
        game_id=game.pk, seat_index=seat.index or 0, by_user=mo, reason="Left for good", new_user=charlie
    )

    seat.refresh_from_db()
    assert seat.user_id == charlie.pk and seat.link_key != old_link_key and not seat.bot
    (replaced,) = events(game, GameEvent.Kind.SEAT_REPLACED)
    assert replaced.payload == {**replaced.payload, "old_user_id": old_user, "new_user_id": charlie.pk, "bot": False}
    (entry,) = entries(game_id=game.pk)
    assert entry.target_user_id == old_user and entry.details["new_user_id"] == charlie.pk
    # The new player moves in the seat.
    play_a_take(game)
    assert Move.objects.filter(game=game, played_by=PlayedBy.PLAYER).count() == 1


def test_a_seat_handed_to_the_bot_waits_in_line_instead_of_moving_in_the_moderators_request(
    game: Game, mo: Any, django_capture_on_commit_callbacks: Any
) -> None:
    seat = seat_to_move(game)

    with django_capture_on_commit_callbacks(execute=False) as queued:
        moderation.moderation_seat_replace(
            game_id=game.pk, seat_index=seat.index or 0, by_user=mo, reason="Abandoned", bot=True
        )

    game.refresh_from_db()
    assert game.to_move == seat.index
    assert not Move.objects.filter(game=game).exists()
    turn = BotTurn.objects.get(game=game)
    # A real game is a share of its own: no account's practice stands in front of it.
    assert turn.kind == BotTurn.Kind.MODERATOR and turn.account_id is None
    assert queued  # the dispatcher, once the change commits


def test_the_dispatcher_plays_a_handed_seats_turn_as_the_bot_for_the_moderator(game: Game, mo: Any) -> None:
    seat = seat_to_move(game)
    moderation.moderation_seat_replace(game_id=game.pk, seat_index=seat.index or 0, by_user=mo, reason="Gone", bot=True)

    assert services.bot_turns_dispatch() == services.BotTurnPlayed(game_id=game.pk, played=True)

    game.refresh_from_db()
    assert game.to_move != seat.index
    (move,) = Move.objects.filter(game=game, seat=seat.index)
    assert move.played_by == PlayedBy.BOT
    (played,) = events(game, GameEvent.Kind.MOVE_PLAYED)
    assert played.payload["bot_reason"] == "moderator"
    # The other player is to move: the turn left the line.
    assert not BotTurn.objects.filter(game=game).exists()


def test_a_seat_handed_to_the_bot_is_played_on_every_turn_after(game: Game, mo: Any, commit: Any) -> None:
    seat = seat_to_move(game)
    with commit():
        moderation.moderation_seat_replace(
            game_id=game.pk, seat_index=seat.index or 0, by_user=mo, reason="Abandoned", bot=True
        )
    assert Move.objects.filter(game=game, seat=seat.index, played_by=PlayedBy.BOT).count() == 1

    # The other player moves; the dispatcher, queued on commit, answers for the bot.
    with commit():
        play_a_take(game)

    game.refresh_from_db()
    assert game.to_move != seat.index or game.status != Game.Status.ACTIVE
    assert Move.objects.filter(game=game, seat=seat.index, played_by=PlayedBy.BOT).count() == 2


def test_the_deadline_sweep_leaves_a_handed_seats_turn_to_the_bots_worker(game: Game, mo: Any) -> None:
    seat = seat_to_move(game)
    moderation.moderation_seat_replace(game_id=game.pk, seat_index=seat.index or 0, by_user=mo, reason="Gone", bot=True)
    game.refresh_from_db()
    assert game.deadline_at is not None and BotTurn.objects.filter(game=game).exists()

    assert services.game_time_out(game_id=game.pk, now=game.deadline_at + timedelta(minutes=1)) is False

    seat.refresh_from_db()
    assert seat.consecutive_timeouts == 0
    assert not events(game, GameEvent.Kind.TURN_TIMED_OUT)


def test_a_seat_cannot_go_to_someone_already_in_the_game(game: Game, mo: Any, bob: Any) -> None:
    seat = Seat.objects.get(game=game, user__username="alice")

    with pytest.raises(InvalidInput):
        moderation.moderation_seat_replace(game_id=game.pk, seat_index=seat.index or 0, by_user=mo, reason="x", new_user=bob)
    seat.refresh_from_db()
    assert seat.user.username == "alice" and entries() == []


def test_a_seat_that_does_not_exist_is_refused_by_number(game: Game, mo: Any) -> None:
    with pytest.raises(InvalidInput, match="no seat 3"):
        moderation.moderation_seat_replace(game_id=game.pk, seat_index=3, by_user=mo, reason="x", bot=True)


# --- players ---------------------------------------------------------------------------------


def test_a_warning_is_only_a_log_row(mo: Any, bob: Any) -> None:
    moderation.moderation_player_warn(user=bob, by_user=mo, reason="Stalling on purpose")

    (entry,) = entries()
    assert (entry.action, entry.target_user_id, entry.game_id) == ("player_warned", bob.pk, None)


def test_a_suspended_players_tokens_answer_401_account_suspended(game: Game, mo: Any, bob: Any) -> None:
    client = client_for(bob)
    assert client.get("/api/v1/games/").status_code == 200

    assert moderation.moderation_player_suspend(user=bob, by_user=mo, reason="Abusive messages")

    response = client.get("/api/v1/games/")
    assert response.status_code == 401
    assert response.json()["code"] == "account_suspended"
    assert entries()[0].action == "player_suspended"

    assert moderation.moderation_player_unsuspend(user=bob, by_user=mo, reason="Apologised")
    assert client.get("/api/v1/games/").status_code == 200


def test_suspending_a_suspended_player_does_nothing_and_logs_nothing(mo: Any, bob: Any) -> None:
    moderation.moderation_player_suspend(user=bob, by_user=mo, reason="First")

    assert moderation.moderation_player_suspend(user=bob, by_user=mo, reason="Again") is False
    assert len(entries()) == 1


def test_a_suspended_player_cannot_move_and_their_turn_times_out_as_usual(game: Game, mo: Any) -> None:
    seat = seat_to_move(game)
    moderation.moderation_player_suspend(user=seat.user, by_user=mo, reason="Cheating")

    with pytest.raises(errors.AccountSuspended):
        services.move_submit(game_id=game.pk, user=seat.user, text="pass", expected_version=game.version)

    assert game.deadline_at is not None
    assert services.game_time_out(game_id=game.pk, now=game.deadline_at + timedelta(seconds=1)) is True
    assert events(game)[-1].kind in ("move_played", "clock_paused")


# --- the log ------------------------------------------------------------------------------------


def test_the_log_is_append_only(game: Game, mo: Any) -> None:
    entry = moderation.moderation_player_warn(user=mo, by_user=mo, reason="A note")

    entry.reason = "rewritten"
    with pytest.raises(ValueError, match="append-only"):
        entry.save()
    with pytest.raises(ValueError, match="append-only"):
        entry.delete()


def test_the_games_export_has_its_moderation_log_with_people_by_id(game: Game, mo: Any, alice: Any) -> None:
    moderation.moderation_deadline_extend(game_id=game.pk, by_user=mo, reason="Travel", hours=2)
    moderation.moderation_player_warn(user=alice, by_user=mo, reason="Not about this game")

    response = client_for(alice).get(f"/api/v1/games/{game.pk}/export/")

    assert response.status_code == 200
    (entry,) = response.json()["moderation"]
    assert entry["action"] == "deadline_extended" and entry["user_id"] == mo.pk and entry["reason"] == "Travel"
    assert entry["details"]["hours"] == 2
    assert "mo" not in {entry["reason"], str(entry["details"])}


def test_the_dashboard_counts_active_overdue_games_and_todays_moves(game: Game, alice: Any, bob: Any) -> None:
    other = services.game_create(creator=bob, seats=2, invited=[alice])
    services.seat_join(game=other, user=alice)
    play_a_take(other)
    assert game.deadline_at is not None

    counts = selectors.admin_dashboard_counts(now=game.deadline_at + timedelta(seconds=1))

    assert counts["active"] == 2
    assert counts["overdue"] == 1
    assert counts["moves_today"] >= 1


def test_a_suspended_players_seat_links_stop_opening_the_game(game: Game, mo: Any, bob: Any) -> None:
    from games.links import SeatLinkRevoked, seat_for_link, seat_link_token

    seat = Seat.objects.get(game=game, user=bob)
    token = seat_link_token(seat=seat)
    assert seat_for_link(game_id=game.pk, token=token) == seat

    moderation.moderation_player_suspend(user=bob, by_user=mo, reason="Abuse")

    with pytest.raises(SeatLinkRevoked, match="suspended"):
        seat_for_link(game_id=game.pk, token=token)
    moderation.moderation_player_unsuspend(user=bob, by_user=mo, reason="Lifted")
    assert seat_for_link(game_id=game.pk, token=token) == seat


def test_a_seat_handed_to_the_bot_shows_as_the_bots_in_the_api_and_on_the_page(game: Game, mo: Any) -> None:
    from django.test import Client

    seat = seat_to_move(game)
    moderation.moderation_seat_replace(
        game_id=game.pk, seat_index=seat.index or 0, by_user=mo, reason="Abandoned", bot=True
    )
    other = Seat.objects.exclude(pk=seat.pk).get(game=game)
    view = client_for(other.user).get(f"/api/v1/games/{game.pk}/").json()
    assert {s["username"]: s["bot"] for s in view["seats"]} == {seat.user.username: True, other.user.username: False}
    browser = Client()
    browser.force_login(other.user)
    html = browser.get(f"/games/{game.pk}/").content.decode()
    assert html.count(">played by the bot</span>") == 1  # the seat; its moves say "(played by the bot)"


def test_an_adjudicated_game_page_says_a_moderator_decided_the_places(game: Game, mo: Any) -> None:
    from django.test import Client

    moderation.moderation_game_adjudicate(game_id=game.pk, by_user=mo, reason="Both agreed", places=[2, 1])
    browser = Client()
    browser.force_login(Seat.objects.filter(game=game).first().user)  # type: ignore[union-attr]
    html = browser.get(f"/games/{game.pk}/").content.decode()
    assert "a moderator decided the places" in html and "(adjudicated)" not in html
