"""Who hears of an event: decided here, once, for every app that tells people of
one (the event stream, webhooks, table talk's email).

An event reaches the game's players (every seat with a person: joined, invited,
resigned) and the people its payload names besides them: the invitees of a new
game, a player who declined or left, the one whose seat a moderator handed to
someone else. A moderator acting on a game (``by_user_id``) is not among them:
moderating a game does not subscribe to it. An event of a kind an extension owns
(a table-talk line) reaches whom that extension says instead
(``GameExtension.event_recipients``).

Whether an app hears of a practice game or a sandbox at all is decided by the
outbox and the writers (``GameExtension.hears_practice``). The yes-or-no
questions the apps ask of a game's kind for their own purposes are answered
below, so that no app outside games reads ``Game.kind``: a game between people
(``real_games_q``: lists, calendars, reminders, the stream's snapshot), one with
table talk, one that counts in ratings.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from games.extensions import extensions
from games.models import Game, GameEvent, Seat

# Payload keys that name the people an event concerns besides the seats' players.
_PEOPLE_KEYS = ("user_id", "creator_id", "old_user_id", "new_user_id")


def event_named_people(event: GameEvent) -> set[int]:
    """The user ids the event's payload names (never its moderator)."""
    payload: dict[str, Any] = event.payload if isinstance(event.payload, dict) else {}
    named = [payload.get(key) for key in _PEOPLE_KEYS]
    named.extend(payload.get("invited_ids") or [])
    return {user_id for user_id in named if isinstance(user_id, int)}


def event_audience(event: GameEvent, *, seated: set[int] | None = None) -> set[int]:
    """The user ids who hear of ``event``. ``seated``: the user ids of the game's
    seats, when the caller has them already (read from the database otherwise)."""
    for extension in extensions():
        chosen = extension.event_recipients(event)
        if chosen is not None:
            return set(chosen)
    if seated is None:
        seated = set(Seat.objects.filter(game_id=event.game_id, user__isnull=False).values_list("user_id", flat=True))
    return seated | event_named_people(event)


def real_games_q(*, prefix: str = "") -> Q:
    """The games between people, neither practice games nor sandboxes: a filter on
    games.Game, or on a model that reaches it through ``prefix`` (``"game__"``)."""
    return Q(**{f"{prefix}kind": Game.Kind.REAL})


def game_has_table_talk(game: Game) -> bool:
    """Whether the game's players may talk at its table (practice games and
    sandboxes have nobody to talk to)."""
    return not game.is_practice


def game_counts_in_ratings(game: Game) -> bool:
    """Whether the game's result moves its players' ratings once it ends."""
    return game.rated and not game.is_practice
