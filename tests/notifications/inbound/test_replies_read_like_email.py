"""Replies that read like email: each one threads under the message it answers
(In-Reply-To, References and "Re: " its subject, RFC 5322 3.6.4), speaks of the
commands a player can reply with and never of the API, and says each sentence
once."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail
from django.core.mail import EmailMessage
from tests.factories import seat_to_move
from tests.notifications.email_helpers import headline_of, start_game
from tests.notifications.inbound.mail_helpers import answer, latest, receive, reply_bytes

from core.errors import DomainError
from games import errors as game_errors
from games import services
from games.models import Game, Move, Seat
from notifications.email.services import thread_root_for
from notifications.inbound.replies import REFERENCES_KEPT, command_refuse, reply_subject, reply_thread
from notifications.models import InboundMessage

pytestmark = pytest.mark.django_db

Status = InboundMessage.Status


def _other(game: Game, user: Any) -> Any:
    return Seat.objects.select_related("user").exclude(user=user).get(game=game).user


def _raw(*headers: str, body: str = "board") -> bytes:
    return ("\r\n".join(headers) + "\r\n\r\n" + body + "\r\n").encode()


# --- the subject -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("subject", "expected"),
    [
        ("Your turn in game x1", "Re: Your turn in game x1"),
        ("Re: Your turn in game x1", "Re: Your turn in game x1"),
        ("RE: Your turn in game x1", "Re: Your turn in game x1"),
        ("Re: Re: RE: Your turn", "Re: Your turn"),
        ("Aw: Dein Zug", "Re: Dein Zug"),
        ("R: Il tuo turno", "Re: Il tuo turno"),
        ("Rif: Il tuo turno", "Re: Il tuo turno"),
        ("SV: Din tur", "Re: Din tur"),
        ("Re[2]: Your turn", "Re: Your turn"),
        ("Re(3): Your turn", "Re: Your turn"),
        ("Atb: Tavs gājiens", "Re: Tavs gājiens"),
        ("Fwd: Your turn", "Re: Fwd: Your turn"),
        ("Reserve this one", "Re: Reserve this one"),
        ("", ""),
        ("Re:", ""),
        ("  Re:   ", ""),
    ],
)
def test_the_reply_subject_is_re_and_the_subject_answered_never_re_twice(subject: str, expected: str) -> None:
    assert reply_subject(subject) == expected


# --- the thread headers, read from the message answered ---------------------------------


def test_the_thread_names_the_message_answered_after_its_references() -> None:
    raw = _raw(
        "Message-ID: <reply1@mail.example.com>",
        "In-Reply-To: <turn@reply.splendor.test>",
        "References: <root@reply.splendor.test>\r\n <turn@reply.splendor.test>",
        "Subject: Re: Your turn",
    )
    assert reply_thread(raw) == {
        "in_reply_to": "<reply1@mail.example.com>",
        "references": "<root@reply.splendor.test> <turn@reply.splendor.test> <reply1@mail.example.com>",
        "subject": "Re: Your turn",
    }


def test_without_references_the_one_in_reply_to_begins_them() -> None:
    raw = _raw("Message-ID: <reply1@mail.example.com>", "In-Reply-To: <turn@reply.splendor.test>", "Subject: x")
    assert reply_thread(raw)["references"] == "<turn@reply.splendor.test> <reply1@mail.example.com>"


def test_a_long_thread_keeps_its_root_and_its_newest_references() -> None:
    ids = [f"<m{n}@mail.example.com>" for n in range(40)]
    raw = _raw("Message-ID: <last@mail.example.com>", "References: " + " ".join(ids), "Subject: x")
    references = reply_thread(raw)["references"].split()
    assert len(references) == REFERENCES_KEPT
    assert references[0] == ids[0] and references[-2] == ids[-1] and references[-1] == "<last@mail.example.com>"


@pytest.mark.parametrize(
    "message_id",
    ["", "Message-ID: not-an-id", "Message-ID: <no-at-sign>", "Message-ID: <a b@example.com>", "Message-ID: <é@x.y>"],
)
def test_a_missing_or_malformed_message_id_gives_no_thread_headers(message_id: str) -> None:
    headers = [h for h in (message_id, "References: <turn@reply.splendor.test>", "Subject: Re: Your turn") if h]
    assert reply_thread(_raw(*headers)) == {"subject": "Re: Your turn"}


def test_headers_that_cannot_be_read_give_no_thread_and_no_error() -> None:
    assert "in_reply_to" not in reply_thread(b"\xff\xfe\x00garbage")
    assert reply_thread(b"") == {}


# --- replies as sent ---------------------------------------------------------------------


def test_a_confirmation_threads_under_the_players_reply(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    turn_email = latest(player, "Your turn")
    turn_id = turn_email.extra_headers["Message-ID"]
    raw = reply_bytes(turn_email, sender=player.email, body="take WUG", message_id="<r1@mail.example.com>")
    receive(commit, raw)
    confirmation = answer(player, "reply_done")
    assert confirmation.extra_headers["In-Reply-To"] == "<r1@mail.example.com>"
    # The game's thread first (its root, and the turn email, the last of the game
    # before it), then the References of the message answered and its own Message-ID.
    root = thread_root_for(game_id=str(game.pk), user_id=player.pk)
    assert confirmation.extra_headers["References"] == f"{root} {turn_id} <r1@mail.example.com>"
    assert confirmation.subject == f"Re: {turn_email.subject}" == f"Re: Splendor — game {game.pk}"
    assert headline_of(confirmation) == f"Played take white, blue and green in game {game.pk}"


def test_a_refusal_threads_and_its_answer_is_re_once(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    turn_email = latest(player, "Your turn")
    receive(commit, reply_bytes(turn_email, sender=player.email, body="dance", message_id="<r1@mail.example.com>"))
    refused = answer(player, "reply_refused")
    receive(commit, reply_bytes(refused, sender=player.email, body="dance", message_id="<r2@mail.example.com>"))
    again = answer(player, "reply_refused")
    assert refused.subject == again.subject == f"Re: {turn_email.subject}"  # never "Re: Re:"
    assert again.extra_headers["In-Reply-To"] == "<r2@mail.example.com>"
    # The game's root, then the References of the message answered (the refusal's
    # Message-ID, as the test's client writes them; the game's last email too), then its own.
    root = thread_root_for(game_id=str(game.pk), user_id=player.pk)
    assert again.extra_headers["References"] == f"{root} {refused.extra_headers['Message-ID']} <r2@mail.example.com>"


def test_a_reply_to_a_message_without_message_id_has_no_thread_headers(commit: Any, alice: Any) -> None:
    raw = reply_bytes(None, sender=alice.email, body="help", to="new@reply.splendor.test")
    raw = re.sub(rb"Message-ID: [^\r]*\r\n", b"", raw)
    inbound = receive(commit, raw)
    assert inbound is not None and inbound.status == Status.APPLIED
    helped = answer(alice, "reply_board")
    assert "In-Reply-To" not in helped.extra_headers and "References" not in helped.extra_headers
    assert helped.subject == "Re: hello"


def test_a_reply_to_a_message_with_a_malformed_message_id_has_no_thread_headers(commit: Any, alice: Any) -> None:
    raw = reply_bytes(None, sender=alice.email, body="help", to="new@reply.splendor.test", message_id="nonsense")
    inbound = receive(commit, raw)
    assert inbound is not None and inbound.status == Status.APPLIED
    assert "In-Reply-To" not in answer(alice, "reply_board").extra_headers


def test_an_empty_subject_is_answered_with_the_replys_own_subject(commit: Any, alice: Any) -> None:
    raw = reply_bytes(None, sender=alice.email, body="help", to="new@reply.splendor.test")
    raw = raw.replace(b"Subject: Re: hello\r\n", b"Subject: \r\n")
    receive(commit, raw)
    assert answer(alice, "reply_board").subject == "Playing by email"


def test_a_challenge_threads_but_never_repeats_the_subject_of_a_sender_not_proven(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    turn_email = latest(player, "Your turn")
    raw = reply_bytes(
        turn_email, sender=player.email, body="take WUG", authenticated=False, message_id="<f1@mail.example.com>"
    ).replace(f"Subject: Re: {turn_email.subject}".encode(), b"Subject: Your account is locked, click here")
    receive(commit, raw)
    challenge = answer(player, "reply_confirm")
    assert challenge.subject == f"Splendor — game {game.pk}"  # the game's, with no "Re:" to a subject not proven
    assert headline_of(challenge) == f"Please confirm: play take WUG in game {game.pk}"
    assert challenge.extra_headers["In-Reply-To"] == "<f1@mail.example.com>"


# --- replies speak email ---------------------------------------------------------------------

_API_WORDS = ("/api/", "GET ", "POST ", "PATCH ", "legal-moves")


def _sentences(message: EmailMessage) -> list[str]:
    """The reply's sentences, each up to its first stop, colon or semicolon (so
    "That turn has passed." and "That turn has passed: ..." say the same thing)."""
    sentences = re.findall(r"[A-Z][^.!?:;\n]*[^.!?:;\n\s](?=[.!?:;])", str(message.body))
    return [s for s in sentences if len(s.split()) >= 3]


def _read_like_email(message: EmailMessage) -> None:
    text = "\n".join([message.subject, str(message.body), *(str(c) for c, _ in message.alternatives)])
    for word in _API_WORDS:
        assert word not in text, f"{word!r} in:\n{message.body}"
    sentences = _sentences(message)
    repeated = {s for s in sentences if sentences.count(s) > 1}
    assert not repeated, f"said twice: {repeated}\n{message.body}"


def test_every_kind_of_reply_speaks_email_and_says_each_sentence_once(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    first = seat_to_move(game).user
    second = _other(game, first)
    turn_email = latest(first, "Your turn")
    replies: list[EmailMessage] = []

    def reply(user: Any, to: EmailMessage, body: str, kind: str) -> EmailMessage:
        before = len(mail.outbox)
        receive(commit, reply_bytes(to, sender=user.email, body=body))
        sent = answer(user, kind)
        assert mail.outbox.index(sent) >= before, f"no {kind} for {body!r}"
        replies.append(sent)
        return sent

    reply(first, turn_email, "help", "reply_board")
    reply(first, turn_email, "board", "reply_board")
    reply(first, turn_email, "moves", "reply_board")
    reply(first, turn_email, "dance", "reply_refused")  # no command
    reply(first, turn_email, "buy 1a", "reply_refused")  # an illegal move, with its rule
    reply(first, turn_email, "buy Gamora", "reply_refused")  # no such card in sight
    done = reply(first, turn_email, "take WUG", "reply_done")
    stale = reply(first, turn_email, "take RR", "reply_refused")  # that turn has passed
    assert headline_of(stale) == f"That turn has passed in game {game.pk}"
    assert stale.body.split("\n\n", 1)[1].count("That turn has passed") == 1  # below the first line, once
    mine = reply(first, done, "take RR", "reply_refused")  # the game's latest email, the other's turn
    assert f"It is not your turn: {second.player.display_name} is to move." in mine.body
    reply(second, latest(second, "Your turn"), "resign", "reply_confirm")
    for message in replies:
        _read_like_email(message)


@pytest.mark.parametrize(
    "error",
    [
        game_errors.StaleVersion("You played on version 3 but the game is at version 4; read the game again and retry.",
                                 current_version=4),
        game_errors.NotYourTurn("It is seat 1's turn, not yours (you are seat 0).", to_move=1, your_seat=0),
        game_errors.GameNotActive.for_move("finished"),
        game_errors.AmbiguousMove("That could be two moves.", rule="B-RETURN-1", choices=["take WUG return K"]),
        game_errors.IllegalMove("Red has 3 tokens; taking two needs 4.", rule="B-TAKE-2"),
    ],
    ids=lambda error: error.code,
)
def test_a_refusal_of_the_games_services_is_told_in_words_for_email(
    clock: Any, commit: Any, alice: Any, bob: Any, error: DomainError
) -> None:
    game = start_game(commit, alice, bob)
    seat = Seat.objects.select_related("game").get(game=game, user=alice)
    inbound = InboundMessage.objects.create(message_key=f"k-{error.code}", source="test", user=alice, game=game)
    with commit():
        command_refuse(inbound, alice, seat, error)
    refused = answer(alice, "reply_refused")
    _read_like_email(refused)
    words = refused.body.split(" - game ")[0]  # above the board (which names its version and seats)
    assert "version" not in words and "seat 0" not in words and "seat 1" not in words


def test_a_move_the_games_services_cannot_read_is_answered_with_the_moves_command(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    seat = Seat.objects.select_related("game").get(game=game, user=player)
    with pytest.raises(DomainError) as refused:
        services.move_submit(game_id=game.pk, user=player, text="frobnicate 7", expected_version=game.version)
    inbound = InboundMessage.objects.create(message_key="k-notation", source="test", user=player, game=game)
    with commit():
        command_refuse(inbound, player, seat, refused.value)
    reply = answer(player, "reply_refused")
    _read_like_email(reply)
    if "legal-moves" in refused.value.message:
        assert 'Reply "moves" for the moves you can play now.' in reply.body
    assert not Move.objects.filter(game=game).exists()
