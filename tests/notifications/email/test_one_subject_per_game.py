"""Every email about a game has one subject for the whole game, in the reader's
language ("Splendor — game <id>"): no name, no move, nothing that changes while it
is played, so that a mail program that groups by subject (Gmail, Apple Mail) keeps
the game in one conversation, as References do for the others. What happened goes
in the first line of the text and the HTML, and in the HTML's preheader (the
preview an inbox shows beside the subject). An email about no game keeps a
subject of its own.

Personas (tests/notifications/conftest.py): alice creates the games; bob is the
player whose mailbox we read, from the invitation to the game's end."""

from __future__ import annotations

import email
import email.policy
import re
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.core.mail import EmailMessage
from tests.games.game_helpers import make_player
from tests.notifications.email_helpers import html_of, mail_to, play, start_game, user_to_move
from tests.notifications.reminder_helpers import deliver_events

from accounts.models import Player
from games import moderation, services
from games.models import Game
from notifications.email.services import thread_root_for
from notifications.models import Notification
from notifications.reminders.tasks import send_due_reminders


def _parsed(message: EmailMessage) -> Any:
    """The message as a mail program reads it: its bytes, parsed by Python's email package."""
    return email.message_from_bytes(message.message().as_bytes(), policy=email.policy.default)


def _text_of(parsed: Any) -> str:
    return str(parsed.get_body(preferencelist=("plain",)).get_content())


def _bob_to_move(commit: Any, game: Game, bob: Any) -> None:
    if user_to_move(game) != bob:
        play(commit, game)
    assert user_to_move(game) == bob


def test_a_games_emails_to_one_player_share_one_subject_and_one_thread_root(
    alice: Any, bob: Any, commit: Any, clock: Any, settings: Any
) -> None:
    settings.VACATION_DAYS_PER_YEAR = 0  # a missed deadline is the bot's move, not a vacation day
    game = start_game(commit, alice, bob)  # the invitation, then the first turn email
    for _ in range(4):
        play(commit, game)  # two more turns each
    _bob_to_move(commit, game, bob)
    deliver_events(game)
    game.refresh_from_db()
    assert game.deadline_at is not None
    clock.move_to(game.deadline_at - timedelta(hours=24))
    with commit():
        assert send_due_reminders() == 1
    clock.move_to(game.deadline_at + timedelta(seconds=1))
    with commit():
        assert services.game_time_out(game_id=game.pk)  # the bot plays bob's move
    with commit():
        services.game_resign(game=Game.objects.get(pk=game.pk), user=alice)

    sent_kinds = Notification.objects.filter(user=bob, status=Notification.Status.SENT).values_list("kind", flat=True)
    assert {"invitation", "your_turn", "reminder", "bot_played", "game_over"} <= set(sent_kinds)
    assert list(sent_kinds).count("your_turn") >= 3
    messages = [_parsed(message) for message in mail_to(bob)]
    assert len(messages) == len(sent_kinds)
    assert {str(m["Subject"]) for m in messages} == {f"Splendor — game {game.pk}"}
    roots = {str(m["References"]).split()[0] for m in messages}
    assert roots == {thread_root_for(game_id=str(game.pk), user_id=bob.pk)}
    # What happened is each one's first line, and it changes from one to the next.
    first_lines = [_text_of(m).split("\n", 1)[0] for m in messages]
    assert first_lines[0] == "Alice invites you to a game of Splendor"
    assert f"24 hours left to move in game {game.pk}" in first_lines
    assert f"Time ran out in game {game.pk}: a move was played for you" in first_lines
    assert first_lines[-1] == f"Game {game.pk} is over: you won"
    assert sum(line.startswith(f"Your turn in game {game.pk}") for line in first_lines) >= 3


@pytest.mark.parametrize(
    ("language", "variant", "subject"),
    [
        ("it", "base", "Splendor — partita {id}"),
        ("lv", "base", "Splendor — spēle {id}"),
        ("it", "marvel", "Splendor: Marvel — partita {id}"),
        ("lv", "marvel", "Splendor: Marvel — spēle {id}"),
    ],
)
def test_the_subject_is_the_games_in_the_readers_language(
    language: str, variant: str, subject: str, alice: Any, bob: Any, commit: Any, clock: Any
) -> None:
    Player.objects.filter(user=bob).update(language=language)
    with commit():
        game = services.game_create(creator=alice, variant=variant, seats=2, invited=[bob])
    with commit():
        services.seat_join(game=game, user=bob)
    for _ in range(2):
        play(commit, game)
    messages = [_parsed(message) for message in mail_to(bob)]
    assert len(messages) >= 2  # the invitation and a turn at least
    assert {str(m["Subject"]) for m in messages} == {subject.format(id=game.pk)}
    assert all(alice.player.display_name not in str(m["Subject"]) for m in messages)


def _preheader(html: str) -> str:
    """The hidden preview text: the first element of the body, shown by no mail program."""
    found = re.search(r"<body[^>]*>\s*<div style=\"display:none[^\"]*\">(.*?)</div>", html, re.S)
    assert found is not None, html[:600]
    return found.group(1)


def test_the_first_line_and_the_preheader_say_what_happened(alice: Any, bob: Any, commit: Any, clock: Any) -> None:
    game = start_game(commit, alice, bob)
    mover = user_to_move(game)
    mail.outbox.clear()
    play(commit, game, "take WUG")
    [message] = mail_to(user_to_move(game))
    happened = f"Your turn in game {game.pk}: {mover.player.display_name} played take white, blue and green"
    assert message.subject == f"Splendor — game {game.pk}"
    text = _text_of(_parsed(message))
    assert text.split("\n\n")[0] == happened  # then the greeting
    assert text.split("\n\n")[1].startswith("Hello ")
    html = html_of(message)
    assert _preheader(html).startswith(happened)
    # Seen when the email is open: the same words, first, above the greeting.
    visible = re.sub(r"<div style=\"display:none.*?</div>", "", html, count=1, flags=re.S)
    assert visible.index(happened) < visible.index("Hello ")


def test_an_email_about_no_game_keeps_its_subject_and_starts_with_the_greeting(
    bob: Any, commit: Any, clock: Any
) -> None:
    moderator = make_player("mona")
    with commit():
        moderation.moderation_player_warn(user=bob, by_user=moderator, reason="Stalling.")
    [message] = mail_to(bob)
    assert message.subject == "A warning from the moderators"
    assert message.body.startswith("Hello Bob,")
    assert "display:none" not in html_of(message)  # no preheader: the subject says it
