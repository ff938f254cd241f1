"""Helpers for the email tests: games played through the services with their
on-commit work run, and the sent mail read back per recipient."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import engine
from django.core import mail
from django.core.mail import EmailMessage

from games import services
from games.models import Game, GameEvent, Seat

Commit = Callable[[], AbstractContextManager[Any]]


def mail_to(user: Any) -> list[EmailMessage]:
    return [m for m in mail.outbox if user.email in m.to]


def subjects_to(user: Any) -> list[str]:
    return [m.subject for m in mail_to(user)]


def headline_of(message: EmailMessage) -> str:
    """What happened, as an email about a game says it: the first line of its text
    (its subject names only the game). An email about no game starts with the greeting."""
    return message.body.split("\n", 1)[0]


def headlines_to(user: Any) -> list[str]:
    return [headline_of(m) for m in mail_to(user)]


def says_first(message: EmailMessage, words: str) -> bool:
    """Whether ``message`` starts by saying ``words``: in its first line (an email
    about a game) or its subject (an email about no game)."""
    return headline_of(message).startswith(words) or message.subject.startswith(words)


def everything_in(message: EmailMessage) -> str:
    """Subject, headers, text and every alternative of one sent message."""
    parts = [message.subject, message.body, " ".join(message.reply_to), " ".join(message.to)]
    parts += [f"{k}: {v}" for k, v in message.extra_headers.items()]
    parts += [str(content) for content, _ in getattr(message, "alternatives", [])]
    return "\n".join(parts)


def html_of(message: EmailMessage) -> str:
    return next(str(content) for content, kind in getattr(message, "alternatives", []) if kind == "text/html")


def start_game(commit: Commit, alice: Any, bob: Any) -> Game:
    with commit():
        game = services.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    with commit():
        services.seat_join(game=game, user=bob)
    game.refresh_from_db()
    return game


def seat_user(game: Game, index: int) -> Any:
    return Seat.objects.select_related("user").get(game=game, index=index).user


def user_to_move(game: Game) -> Any:
    game.refresh_from_db()
    assert game.to_move is not None
    return seat_user(game, game.to_move)


def legal_texts(game: Game) -> list[str]:
    game.refresh_from_db()
    return [engine.format_move(m) for m in engine.legal_moves(engine.from_dict(game.state))]


def play(commit: Commit, game: Game, text: str | None = None) -> None:
    """One move by whoever is to move: ``text``, or a token take."""
    game.refresh_from_db()
    if text is None:
        texts = legal_texts(game)
        text = next((t for t in texts if t.startswith("take ") and " return " not in t), texts[0])
    with commit():
        services.move_submit(game_id=game.pk, user=user_to_move(game), text=text, expected_version=game.version)
    game.refresh_from_db()


def add_event(game: Game, kind: str, payload: dict[str, Any]) -> GameEvent:
    """An outbox row as the games app writes it (for kinds a test cannot easily provoke)."""
    game.refresh_from_db()
    return GameEvent.objects.create(game=game, kind=kind, payload={**payload, "version": game.version})
