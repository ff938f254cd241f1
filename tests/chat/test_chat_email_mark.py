"""Table talk reaches a player's game email whatever the queue did: the lines are
chosen by how far that player's email has carried them (``ChatEmailMark``, by line
id), never by when an email was created, and count as carried only once the email
carrying them is sent. Every line written before an email is sent reaches the
reader once across their emails, however late or out of order those go.

alice and bob play (the mover writes, the other reads); charlie and dave watch a
public game, so that a spectator's erased line sits beside one that stays."""

from __future__ import annotations

import smtplib
import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.db import connection

from accounts.services import player_erase
from chat import selectors, services
from chat.models import ChatEmailMark
from games.models import Game, Seat
from notifications.email import services as email_services
from notifications.models import Notification
from tests.chat.chat_helpers import game_of, make_moderator, say
from tests.notifications.email_helpers import play

pytestmark = pytest.mark.django_db


def _players(game: Game) -> tuple[Any, Any]:
    """(the player to move, the other)."""
    mover = Seat.objects.select_related("user").get(game=game, index=game.to_move).user
    other = Seat.objects.select_related("user").get(game=game, index=1 - game.to_move).user
    return mover, other


def _bodies(user: Any) -> list[str]:
    return [m.body for m in mail.outbox if user.email in m.to]


def _times_mailed(user: Any, text: str) -> int:
    return sum(body.count(f": {text}\n") for body in _bodies(user))


def _mark(user: Any, game: Game) -> ChatEmailMark:
    return ChatEmailMark.objects.get(user=user, game=game)


@pytest.fixture
def held_queue(monkeypatch: Any) -> None:
    """No send task reaches a worker (a long queue, a lost message): notifications
    stay queued until ``send_due`` or ``notification_send`` sends them."""
    monkeypatch.setattr(email_services, "_queue_send", lambda notification_id: None)


def _game_email(user: Any, game: Game, key: str) -> int:
    """A game email to ``user`` waiting to be sent (its id)."""
    return Notification.objects.create(
        key=key, kind="your_turn", user=user, game=game, status=Notification.Status.QUEUED
    ).pk


def _queued_turn_email(user: Any) -> Notification:
    return Notification.objects.filter(user=user, kind="your_turn", status=Notification.Status.QUEUED).latest("pk")


def test_lines_written_after_a_turn_email_was_queued_go_in_it_when_it_is_sent_late(
    clock: Any, commit: Any, alice: Any, bob: Any, held_queue: None
) -> None:
    game = game_of(commit, alice, bob)
    mover, other = _players(game)
    say(commit, game, mover, "before the move")
    play(commit, game)
    late = _queued_turn_email(other)
    say(commit, game, mover, "after the email was queued")
    clock.shift(timedelta(minutes=30))
    assert email_services.notification_send(notification_id=late.pk) == "sent"
    body = _bodies(other)[-1]
    assert ": before the move\n" in body and ": after the email was queued\n" in body

    play(commit, game)  # the other moves
    say(commit, game, mover, "a later line")
    play(commit, game)
    assert email_services.notifications_send_due() >= 1
    assert [_times_mailed(other, t) for t in ("before the move", "after the email was queued", "a later line")] == [1, 1, 1]


def test_two_late_emails_sent_newest_first_carry_every_line_once(
    clock: Any, commit: Any, alice: Any, bob: Any, held_queue: None
) -> None:
    game = game_of(commit, alice, bob)
    mover, other = _players(game)
    say(commit, game, mover, "first words")
    play(commit, game)
    older = _queued_turn_email(other)
    play(commit, game)  # the other moves
    say(commit, game, mover, "second words")
    play(commit, game)
    newer = _queued_turn_email(other)
    assert older.pk != newer.pk
    assert email_services.notification_send(notification_id=newer.pk) == "sent"
    assert email_services.notification_send(notification_id=older.pk) == "sent"
    assert len(_bodies(other)) >= 2
    assert [_times_mailed(other, t) for t in ("first words", "second words")] == [1, 1]


def test_an_email_rendered_while_another_carries_the_lines_carries_none_of_them(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = game_of(commit, alice, bob)
    mover, other = _players(game)
    say(commit, game, mover, "only once")
    one, two = _game_email(other, game, "test:one"), _game_email(other, game, "test:two")
    first = services.chat_email_lines_take(notification_id=one, user_id=other.pk, game=game)
    second = services.chat_email_lines_take(notification_id=two, user_id=other.pk, game=game)
    again = services.chat_email_lines_take(notification_id=one, user_id=other.pk, game=game)
    assert [line["text"] for line in first] == ["only once"]
    assert second == []
    assert again == first  # the first rendered again (a retry) carries the same lines
    assert services.chat_email_lines_sent(notification_id=two, user_id=other.pk, game_id=game.pk) is False
    assert services.chat_email_lines_sent(notification_id=one, user_id=other.pk, game_id=game.pk) is True
    assert services.chat_email_lines_take(notification_id=two, user_id=other.pk, game=game) == []


def test_a_send_that_fails_and_is_retried_carries_its_lines_once(
    clock: Any, commit: Any, alice: Any, bob: Any, monkeypatch: Any
) -> None:
    game = game_of(commit, alice, bob)
    mover, other = _players(game)
    say(commit, game, mover, "through a flaky server")
    real_send = email_services.EmailMultiAlternatives.send
    attempts: list[str] = []

    def flaky(message: Any, fail_silently: bool = False) -> int:
        if other.email in message.to and not attempts:
            attempts.append("refused")
            raise smtplib.SMTPServerDisconnected("gone")
        return int(real_send(message, fail_silently))

    monkeypatch.setattr(email_services.EmailMultiAlternatives, "send", flaky)
    play(commit, game)
    retried = _queued_turn_email(other)
    assert attempts == ["refused"] and retried.attempts == 1
    assert _mark(other, game).carrying_notification_id == retried.pk  # the lines wait for this email
    say(commit, game, mover, "written while it waited")
    clock.shift(timedelta(hours=1))
    assert email_services.notifications_send_due() == 1
    assert _times_mailed(other, "through a flaky server") == 1

    play(commit, game)  # the other moves
    play(commit, game)
    assert [_times_mailed(other, t) for t in ("through a flaky server", "written while it waited")] == [1, 1]


def test_the_lines_of_an_email_given_up_go_in_the_next_one(
    clock: Any, commit: Any, alice: Any, bob: Any, monkeypatch: Any
) -> None:
    game = game_of(commit, alice, bob)
    mover, other = _players(game)
    say(commit, game, mover, "not lost")
    real_send = email_services.EmailMultiAlternatives.send
    server_down = [True]

    def down(message: Any, fail_silently: bool = False) -> int:
        if server_down[0] and other.email in message.to:
            raise smtplib.SMTPServerDisconnected("down")
        return int(real_send(message, fail_silently))

    monkeypatch.setattr(email_services.EmailMultiAlternatives, "send", down)
    play(commit, game)
    lost = _queued_turn_email(other)
    for _ in range(3):  # NOTIFICATION_MAX_ATTEMPTS in these tests
        clock.shift(timedelta(hours=1))
        email_services.notifications_send_due()
    lost.refresh_from_db()
    assert lost.status == Notification.Status.FAILED
    assert _times_mailed(other, "not lost") == 0
    server_down[0] = False

    play(commit, game)  # the other moves
    play(commit, game)
    assert _times_mailed(other, "not lost") == 1


def test_a_hidden_line_is_not_sent_and_the_mark_passes_it(clock: Any, commit: Any, alice: Any, bob: Any, dave: Any) -> None:
    game = game_of(commit, alice, bob)
    mover, other = _players(game)
    kept = say(commit, game, mover, "kind words")
    rude = say(commit, game, mover, "rude words")
    services.chat_message_hide(message_id=rude.pk, by_user=make_moderator(dave), reason="rude")
    play(commit, game)
    assert _times_mailed(other, "kind words") == 1 and _times_mailed(other, "rude words") == 0
    assert _mark(other, game).last_mailed_id == rude.pk > kept.pk

    play(commit, game)  # the other moves
    alone = say(commit, game, mover, "more rude words")
    services.chat_message_hide(message_id=alone.pk, by_user=make_moderator(dave), reason="rude")
    play(commit, game)
    assert "Table talk since your last email:" not in _bodies(other)[-1]
    assert _mark(other, game).last_mailed_id == alone.pk
    assert _mark(other, game).carrying_notification_id is None


def test_an_erased_authors_line_is_not_sent_and_the_mark_passes_it(
    clock: Any, commit: Any, alice: Any, bob: Any, charlie: Any, dave: Any
) -> None:
    game = game_of(commit, alice, bob, public=True)
    mover, other = _players(game)
    stays = say(commit, game, dave, "a spectator's line", thread="spectators")
    goes = say(commit, game, charlie, "an erased spectator's line", thread="spectators")
    with commit():
        player_erase(user=charlie)
    play(commit, game)
    assert _times_mailed(other, "a spectator's line") == 1
    assert not [body for body in _bodies(other) if "erased spectator" in body]
    assert _mark(other, game).last_mailed_id == goes.pk > stays.pk


def test_a_readers_own_lines_are_passed_over_without_an_email_carrying_them(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = game_of(commit, alice, bob)
    mover, other = _players(game)
    own = say(commit, game, other, "my own words")
    assert services.chat_email_lines_take(notification_id=10_003, user_id=other.pk, game=game) == []
    mark = _mark(other, game)
    assert mark.last_mailed_id == own.pk and mark.carrying_notification_id is None


def test_lines_sent_one_email_each_are_not_sent_again_once_the_player_turns_that_off(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = game_of(commit, alice, bob)
    mover, other = _players(game)
    services.chat_preferences_set(game_id=game.pk, user=other, email_each_line=True)
    say(commit, game, mover, "sent on its own")
    play(commit, game)
    play(commit, game)  # the other moves
    services.chat_preferences_set(game_id=game.pk, user=other, email_each_line=False)
    say(commit, game, mover, "in the game email")
    play(commit, game)
    assert _times_mailed(other, "in the game email") == 1
    assert "sent on its own" not in _bodies(other)[-1]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_emails_rendered_at_once_carry_the_lines_in_one_of_them(
    alice: Any, bob: Any, monkeypatch: Any, settings: Any
) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = True
    from games import services as game_services

    game = game_services.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    game_services.seat_join(game=game, user=bob)
    game.refresh_from_db()
    mover, other = _players(game)
    services.chat_message_post(game_id=game.pk, user=mover, text="once, not twice")
    assert selectors.latest_message_id(game=game) > 0
    real_latest = selectors.latest_message_id

    def slow_latest(*, game: Game) -> int:
        time.sleep(0.3)  # both renders read the mark before either writes, unless it is locked
        return real_latest(game=game)

    monkeypatch.setattr(selectors, "latest_message_id", slow_latest)
    start = threading.Barrier(2)
    taken: dict[int, list[str]] = {}

    def render(notification_id: int) -> None:
        try:
            start.wait()
            lines = services.chat_email_lines_take(notification_id=notification_id, user_id=other.pk, game=game)
            taken[notification_id] = [line["text"] for line in lines]
        finally:
            connection.close()

    emails = [_game_email(other, game, "test:one"), _game_email(other, game, "test:two")]
    threads = [threading.Thread(target=render, args=(n,)) for n in emails]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(taken) == sorted(emails)
    assert sorted(taken.values()) == [[], ["once, not twice"]]
