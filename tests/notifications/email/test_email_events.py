"""Each game event sends the right emails to the right people, exactly once."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.db import transaction
from tests.notifications.email_helpers import (
    add_event,
    headlines_to,
    mail_to,
    play,
    seat_user,
    start_game,
    user_to_move,
)

from games import services
from games.models import Game, GameEvent
from notifications.models import Notification
from notifications.email.tasks import consume_event

pytestmark = pytest.mark.usefixtures("clock")


def test_an_invitation_is_emailed_to_each_invitee_and_not_to_the_creator(
    alice: Any, bob: Any, charlie: Any, commit: Any
) -> None:
    with commit():
        game = services.game_create(creator=alice, variant="base", seats=3, invited=[bob, charlie])
    assert headlines_to(bob) == ["Alice invites you to a game of Splendor"]
    assert headlines_to(charlie) == ["Alice invites you to a game of Splendor"]
    assert mail_to(alice) == []
    body = mail_to(bob)[0].body
    assert f"/games/{game.pk}/?seat=" in body
    assert "/notifications/opt-out/" in body


def test_the_first_player_is_told_it_is_their_turn_when_the_game_starts(
    alice: Any, bob: Any, commit: Any
) -> None:
    game = start_game(commit, alice, bob)
    first = user_to_move(game)
    other = bob if first == alice else alice
    assert [s for s in headlines_to(first) if s.startswith("Your turn")] == [f"Your turn in game {game.pk}"]
    assert [s for s in headlines_to(other) if s.startswith("Your turn")] == []


def test_after_a_move_the_next_player_gets_a_turn_email_naming_the_move(alice: Any, bob: Any, commit: Any) -> None:
    game = start_game(commit, alice, bob)
    mover = user_to_move(game)
    mail.outbox.clear()
    play(commit, game, "take WUG")
    nxt = user_to_move(game)
    assert nxt != mover
    assert headlines_to(nxt) == [f"Your turn in game {game.pk}: {mover.player.display_name} played take white, blue and green"]
    assert mail_to(mover) == []
    body = mail_to(nxt)[0].body
    assert "Some moves you could play:" in body
    assert "Play by Thursday 5 March 2026, 09:00 (UTC)" in body


def test_the_deadline_is_shown_in_the_players_time_zone(alice: Any, bob: Any, commit: Any) -> None:
    for user in (alice, bob):
        user.player.time_zone = "Asia/Tokyo"
        user.player.save()
    game = start_game(commit, alice, bob)
    message = mail_to(user_to_move(game))[-1]
    assert "Play by Thursday 5 March 2026, 18:00 (Asia/Tokyo)" in message.body


def test_running_the_consumer_again_for_an_event_sends_nothing_more(alice: Any, bob: Any, commit: Any) -> None:
    game = start_game(commit, alice, bob)
    sent = len(mail.outbox)
    for event in GameEvent.objects.filter(game=game):
        with commit():
            consume_event(event.pk)
        # Even when the consumer's claim is forgotten, the keys hold.
        event.claims.all().delete()
        with commit():
            consume_event(event.pk)
    assert len(mail.outbox) == sent


def test_a_turn_email_is_not_sent_when_the_game_has_moved_on(alice: Any, bob: Any, commit: Any) -> None:
    game = start_game(commit, alice, bob)
    play(commit, game)
    first_move = GameEvent.objects.filter(game=game, kind="move_played").get()
    play(commit, game)
    first_move.claims.all().delete()
    Notification.objects.filter(event=first_move).delete()
    mail.outbox.clear()
    with commit():
        consume_event(first_move.pk)
    assert mail.outbox == []


def test_a_change_that_is_rolled_back_sends_nothing(alice: Any, bob: Any, commit: Any) -> None:
    with pytest.raises(RuntimeError), commit(), transaction.atomic():
        services.game_create(creator=alice, variant="base", seats=2, invited=[bob])
        raise RuntimeError("the request failed after the game was written")
    assert mail.outbox == []
    assert Notification.objects.count() == 0


def test_a_bot_move_tells_its_player_and_the_next_player(alice: Any, bob: Any, commit: Any) -> None:
    game = start_game(commit, alice, bob)
    sleeper = user_to_move(game)
    add_event(game, "turn_timed_out", {"seat": game.to_move, "user_id": sleeper.pk, "consecutive": 1, "forfeit_after": 3})
    play(commit, game, "take WUG")  # stands in for the bot's move
    move = GameEvent.objects.filter(game=game, kind="move_played").get()
    move.payload = {**move.payload, "played_by": "bot", "automatic": True}
    move.save()
    move.claims.all().delete()
    Notification.objects.filter(event=move).delete()
    mail.outbox.clear()
    with commit():
        consume_event(move.pk)
    assert headlines_to(sleeper) == [f"Time ran out in game {game.pk}: a move was played for you"]
    assert "1 timeout in a row; after 3 your seat is forfeited" in mail_to(sleeper)[0].body
    assert [s.split(":")[0] for s in headlines_to(user_to_move(game))] == [f"Your turn in game {game.pk}"]


def test_a_forfeit_on_time_is_emailed_to_everyone_in_the_game(alice: Any, bob: Any, commit: Any) -> None:
    game = start_game(commit, alice, bob)
    gone = seat_user(game, 0)
    mail.outbox.clear()
    event = add_event(game, "seat_resigned", {"seat": 0, "user_id": gone.pk, "reason": "timeout"})
    with commit():
        consume_event(event.pk)
    other = bob if gone == alice else alice
    assert headlines_to(gone) == [f"You forfeited game {game.pk} on time"]
    assert headlines_to(other) == [f"{gone.player.display_name} forfeited game {game.pk} on time"]


def test_a_resignation_sends_no_forfeit_email(alice: Any, bob: Any, commit: Any) -> None:
    game = start_game(commit, alice, bob)
    mail.outbox.clear()
    event = add_event(game, "seat_resigned", {"seat": 0, "user_id": alice.pk, "reason": "resignation"})
    with commit():
        consume_event(event.pk)
    assert mail.outbox == []


def test_the_end_of_a_game_is_emailed_to_every_seat_with_the_seed_and_how_to_check_it(
    alice: Any, bob: Any, commit: Any
) -> None:
    game = start_game(commit, alice, bob)
    mail.outbox.clear()
    with commit():
        services.game_resign(game=game, user=bob)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert headlines_to(alice) == [f"Game {game.pk} is over: you won"]
    assert headlines_to(bob) == [f"Game {game.pk} is over"]
    body = mail_to(bob)[0].body
    assert game.seed in body and game.seed_commitment in body
    assert f"printf %s {game.seed} | sha256sum" in body
    assert "1. Alice: 0 points" in body or "1. Alice (you)" in mail_to(alice)[0].body


def test_a_cancelled_game_is_emailed_to_the_invitees_but_not_to_the_creator(
    alice: Any, bob: Any, charlie: Any, commit: Any
) -> None:
    with commit():
        game = services.game_create(creator=alice, variant="base", seats=3, invited=[bob, charlie])
    mail.outbox.clear()
    with commit():
        services.game_cancel(game_id=game.pk, user=alice)
    assert headlines_to(bob) == [f"Game {game.pk} was called off"]
    assert headlines_to(charlie) == [f"Game {game.pk} was called off"]
    assert "Alice cancelled it" in mail_to(bob)[0].body
    assert mail_to(alice) == []


def test_a_vacation_with_notice_is_emailed_once_to_the_player(alice: Any, bob: Any, commit: Any) -> None:
    game = start_game(commit, alice, bob)
    mail.outbox.clear()
    until = "2026-03-03T09:00:00+00:00"
    quiet = add_event(game, "clock_paused", {"reason": "vacation", "user_id": alice.pk, "until": until, "automatic": True, "notice": False})
    loud = add_event(game, "clock_paused", {"reason": "vacation", "user_id": alice.pk, "until": until, "automatic": True, "notice": True})
    with commit():
        consume_event(quiet.pk)
        consume_event(loud.pk)
    assert headlines_to(alice) == ["Your games are paused until Tuesday 3 March 2026, 09:00 (UTC)"]
    assert mail_to(bob) == []


def test_an_event_of_a_kind_with_no_email_is_recorded_as_handled(alice: Any, bob: Any, commit: Any) -> None:
    game = start_game(commit, alice, bob)
    mail.outbox.clear()
    event = add_event(game, "clock_resumed", {"reason": "vacation"})
    with commit():
        assert consume_event(event.pk) is True
    assert mail.outbox == []
    assert event.claims.get(consumer="email").done_at is not None
