"""What a Discord or Slack channel is told of a game: one line of text in the
endpoint owner's language, and the JSON body each platform's incoming webhook
takes (docs/webhooks.md, "Discord and Slack").

A channel is shared, so the line is always written as a spectator reads the game:
the move as the event's public payload has it (a blind reservation is "reserve
deckN": the deck, never the card), and a link to the game's page with no seat
token. Nothing in the line is a mention: Discord is told to parse none
(``allowed_mentions``) and ``@everyone``/``@here`` are broken besides; Slack's
control characters are escaped, so that ``<!channel>`` in a name is text.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext, ngettext

from accounts.names import name_for_plain_text
from accounts.speaking import language_of
from core.text import listed
from games.models import Game, GameEvent, Move, Seat
from games.words import move_in_words
from webhooks.models import Endpoint

# Discord refuses a message longer than this.
DISCORD_MAX_CONTENT = 2000
ZERO_WIDTH_SPACE = "\u200b"


def game_page_url(game_id: str) -> str:
    """The game's page as a spectator opens it: no seat token, ever."""
    return f"{settings.SITE_URL.rstrip('/')}{reverse('game-page', kwargs={'game_id': game_id})}"


def _names(game: Game) -> dict[int, str]:
    """Seat index -> the name the site shows for its player, on one line."""
    names: dict[int, str] = {}
    for seat in Seat.objects.filter(game=game, index__isnull=False).select_related("user__player"):
        player = getattr(seat.user, "player", None)
        shown = name_for_plain_text(str(getattr(player, "display_name", "") or "")) if player is not None else ""
        if seat.index is not None:
            names[seat.index] = shown or seat.user.get_username()
    return names


def _seat_name(names: dict[int, str], index: Any) -> str:
    if isinstance(index, int) and index in names:
        return names[index]
    return gettext("seat %(number)s") % {"number": index}


def _seat_to_move_at(game: Game, ply: int) -> int | None:
    """The seat whose turn came at ``ply``: the one that played it, or the game's
    seat to move while that ply is still to come; None once the game is over."""
    played = Move.objects.filter(game=game, ply=ply).values_list("seat", flat=True).first()
    if played is not None:
        return played
    if game.status == Game.Status.ACTIVE:
        return game.to_move
    return None


def _to_move(names: dict[int, str], seat: int | None) -> str:
    if seat is None:
        return ""
    return gettext("%(player)s to move.") % {"player": _seat_name(names, seat)}


def chat_line(*, event: GameEvent, language: str) -> str:
    """The event in one line of ``language``, as a spectator may read it; empty
    for an event that is not posted to a channel."""
    game = event.game
    payload: dict[str, Any] = event.payload if isinstance(event.payload, dict) else {}
    with translation.override(language):
        names = _names(game)
        # Translators: how a Discord or Slack line names a game, e.g. "Game 4xcchdea95 (Splendor)".
        label = gettext("Game %(id)s (%(variant)s)") % {"id": game.pk, "variant": game.get_variant_display()}
        if event.kind == GameEvent.Kind.GAME_STARTED:
            players = listed([names[index] for index in sorted(names)])
            parts = [
                gettext("%(game)s has started: %(players)s.") % {"game": label, "players": players},
                _to_move(names, _seat_to_move_at(game, 0)),
            ]
        elif event.kind == GameEvent.Kind.MOVE_PLAYED:
            move = move_in_words(str(payload.get("move", "")), game.variant, language)
            ply = payload.get("ply")
            parts = [
                gettext("%(game)s: %(player)s played: %(move)s.")
                % {"game": label, "player": _seat_name(names, payload.get("seat")), "move": move},
                _to_move(names, _seat_to_move_at(game, ply + 1)) if isinstance(ply, int) else "",
            ]
        elif event.kind == GameEvent.Kind.GAME_FINISHED:
            result = payload.get("result") if isinstance(payload.get("result"), dict) else {}
            winners = [index for index in (result or {}).get("winners") or [] if isinstance(index, int)]
            if winners:
                parts = [
                    ngettext("%(game)s is over: %(winners)s won.", "%(game)s is over: %(winners)s won.", len(winners))
                    % {"game": label, "winners": listed([_seat_name(names, index) for index in winners])}
                ]
            else:
                parts = [gettext("%(game)s is over.") % {"game": label}]
        else:
            return ""
    parts.append(game_page_url(game.pk))
    return " ".join(" ".join(part.split()) for part in parts if part)


def slack_escaped(text: str) -> str:
    """Slack's mrkdwn escaping: ``&``, ``<`` and ``>`` as entities, so that no
    ``<!channel>``, ``<@U123>`` or link can be written by a player's name."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def discord_neutralised(text: str) -> str:
    """``@everyone`` and ``@here`` with a zero-width space after the @: no
    mention even where ``allowed_mentions`` were not honoured."""
    for word in ("everyone", "here"):
        text = text.replace(f"@{word}", f"@{ZERO_WIDTH_SPACE}{word}")
    return text


def chat_body(*, endpoint: Endpoint, event: GameEvent) -> str:
    """The JSON an endpoint of a chat format is sent for ``event``, in its owner's language."""
    line = chat_line(event=event, language=language_of(endpoint.owner))
    if endpoint.format == Endpoint.Format.DISCORD:
        content = discord_neutralised(line)
        if len(content) > DISCORD_MAX_CONTENT:
            content = content[: DISCORD_MAX_CONTENT - 1] + "…"
        body: dict[str, Any] = {"content": content, "allowed_mentions": {"parse": []}}
    else:
        body = {"text": slack_escaped(line)}
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)
