"""Table talk in email: the lines in the next game email (plain text, never a link
in HTML), an email for each line for a player who asked for it, and what an
answer to ``say`` keeps once its author is erased."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail

from accounts.services import player_erase
from chat import services
from chat.emails import unlinked_html
from games.models import Seat
from notifications.models import InboundMessage, Notification
from tests.chat.chat_helpers import game_of, say
from tests.notifications.email_helpers import html_of, play
from tests.notifications.inbound.mail_helpers import answer, latest, receive, reply_bytes

pytestmark = pytest.mark.django_db


def _players(game: Any) -> tuple[Any, Any]:
    """(the player to move, the other)."""
    mover = Seat.objects.select_related("user").get(game=game, index=game.to_move).user
    other = Seat.objects.select_related("user").get(game=game, index=1 - game.to_move).user
    return mover, other


def test_no_line_becomes_a_link_or_markup_in_the_html_part() -> None:
    shown = str(unlinked_html('see https://evil.example/x, www.evil.example or me@evil.example <a href="x">'))
    assert "https://" not in shown and "www." not in shown and "me@evil" not in shown
    assert "<a" not in shown and "&lt;a href=&quot;x&quot;&gt;" in shown
    assert shown.replace("\u200d", "") == (
        'see https://evil.example/x, www.evil.example or me@evil.example &lt;a href=&quot;x&quot;&gt;'
    )


def test_the_text_part_shows_the_line_as_written_and_the_html_part_no_link(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = game_of(commit, alice, bob)
    mover, other = _players(game)
    say(commit, game, mover, "rules at https://example.com/rules <b>now</b>")
    play(commit, game)
    email = latest(other, "Your turn")
    assert "rules at https://example.com/rules <b>now</b>" in email.body
    body_html = html_of(email)
    assert "https://example.com" not in body_html and "<b>now</b>" not in body_html
    assert "&lt;b&gt;now&lt;/b&gt;" in body_html


def test_a_player_who_asked_gets_an_email_for_each_line_and_no_lines_in_game_email(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = game_of(commit, alice, bob)
    mover, other = _players(game)
    services.chat_preferences_set(game_id=game.pk, user=other, email_each_line=True)
    before = len(mail.outbox)
    say(commit, game, mover, "one")
    say(commit, game, mover, "two")
    lines = [m for m in mail.outbox[before:] if other.email in m.to]
    assert [m.body.count("\n\none\n") + m.body.count("\n\ntwo\n") for m in lines] == [1, 1]
    assert all(m.reply_to for m in lines)  # answerable with say
    assert not [m for m in mail.outbox[before:] if mover.email in m.to]  # never one's own line
    play(commit, game)
    assert "Table talk since your last email:" not in latest(other, "Your turn").body


def test_nobody_gets_an_email_per_line_unless_they_ask(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = game_of(commit, alice, bob)
    mover, _ = _players(game)
    before = len(mail.outbox)
    say(commit, game, mover, "quiet line")
    assert mail.outbox[before:] == []
    assert not Notification.objects.filter(kind="chat_line").exists()


def test_a_line_hidden_before_its_email_went_is_not_sent(clock: Any, commit: Any, alice: Any, bob: Any, dave: Any) -> None:
    from games.models import GameEvent
    from tests.chat.chat_helpers import make_moderator

    game = game_of(commit, alice, bob)
    mover, other = _players(game)
    services.chat_preferences_set(game_id=game.pk, user=other, email_each_line=True)
    # Written without running their consumers, as if the worker were slow.
    rude = services.chat_message_post(game_id=game.pk, user=mover, text="rude words")
    kind = services.chat_message_post(game_id=game.pk, user=mover, text="kind words")
    services.chat_message_hide(message_id=rude.pk, by_user=make_moderator(dave), reason="rude")
    before = len(mail.outbox)
    with commit():
        sent = [
            services.chat_line_emails_send(event=GameEvent.objects.get(kind="chat", payload__message_id=m.pk))
            for m in (rude, kind)
        ]
    assert sent == [0, 1]
    bodies = [m.body for m in mail.outbox[before:]]
    assert len(bodies) == 1 and "kind words" in bodies[0] and "rude" not in bodies[0]


def test_an_erased_authors_say_by_email_keeps_no_words(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = game_of(commit, alice, bob)
    mover, _ = _players(game)
    turn_email = latest(mover, "Your turn")
    receive(commit, reply_bytes(turn_email, sender=mover.email, body="say my secret words"))
    assert "my secret words" in answer(mover, "chat_said").body
    inbound = InboundMessage.objects.get(status=InboundMessage.Status.APPLIED)
    assert inbound.command == "say"
    with commit():
        player_erase(user=mover)
    inbound.refresh_from_db()
    assert "secret" not in str(inbound.reply) and "secret" not in inbound.command


def test_a_say_from_an_unproven_sender_is_posted_once_its_owner_confirms(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    import re

    game = game_of(commit, alice, bob)
    mover, _ = _players(game)
    line = "Well played. " + "x" * 300  # longer than a move, shorter than a line's limit
    turn_email = latest(mover, "Your turn")
    inbound = receive(commit, reply_bytes(turn_email, sender=mover.email, body=f"say {line}", authenticated=False))
    assert inbound is not None and inbound.status == InboundMessage.Status.CHALLENGED
    assert inbound.command == "say"
    from chat.models import ChatMessage

    assert not ChatMessage.objects.exists()
    challenge = latest(mover, "Please confirm")
    code = re.search(r"confirm ([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4})", challenge.body)
    assert code is not None, challenge.body
    confirmed = receive(commit, reply_bytes(challenge, sender=mover.email, body=f"confirm {code.group(1)}", authenticated=False))
    assert confirmed is not None and confirmed.status == InboundMessage.Status.APPLIED, confirmed and confirmed.outcome
    assert ChatMessage.objects.get().text == line


def test_an_unconfirmed_say_goes_with_its_erased_author(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    from notifications.models import PendingConfirmation

    game = game_of(commit, alice, bob)
    mover, _ = _players(game)
    turn_email = latest(mover, "Your turn")
    receive(commit, reply_bytes(turn_email, sender=mover.email, body="say unsure words", authenticated=False))
    assert PendingConfirmation.objects.filter(user=mover).exists()
    with commit():
        player_erase(user=mover)
    kept = [str(p.details) for p in PendingConfirmation.objects.all()]
    kept += [str(m.reply) + m.command for m in InboundMessage.objects.all()]
    assert kept and not [text for text in kept if "unsure" in text]


@pytest.mark.parametrize(
    ("language", "heading", "answer_with"),
    [
        ("it", "Chiacchiere al tavolo dalla tua ultima email:", "comincia con di"),
        ("lv", "Saruna pie galda kopš tava pēdējā e-pasta:", "sākas ar saki"),
    ],
)
def test_the_lines_in_a_game_email_speak_the_readers_language(
    clock: Any, commit: Any, alice: Any, bob: Any, language: str, heading: str, answer_with: str
) -> None:
    game = game_of(commit, alice, bob)
    mover, other = _players(game)
    other.player.language = language
    other.player.save()
    say(commit, game, mover, "ciao / sveiki")
    play(commit, game)
    body = latest(other, "").body
    assert heading in body and answer_with in body and "ciao / sveiki" in body
