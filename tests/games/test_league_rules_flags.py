"""A league's rules on vacation and pauses, carried by its games: a game that
allows no vacation keeps its clock running while its player is on vacation, and
a game that allows no pauses refuses a moderator's pause (a pause for the server
always goes through). Both flags show in the game's representation.

Personas: alice plays bob in a game without vacation and dave in an ordinary one
(conftest.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from games import services
from games.errors import PauseNotAllowed
from games.models import Game, GamePause, ModerationEntry, Seat, Vacation
from games.moderation import moderation_game_pause
from tests.games.clock_helpers import events, play_a_take, started_game, time_out
from tests.games.game_helpers import client_for

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fixed_clock")]  # fixed_clock: at NOON (tests/games/conftest.py)


def alices_turn(game: Game) -> Game:
    seat = Seat.objects.get(game=game, user__username="alice")
    if game.to_move != seat.index:
        play_a_take(game)
        game.refresh_from_db()
    assert game.to_move == seat.index
    return game


def test_games_allow_vacation_and_pauses_unless_created_without(alice: Any, bob: Any) -> None:
    ordinary = started_game(alice, bob)
    strict = started_game(alice, bob, vacation_allowed=False, pauses_allowed=False)
    assert (ordinary.vacation_allowed, ordinary.pauses_allowed) == (True, True)
    assert (strict.vacation_allowed, strict.pauses_allowed) == (False, False)


def test_a_deadline_in_a_game_without_vacation_is_a_timeout_and_takes_no_vacation_day(
    alice: Any, bob: Any
) -> None:
    game = alices_turn(started_game(alice, bob, vacation_allowed=False))

    assert time_out(game) is True

    assert len(events(game, "turn_timed_out")) == 1
    assert events(game, "clock_paused") == []
    assert not Vacation.objects.filter(user=alice).exists()


def test_a_player_on_vacation_still_times_out_in_a_game_without_vacation(alice: Any, bob: Any) -> None:
    game = alices_turn(started_game(alice, bob, vacation_allowed=False))
    services.vacation_take(user=alice, days=3)

    game.refresh_from_db()
    assert game.deadline_at is not None and not GamePause.objects.filter(game=game).exists()
    assert time_out(game) is True
    assert len(events(game, "turn_timed_out")) == 1


def test_vacation_taken_in_advance_pauses_the_other_games_but_not_one_without_vacation(
    alice: Any, bob: Any, dave: Any
) -> None:
    strict = started_game(alice, bob, vacation_allowed=False)
    ordinary = started_game(alice, dave)

    services.vacation_take(user=alice, days=2)

    strict.refresh_from_db()
    ordinary.refresh_from_db()
    assert strict.deadline_at is not None and events(strict, "clock_paused") == []
    assert ordinary.deadline_at is None
    assert GamePause.objects.filter(game=ordinary, reason="vacation", ended_at__isnull=True).count() == 1


def test_a_vacation_day_taken_in_one_game_leaves_a_game_without_vacation_running(
    alice: Any, bob: Any, dave: Any
) -> None:
    ordinary = alices_turn(started_game(alice, dave))
    strict = started_game(alice, bob, vacation_allowed=False)

    assert time_out(ordinary) is True

    strict.refresh_from_db()
    assert Vacation.objects.filter(user=alice, automatic=True).count() == 1
    assert strict.deadline_at is not None and events(strict, "clock_paused") == []


def test_a_moderator_cannot_pause_a_game_without_pauses(alice: Any, bob: Any, dave: Any) -> None:
    game = started_game(alice, bob, pauses_allowed=False)
    deadline = game.deadline_at

    with pytest.raises(PauseNotAllowed) as refused:
        moderation_game_pause(game_id=game.pk, by_user=dave, reason="The players asked for a break")

    assert "allow no pauses" in refused.value.message
    assert refused.value.code == "pause_not_allowed"
    game.refresh_from_db()
    assert game.deadline_at == deadline and not GamePause.objects.filter(game=game).exists()
    assert not ModerationEntry.objects.exists()


def test_a_server_pause_goes_through_in_a_game_without_pauses(alice: Any, bob: Any) -> None:
    game = started_game(alice, bob, pauses_allowed=False)

    services.game_pause(game_id=game.pk, reason="server", note="Outage")

    game.refresh_from_db()
    assert game.deadline_at is None and game.clock_remaining is not None


def test_pausing_every_game_for_a_moderator_skips_the_games_without_pauses(alice: Any, bob: Any, dave: Any) -> None:
    strict = started_game(alice, bob, pauses_allowed=False)
    ordinary = started_game(alice, dave)

    assert services.games_pause_all(reason="moderator", note="Tournament break") == 1

    strict.refresh_from_db()
    ordinary.refresh_from_db()
    assert strict.deadline_at is not None and ordinary.deadline_at is None


def test_the_game_shows_whether_it_allows_vacation_and_pauses(alice: Any, bob: Any) -> None:
    game = started_game(alice, bob, vacation_allowed=False)

    body = client_for(alice).get(f"/api/v1/games/{game.pk}/").json()

    assert (body["vacation_allowed"], body["pauses_allowed"]) == (False, True)
