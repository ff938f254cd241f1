"""Every email about a game to one person is one conversation in their mail program
(RFC 5322 3.6.4): In-Reply-To names the previous email of that game to them, and
References starts with one root per game and person, which carries no token."""

from __future__ import annotations

import email
import email.policy
from typing import Any

from django.core.mail import EmailMessage

from notifications.email.services import thread_root_for
from notifications.inbound.reply_tokens import reply_token_for
from tests.notifications.email_helpers import mail_to, play, start_game


def _parsed(message: EmailMessage) -> Any:
    """The message as a mail program reads it: its bytes, parsed by Python's email package."""
    return email.message_from_bytes(message.message().as_bytes(), policy=email.policy.default)


def _ids(header: Any) -> list[str]:
    return str(header or "").split()


def _id(header: Any) -> str:
    """One msg-id without the folding whitespace a long header gets."""
    return "".join(str(header).split())


def test_the_emails_of_a_game_to_one_person_make_one_thread(alice: Any, bob: Any, commit: Any, clock: Any) -> None:
    game = start_game(commit, alice, bob)
    for _ in range(6):
        play(commit, game)
    for person in (alice, bob):
        sent = [_parsed(message) for message in mail_to(person)]
        assert len(sent) >= 3, [m["Subject"] for m in sent]  # an invitation or turns, at least
        root = thread_root_for(game_id=str(game.pk), user_id=person.pk)
        assert _ids(sent[0]["In-Reply-To"]) == [root] and _ids(sent[0]["References"]) == [root]
        for previous, message in zip(sent, sent[1:], strict=False):
            assert _ids(message["In-Reply-To"]) == [_id(previous["Message-ID"])], message["Subject"]
            assert _ids(message["References"]) == [root, _id(previous["Message-ID"])], message["Subject"]
        assert len({_id(message["Message-ID"]) for message in sent}) == len(sent)  # each its own


def test_the_thread_root_is_one_per_game_and_person_and_names_no_seat_token(
    alice: Any, bob: Any, commit: Any, clock: Any
) -> None:
    game = start_game(commit, alice, bob)
    play(commit, game)
    play(commit, game)  # each has had an email about the game
    roots = {thread_root_for(game_id=str(game.pk), user_id=person.pk) for person in (alice, bob)}
    other = start_game(commit, alice, bob)
    assert len(roots | {thread_root_for(game_id=str(other.pk), user_id=alice.pk)}) == 3
    assert roots == {_ids(_parsed(mail_to(person)[0])["References"])[0] for person in (alice, bob)}
    tokens = [reply_token_for(seat=seat) for seat in game.seats.all()]
    assert tokens and all(token not in root for token in tokens for root in roots)
    assert all(".v" not in root for root in roots)  # never read as one of the replies' Message-IDs
