"""A forfeit on time, told as it happens (games.services.clocks): in a two-player
game the forfeit ends the game and the other player wins; with three or four
players the game goes on, the server plays a quiet move on the forfeited seat's
turns, and the seat ranks below everyone still playing. The forfeit email, the
warning before it and the game-over email after it each say which."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.core.mail import EmailMessage
from tests.notifications.email_helpers import add_event, headline_of, mail_to, start_game, user_to_move

from games import services
from games.models import Game, Seat
from notifications.email.tasks import consume_event

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_vacation_days(settings: Any) -> None:
    # A missed deadline would otherwise be a vacation day, not a timeout.
    settings.VACATION_DAYS_PER_YEAR = 0


def _three_player_game(commit: Any, alice: Any, bob: Any, charlie: Any) -> Game:
    with commit():
        game = services.game_create(creator=alice, variant="base", seats=3, invited=[bob, charlie])
    with commit():
        services.seat_join(game=game, user=bob)
    with commit():
        services.seat_join(game=game, user=charlie)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    return game


def _run_out_the_clock(commit: Any, clock: Any, game: Game) -> None:
    game.refresh_from_db()
    assert game.deadline_at is not None
    clock.move_to(game.deadline_at + timedelta(seconds=1))
    with commit():
        assert services.game_time_out(game_id=game.pk)
    game.refresh_from_db()


def _email(user: Any, headline_start: str) -> EmailMessage:
    found = [m for m in mail_to(user) if headline_of(m).startswith(headline_start)]
    assert len(found) == 1, [headline_of(m) for m in mail_to(user)]
    return found[0]


def _html(message: EmailMessage) -> str:
    return next(str(content) for content, kind in message.alternatives if kind == "text/html")


def test_a_two_player_forfeit_tells_both_that_the_game_is_over_and_who_won(
    alice: Any, bob: Any, commit: Any, clock: Any
) -> None:
    game = start_game(commit, alice, bob)
    Game.objects.filter(pk=game.pk).update(forfeit_after=1)
    sleeper = user_to_move(game)
    other = bob if sleeper == alice else alice
    sleeper_name, other_name = sleeper.player.display_name, other.player.display_name
    mail.outbox.clear()
    _run_out_the_clock(commit, clock, game)
    assert game.status == Game.Status.FINISHED

    mine = _email(sleeper, f"You forfeited game {game.pk}")
    assert "so your seat is forfeited" in mine.body
    assert f"the game is over, and {other_name} wins." in mine.body
    theirs = _email(other, f"{sleeper_name} forfeited game {game.pk}")
    assert f"{sleeper_name} missed too many moves in a row in game {game.pk}" in theirs.body
    assert "the game is over, and you win." in theirs.body
    for told in (mine, theirs):
        for text in (told.body, _html(told)):
            assert "from now on" not in text and "goes on" not in text and "quiet move" not in text
        assert "The final standings follow in the game-over email." in told.body

    over = _email(other, f"Game {game.pk} is over")
    assert (
        f"{sleeper_name} missed too many moves in a row and forfeited, which left you as the only player in the game."
        in over.body
    )
    assert f"{sleeper_name}: 0 points (forfeited on time)" in over.body
    over_for_sleeper = _email(sleeper, f"Game {game.pk} is over")
    assert (
        f"You missed too many moves in a row and forfeited, which left {other_name} as the only player in the game."
        in over_for_sleeper.body
    )
    assert "(timeout)" not in over.body  # the reason in words, not its code


def test_a_three_player_forfeit_says_the_game_goes_on_with_quiet_moves_for_the_seat(
    alice: Any, bob: Any, charlie: Any, commit: Any, clock: Any
) -> None:
    game = _three_player_game(commit, alice, bob, charlie)
    Game.objects.filter(pk=game.pk).update(forfeit_after=1)
    sleeper = user_to_move(game)
    sleeper_name = sleeper.player.display_name
    others = [u for u in (alice, bob, charlie) if u != sleeper]
    mail.outbox.clear()
    _run_out_the_clock(commit, clock, game)
    assert game.status == Game.Status.ACTIVE  # two players are left

    mine = _email(sleeper, f"You forfeited game {game.pk}")
    assert "you are out of the game, ranked below every player still in it when it ends" in mine.body
    assert "The game goes on without you; on your seat's turns the server plays a quiet move for it" in mine.body
    for other in others:
        theirs = _email(other, f"{sleeper_name} forfeited game {game.pk}")
        assert "The game goes on; on that seat's turns the server plays a quiet move for it" in theirs.body
        assert "The game goes on" in _html(theirs)
    for user in (sleeper, *others):
        assert not [m for m in mail_to(user) if headline_of(m).startswith(f"Game {game.pk} is over")]
        told = next(m for m in mail_to(user) if "forfeited game" in headline_of(m))
        assert "is over" not in told.body and "wins" not in told.body


def test_after_a_three_player_forfeit_the_game_over_email_names_the_forfeit_and_the_last_to_leave(
    alice: Any, bob: Any, charlie: Any, commit: Any, clock: Any
) -> None:
    game = _three_player_game(commit, alice, bob, charlie)
    Game.objects.filter(pk=game.pk).update(forfeit_after=1)
    sleeper = user_to_move(game)
    _run_out_the_clock(commit, clock, game)
    quitter = user_to_move(game)
    winner = next(u for u in (alice, bob, charlie) if u not in (sleeper, quitter))
    mail.outbox.clear()
    with commit():
        services.game_resign(game=Game.objects.get(pk=game.pk), user=quitter)
    over = _email(winner, f"Game {game.pk} is over")
    quitter_name, sleeper_name = quitter.player.display_name, sleeper.player.display_name
    assert f"{quitter_name} resigned, which left you as the only player in the game." in over.body
    assert f"{sleeper_name}: 0 points (forfeited on time)" in over.body
    assert f"{quitter_name}: 0 points (resigned)" in over.body
    assert "(forfeited on time)" in _html(over)


def test_the_warning_before_a_forfeit_says_what_forfeiting_would_do(
    alice: Any, bob: Any, charlie: Any, commit: Any, clock: Any
) -> None:
    two = start_game(commit, alice, bob)
    sleeper = user_to_move(two)
    mail.outbox.clear()
    _run_out_the_clock(commit, clock, two)
    warned = _email(sleeper, f"Time ran out in game {two.pk}")
    assert f"after {two.forfeit_after} your seat is forfeited and the game ends: the other player wins." in warned.body

    three = _three_player_game(commit, alice, bob, charlie)
    sleeper = user_to_move(three)
    mail.outbox.clear()
    _run_out_the_clock(commit, clock, three)
    warned = _email(sleeper, f"Time ran out in game {three.pk}")
    assert (
        f"after {three.forfeit_after} your seat is forfeited: the game goes on without you, "
        "and the server plays a quiet move on your seat's turns." in warned.body
    )
    assert Seat.objects.filter(game=three, resigned=False).count() == 3


@pytest.mark.parametrize(
    ("reason", "words"),
    [
        ("points", "A player reached the points target and the round was played to its end."),
        ("gauntlet", "A player completed the Infinity Gauntlet and the round was played to its end."),
        ("all-passed", "Every player passed in a row, so nobody could move any more."),
        ("round-limit", "The game reached its round limit."),
    ],
)
def test_the_game_over_email_says_in_words_how_the_game_ended(
    alice: Any, bob: Any, commit: Any, reason: str, words: str
) -> None:
    game = start_game(commit, alice, bob)
    result = {"winners": [0], "scores": [15, 9], "places": [1, 2], "ranking": [0, 1], "reason": reason,
              "resigned": [], "timed_out": []}  # fmt: skip
    event = add_event(game, "game_finished", {"result": result})
    mail.outbox.clear()
    with commit():
        consume_event(event.pk)
    for user in (alice, bob):
        over = _email(user, f"Game {game.pk} is over")
        assert words in over.body and words in _html(over)
        assert f"({reason})" not in over.body
