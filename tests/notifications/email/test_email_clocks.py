"""The clocks' events, as the games services write them: a bot move on a missed
deadline, a forfeit on time, and a vacation, each told once to the right people."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from tests.notifications.email_helpers import headline_of, headlines_to, mail_to, start_game, user_to_move

from games import services
from games.models import Game


def _run_out_the_clock(commit: Any, clock: Any, game: Game) -> None:
    game.refresh_from_db()
    assert game.deadline_at is not None
    clock.move_to(game.deadline_at + timedelta(seconds=1))
    with commit():
        assert services.game_time_out(game_id=game.pk)
    game.refresh_from_db()


def test_a_missed_deadline_tells_the_sleeper_the_bot_played_and_the_next_player_it_is_their_turn(
    alice: Any, bob: Any, commit: Any, clock: Any, settings: Any
) -> None:
    settings.VACATION_DAYS_PER_YEAR = 0
    game = start_game(commit, alice, bob)
    sleeper = user_to_move(game)
    other = bob if sleeper == alice else alice
    mail.outbox.clear()
    _run_out_the_clock(commit, clock, game)
    assert headlines_to(sleeper) == [f"Time ran out in game {game.pk}: a move was played for you"]
    assert f"timeout in a row; after {game.forfeit_after} your seat is forfeited" in mail_to(sleeper)[0].body
    assert len(headlines_to(other)) == 1 and headlines_to(other)[0].startswith(f"Your turn in game {game.pk}: ")
    # The next player is told the bot chose that move, not the sleeper.
    name = sleeper.player.display_name
    assert f"The built-in bot, for {name} (time ran out), played:" in mail_to(other)[0].body


def test_a_forfeit_on_time_tells_everyone_and_ends_a_two_player_game(
    alice: Any, bob: Any, commit: Any, clock: Any, settings: Any
) -> None:
    settings.VACATION_DAYS_PER_YEAR = 0
    game = start_game(commit, alice, bob)
    Game.objects.filter(pk=game.pk).update(forfeit_after=1)
    sleeper = user_to_move(game)
    other = bob if sleeper == alice else alice
    mail.outbox.clear()
    _run_out_the_clock(commit, clock, game)
    assert sorted(headlines_to(sleeper)) == sorted([f"Game {game.pk} is over", f"You forfeited game {game.pk} on time"])
    name = sleeper.player.display_name
    assert sorted(headlines_to(other)) == sorted(
        [f"Game {game.pk} is over: you won", f"{name} forfeited game {game.pk} on time"]
    )


def test_a_missed_deadline_with_vacation_days_left_sends_one_vacation_email(
    alice: Any, bob: Any, commit: Any, clock: Any
) -> None:
    game = start_game(commit, alice, bob)
    sleeper = user_to_move(game)
    mail.outbox.clear()
    _run_out_the_clock(commit, clock, game)
    assert len(headlines_to(sleeper)) == 1 and headlines_to(sleeper)[0].startswith("Your games are paused until ")
    assert "a vacation day was taken for you" in mail_to(sleeper)[0].body


def test_a_vacation_taken_in_advance_is_emailed_once_across_games(
    alice: Any, bob: Any, charlie: Any, commit: Any, clock: Any
) -> None:
    start_game(commit, alice, bob)
    start_game(commit, alice, charlie)
    mail.outbox.clear()
    with commit():
        services.vacation_take(user=alice, days=2)
    assert headlines_to(alice) == ["Your games are paused until Wednesday 4 March 2026, 09:00 (UTC)"]
    assert "Your vacation has begun" in mail_to(alice)[0].body
    assert mail_to(bob) == [] and mail_to(charlie) == []


@pytest.fixture(autouse=True)
def _clock_first(clock: Any) -> None:
    """Every test here moves the clock."""


def test_a_seat_handed_to_the_bot_is_told_so_and_not_that_time_ran_out(
    alice: Any, bob: Any, charlie: Any, commit: Any
) -> None:
    from games import moderation
    from games.models import GameEvent, Seat

    game = start_game(commit, alice, bob)
    handed = Seat.objects.get(game=game, index=game.to_move)
    other = bob if handed.user == alice else alice
    mail.outbox.clear()
    with commit():
        moderation.moderation_seat_replace(
            game_id=game.pk, seat_index=handed.index or 0, by_user=charlie, reason="Abandoned", bot=True
        )
    played = GameEvent.objects.filter(game=game, kind="move_played").latest("id")
    assert played.payload["played_by"] == "bot" and played.payload["bot_reason"] == "moderator"
    name = handed.user.player.display_name
    turn = next(m for m in mail_to(other) if headline_of(m).startswith("Your turn"))
    assert f"The built-in bot, for {name} (a moderator handed the seat to the bot), played:" in turn.body
    assert "time ran out" not in turn.body
    told = next(m for m in mail_to(handed.user) if "bot" in headline_of(m).lower())
    assert headline_of(told) == f"The bot played your seat in game {game.pk}"
    assert "A moderator handed your seat" in told.body and "ran out" not in told.body
    assert "forfeited" not in told.body  # the bot's moves are no timeouts


def test_a_timeout_bot_move_says_why_in_its_event(alice: Any, bob: Any, commit: Any, clock: Any, settings: Any) -> None:
    from games.models import GameEvent

    settings.VACATION_DAYS_PER_YEAR = 0
    game = start_game(commit, alice, bob)
    _run_out_the_clock(commit, clock, game)
    played = GameEvent.objects.filter(game=game, kind="move_played").latest("id")
    assert (played.payload["played_by"], played.payload["bot_reason"]) == ("bot", "timeout")
