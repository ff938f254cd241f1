"""The email of a tournament round's start (``tournament_round_started``, written
by tournaments on the round's first game): one to each player of the round,
naming their opponents and linking their game, or telling them they have the
round's bye. A tournament's followers who do not play hear of it on the stream
and by webhook only (games.audience), never by email.

Each email is about the player's own game of the round (``Notification.game``),
so it takes that game's subject and joins its thread like every email about the
game; a muted game mutes it. The bye's email is about no game: its headline is
its subject. The key is the event's, as for every game event
(``event:<event id>:tournament_round:<user id>``).

What is read of the tournament comes from ``tournaments.selectors.round_news``
(read-only: names, tables and games; never the seed of its draws). Tournaments
never imports notifications, so the edge goes one way (tests/test_layers.py).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model

from core.text import listed
from games.models import GameEvent
from notifications.email.render import KindContext, display_name, game_url, renderer, seat_of
from notifications.email.services import notify
from notifications.models import Notification
from tournaments.selectors import RoundNews, round_news

TOURNAMENT_ROUND = "tournament_round"


def _news_of(event: GameEvent | None) -> RoundNews | None:
    payload: dict[str, Any] = event.payload if event is not None and isinstance(event.payload, dict) else {}
    tournament_id, number = payload.get("tournament_id"), payload.get("round")
    if not isinstance(tournament_id, int) or not isinstance(number, int):
        return None
    return round_news(tournament_id=tournament_id, number=number)


def tournament_round_notify(event: GameEvent) -> None:
    """One ``tournament_round`` notification per player of the round (called by
    the email consumer, notifications.email.game_events, in its transaction)."""
    news = _news_of(event)
    if news is None:
        return
    for place in news.places:
        notify(
            key=f"event:{event.pk}:{TOURNAMENT_ROUND}:{place.user_id}",
            kind=TOURNAMENT_ROUND,
            user_id=place.user_id,
            game_id=place.game_id,
            event_id=event.pk,
        )


def _one_line(text: str) -> str:
    """A tournament's name on one line of plain text (it is a subject's words)."""
    return " ".join(text.split())


@renderer(TOURNAMENT_ROUND)
def render_tournament_round(notification: Notification) -> KindContext:
    """The round's number and tournament, and the recipient's opponents and game
    (their own signed link, as every email about their seat), or the bye."""
    news = _news_of(notification.event)
    if news is None:
        raise ValueError(f"notification {notification.pk}: its round is gone")
    place = news.place_of(notification.user_id)
    game = notification.game
    seat = seat_of(game, notification.user_id) if game is not None else None
    opponents: list[str] = []
    if place is not None and place.opponent_ids:
        users = get_user_model().objects.select_related("player").in_bulk(list(place.opponent_ids))
        opponents = [display_name(users[u]) for u in place.opponent_ids if u in users]
    return KindContext(
        {
            "tournament": _one_line(news.tournament_name),
            "round_number": news.number,
            "bye": game is None,
            "knockout": news.knockout,
            # In the recipient's language: "Bob", "Bob and Carol", "Bob, Carol and Dave".
            "opponents": listed(opponents),
            "game_url": game_url(game, seat) if game is not None else "",
        },
        seat=seat,
    )
