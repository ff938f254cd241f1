"""What each kind of notification says, per recipient.

A renderer is registered per kind (``@renderer("your_turn")``): it gets the
``Notification`` (recipient, game and event loaded) and returns the template
context for that kind, and the recipient's seat when the email is about one
(the seat gives the Reply-To token and the game link). ``email_render`` adds
what every email has (the recipient's name, the unsubscribe link, the site)
and renders ``notifications/email/<kind>_subject.txt``, ``<kind>.txt`` and
``<kind>.html``.

``<kind>_subject.txt`` says in one line what happened. An email about no game
has it as its subject. An email about a game has one subject for the whole game
(``game_subject``: the variant and the game's id, in the reader's language; "Re: "
before it on an answer to the player's own message), so that every mail program
keeps the game in one conversation; what happened is then the headline: the first
line of the text part and of the HTML, and the HTML's preheader (the preview an
inbox shows beside the subject).

The kinds of the game events are rendered here. The other channels register
their own from their folders: the account notice (notifications.email.account_notices),
the reminder and the digest (notifications.reminders.emails) and the replies to
emailed commands (notifications.inbound.reply_emails); apps.py imports them.

Everything shown comes from public game facts or from what the recipient's own
seat may see (``games.presentation.board_context``, built on engine.observe):
never another seat's blind-reserved card, the deck order, or the seed before
the game is over.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import engine
from django.conf import settings
from django.contrib.auth import get_user_model
from django.template.loader import render_to_string
from django.utils.translation import gettext

from accounts.language import in_language_of
from accounts.names import name_for_plain_text
from core.text import listed, moment_words
from games.links import seat_link_url
from games.models import Game, GameEvent, Seat
from games.presentation import Board, board_context
from notifications.addresses import address_digest
from notifications.email.links import opt_out_url, unsubscribe_url
from notifications.models import Notification

logger = logging.getLogger(__name__)

# Examples of legal moves shown in a turn email.
MOVE_EXAMPLES = 4


@dataclass(frozen=True)
class KindContext:
    """A renderer's answer: the template context and the recipient's seat, if any."""

    context: dict[str, Any]
    seat: Seat | None = None
    # Where replies go when the email is about no seat ("" for none): play by email's own address.
    reply_to: str = ""
    # In-Reply-To and References of a reply to an emailed message (notifications.inbound.reply_emails).
    headers: dict[str, str] = field(default_factory=dict)
    # The recipient's address when it is not their primary one ("" for it): a reply
    # to a message from a verified added address goes back there.
    to: str = ""


@dataclass(frozen=True)
class RenderedEmail:
    subject: str
    text: str
    html: str
    seat: Seat | None = None
    # The game's version when rendered (0 without a game): part of the Message-ID.
    version: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


Renderer = Callable[[Notification], KindContext]
_RENDERERS: dict[str, Renderer] = {}


@dataclass(frozen=True)
class EmailSection:
    """What another app adds to an email above its footer (table talk: the lines
    since the recipient's last game email): plain text, and HTML already escaped."""

    text: str
    html: str


Section = Callable[[Notification], EmailSection | None]
SentHook = Callable[[Notification], None]
_SECTIONS: list[Section] = []
_SENT_HOOKS: list[SentHook] = []


def email_section_register(section: Section, *, sent: SentHook | None = None) -> None:
    """Have ``section(notification)`` asked, for every email rendered, for an
    ``EmailSection`` to show above the footer (None: nothing); and ``sent(notification)``,
    when given, told once an email has been handed to the mail server. Rendering is
    not sending: an email that fails is rendered again for its retry, or given up,
    so what a section showed counts as delivered only from ``sent``."""
    if section not in _SECTIONS:
        _SECTIONS.append(section)
    if sent is not None and sent not in _SENT_HOOKS:
        _SENT_HOOKS.append(sent)


def email_sections_sent(notification: Notification) -> None:
    """Tell the sections that ``notification``'s email was sent (``email_section_register``)."""
    for hook in _SENT_HOOKS:
        try:
            hook(notification)
        except Exception:
            # The email is gone already: a section's bookkeeping never turns that into a failure.
            logger.exception("notification %s: an email section's sent hook failed", notification.pk)


def _sections(notification: Notification) -> list[EmailSection]:
    found: list[EmailSection] = []
    for section in _SECTIONS:
        try:
            shown = section(notification)
        except Exception:
            # What another app adds never keeps the email itself from going.
            logger.exception("notification %s: an email section failed; sent without it", notification.pk)
            continue
        if shown is not None:
            found.append(shown)
    return found


class UnknownKind(LookupError):
    pass


def renderer(kind: str) -> Callable[[Renderer], Renderer]:
    """Register the renderer of one kind of notification."""

    def register(function: Renderer) -> Renderer:
        if kind in _RENDERERS and _RENDERERS[kind] is not function:
            raise ValueError(f"a renderer for {kind!r} is registered already")
        _RENDERERS[kind] = function
        return function

    return register


def renderer_for(kind: str) -> Renderer:
    try:
        return _RENDERERS[kind]
    except KeyError:
        raise UnknownKind(f"no renderer is registered for notifications of kind {kind!r}") from None


def registered_kinds() -> list[str]:
    return sorted(_RENDERERS)


def email_render(notification: Notification) -> RenderedEmail:
    """The email, written in the recipient's language (``Player.language``):
    subject, text, HTML, dates and plurals alike."""
    with in_language_of(notification.user):
        return _email_render(notification)


def _email_render(notification: Notification) -> RenderedEmail:
    kind = notification.kind
    answer = renderer_for(kind)(notification)
    context = {**base_context(notification), **answer.context}
    context["sections"] = _sections(notification)
    game = notification.game
    if game is None:
        subject = _one_line(f"notifications/email/{kind}_subject.txt", context)
        headline = ""
    else:
        # The answer's "Re: <their subject>" (reply_subject) gives way to the game's:
        # the headline says what happened, the subject only which game.
        headline = _one_line(f"notifications/email/{kind}_subject.txt", {**context, "reply_subject": ""})
        subject = game_subject(game)
        if context.get("reply_subject"):
            subject = f"Re: {subject}"
    context["headline"] = headline
    body = render_to_string(f"notifications/email/{kind}.txt", context)
    text = f"{headline}\n\n{body}" if headline else str(body)
    html = render_to_string(f"notifications/email/{kind}.html", context)
    return RenderedEmail(
        subject=subject[:200],
        text=text,
        html=html,
        seat=answer.seat,
        version=game.version if game else 0,
        extra={
            **({"reply_to": answer.reply_to} if answer.reply_to else {}),
            **({"headers": dict(answer.headers)} if answer.headers else {}),
            **({"to": answer.to} if answer.to else {}),
        },
    )


def _one_line(template: str, context: dict[str, Any]) -> str:
    return " ".join(render_to_string(template, context).split())


def game_subject(game: Game) -> str:
    """The subject of every email about ``game``, in the active language: the
    variant's name and the game's public id, nothing that changes while it is
    played (no name, no move, no turn), so that a mail program that groups by
    subject (Gmail, Apple Mail) keeps the whole game in one conversation."""
    # Translators: the subject of every email about one game, e.g. "Splendor — game 4xcchdea95".
    return gettext("%(variant)s — game %(id)s") % {"variant": game.get_variant_display(), "id": game.pk}


# --- what every email has -----------------------------------------------------------


def site_url() -> str:
    url: str = getattr(settings, "SITE_URL", "http://127.0.0.1:8000")
    return url.rstrip("/")


def base_context(notification: Notification) -> dict[str, Any]:
    user = notification.user
    game = notification.game
    return {
        "name": display_name(user),
        "site_url": site_url(),
        "unsubscribe_url": unsubscribe_url(user_id=user.pk),
        "game": game_facts(game) if game is not None else None,
    }


def display_name(user: Any) -> str:
    """The name an email calls a player by, on one line of plain text whatever
    was stored (names are checked at input; this also covers older ones)."""
    player = getattr(user, "player", None)
    name = getattr(player, "display_name", "") if player is not None else ""
    return name_for_plain_text(str(name)) or str(user.username)


def game_facts(game: Game) -> dict[str, Any]:
    return {
        "id": game.pk,
        "variant": game.get_variant_display(),
        "seat_count": game.seat_count,
        "move_timeout_hours": game.move_timeout_hours,
        "status": game.status,
    }


def local_time(moment: datetime | None, user: Any) -> str:
    """``moment`` in the recipient's time zone, with the zone named."""
    if moment is None:
        return ""
    name = getattr(getattr(user, "player", None), "time_zone", "") or "UTC"
    return moment_words(moment, name)


# --- the games app's links and board (games.links, games.presentation) ---------------


def seat_url(seat: Seat) -> str:
    return seat_link_url(seat=seat)


def board_for(game: Game, seat_index: int | None) -> Board | None:
    """The board as ``seat_index`` sees it, or None before the game has a state."""
    if game.state is None:
        return None
    return board_context(game=game, seat_index=seat_index)


def game_url(game: Game, seat: Seat | None) -> str:
    """The recipient's own signed link when they have a seat, else the plain game address."""
    return seat_url(seat) if seat is not None else f"{site_url()}/games/{game.pk}/"


def review_url(game: Game, seat: Seat | None) -> str:
    """The replay's review of a game that is over (docs/review.md): through the
    recipient's own signed link when they have a seat (the page opens the replay,
    ``to=replay``, and the browser keeps ``#review``), else the plain address."""
    if seat is not None:
        return f"{seat_url(seat)}&to=replay#review"
    return f"{site_url()}/games/{game.pk}/replay/#review"


def seat_of(game: Game, user_id: int) -> Seat | None:
    return Seat.objects.filter(game=game, user_id=user_id).first()


def seat_names(game: Game) -> dict[int, str]:
    """Seat index -> the player's name, for seated players."""
    return {
        s.index: display_name(s.user)
        for s in Seat.objects.filter(game=game, index__isnull=False).select_related("user", "user__player")
        if s.index is not None
    }


def move_examples(game: Game, seat_index: int) -> list[str]:
    """A few legal moves of the current state, in notation, when ``seat_index`` is
    to move: one of each sort first (take, buy, reserve), then any."""
    if game.state is None or game.to_move != seat_index:
        return []
    state = engine.from_dict(game.state)
    if engine.is_over(state) or engine.to_move(state) != seat_index:
        return []
    texts = [engine.format_move(m) for m in engine.legal_moves(state)]
    simple = [t for t in texts if " return " not in t]
    sorts: list[Callable[[str], bool]] = [
        lambda t: t.startswith("buy "),
        lambda t: t.startswith("take ") and len(t.split()[1]) == 3,  # three different colours
        lambda t: t.startswith("take ") and len(t.split()[1]) == 2 and t[5] == t[6],  # two of one
        lambda t: t.startswith("reserve ") and "deck" not in t,
    ]
    chosen: list[str] = []
    for wanted in sorts:
        first = next((t for t in simple if wanted(t)), None)
        if first is not None:
            chosen.append(first)
    for text in texts:
        if len(chosen) >= MOVE_EXAMPLES:
            break
        if text not in chosen:
            chosen.append(text)
    return chosen[:MOVE_EXAMPLES]


def _payload(notification: Notification) -> dict[str, Any]:
    event: GameEvent | None = notification.event
    return dict(event.payload) if event is not None else {}


def _game(notification: Notification) -> Game:
    game = notification.game
    if game is None:
        raise ValueError(f"a {notification.kind} notification needs a game")
    return game


# --- the kinds ---------------------------------------------------------------------


@renderer("invitation")
def render_invitation(notification: Notification) -> KindContext:
    game = _game(notification)
    seat = seat_of(game, notification.user_id)
    email = notification.user.email or ""
    return KindContext(
        {
            "inviter": display_name(game.created_by),
            "game_url": game_url(game, seat),
            "opt_out_url": opt_out_url(address_digest=address_digest(email)),
        },
        seat=seat,
    )




@renderer("your_turn")
def render_your_turn(notification: Notification) -> KindContext:
    game = _game(notification)
    seat = seat_of(game, notification.user_id)
    index = seat.index if seat is not None else None
    payload = _payload(notification)
    names = seat_names(game)
    last_move = None
    if notification.event is not None and notification.event.kind == GameEvent.Kind.MOVE_PLAYED:
        # Who really chose it (Move.played_by): the player, the built-in bot on a
        # missed deadline or a moderator's say ("who" and "reason", the bot_reason of
        # move_played; events written before it existed give none), or the service
        # for a seat that has left or could only pass. The templates say it.
        last_move = {
            "by": names.get(payload.get("seat", -1), "?"),
            "who": str(payload.get("played_by", "player")),
            "reason": str(payload.get("bot_reason") or ""),
            "move": payload.get("move", ""),
        }
    return KindContext(
        {
            "board": board_for(game, index),
            "last_move": last_move,
            "examples": move_examples(game, index) if index is not None else [],
            "deadline": local_time(game.deadline_at, notification.user),
            "game_url": game_url(game, seat),
            "reply_address_note": seat is not None,
        },
        seat=seat,
    )


def _timeouts_before(notification: Notification, seat_index: int) -> dict[str, Any] | None:
    """The turn_timed_out event written just before this bot move, if any."""
    event = notification.event
    if event is None:
        return None
    timed_out = (
        GameEvent.objects.filter(game_id=event.game_id, kind="turn_timed_out", id__lt=event.pk)
        .order_by("-id")
        .first()
    )
    if timed_out is None or timed_out.payload.get("seat") != seat_index:
        return None
    return {
        "consecutive": timed_out.payload.get("consecutive"),
        "forfeit_after": timed_out.payload.get("forfeit_after"),
    }


@renderer("bot_played")
def render_bot_played(notification: Notification) -> KindContext:
    game = _game(notification)
    seat = seat_of(game, notification.user_id)
    payload = _payload(notification)
    index = seat.index if seat is not None else None
    # Only a timeout counts towards forfeiting; a seat handed to the bot is the bot's.
    reason = "moderator" if payload.get("bot_reason") == "moderator" else "timeout"
    playing = Seat.objects.filter(game=game, index__isnull=False, resigned=False).count()
    return KindContext(
        {
            "move": payload.get("move", ""),
            "reason": reason,
            "timeouts": _timeouts_before(notification, index) if index is not None and reason == "timeout" else None,
            # A forfeit that leaves one player ends the game (games.services.turns.seat_leave).
            "forfeit_ends_game": playing <= 2,
            "board": board_for(game, index),
            "deadline": local_time(game.deadline_at, notification.user),
            "game_url": game_url(game, seat),
        },
        seat=seat,
    )


def _finished_by(event: GameEvent | None) -> GameEvent | None:
    """The game_finished event written in the same change as ``event``, right
    after it: a seat that left (resigned, forfeited) and so left one player."""
    if event is None:
        return None
    following = GameEvent.objects.filter(game_id=event.game_id, id__gt=event.pk).order_by("id").first()
    return following if following is not None and following.kind == GameEvent.Kind.GAME_FINISHED else None


def _seat_name(names: dict[int, str], index: int) -> str:
    """The player's name, or the seat's number for a seat with nobody named."""
    return names.get(index) or gettext("seat %(number)s") % {"number": index}


def _winner_name(result: dict[str, Any], names: dict[int, str]) -> str:
    return listed([_seat_name(names, i) for i in (result.get("winners") or []) if isinstance(i, int)])


@renderer("forfeited")
def render_forfeited(notification: Notification) -> KindContext:
    """A seat forfeited on time (games.services.clocks: its ``forfeit_after``-th
    timeout in a row is a resignation). When that left one player (always in a
    two-player game) the game ended with it and that player won; otherwise the
    game goes on and the server plays a quiet move on the seat's turns
    (games.services.turns.autoplay), the seat ranked below those still playing."""
    game = _game(notification)
    seat = seat_of(game, notification.user_id)
    payload = _payload(notification)
    names = seat_names(game)
    forfeited_index = payload.get("seat")
    finished = _finished_by(notification.event)
    result: dict[str, Any] = dict((finished.payload.get("result") or {}) if finished is not None else {})
    return KindContext(
        {
            "forfeited_name": (
                _seat_name(names, forfeited_index) if isinstance(forfeited_index, int) else gettext("A player")
            ),
            "is_you": seat is not None and seat.index == forfeited_index,
            # The forfeit ended the game: the one player left won.
            "ended": finished is not None,
            "winner_name": _winner_name(result, names),
            "won": seat is not None and seat.index in (result.get("winners") or []),
            "game_url": game_url(game, seat),
        },
        seat=seat,
    )


def _how_seats_left(game: Game) -> dict[int, str]:
    """Seat index -> why it left the game (its seat_resigned event's reason)."""
    left: dict[int, str] = {}
    for payload in GameEvent.objects.filter(game=game, kind=GameEvent.Kind.SEAT_RESIGNED).values_list(
        "payload", flat=True
    ):
        if isinstance(payload, dict) and isinstance(payload.get("seat"), int):
            left[payload["seat"]] = str(payload.get("reason") or "")
    return left


# The reasons a game ends with one player left (games.results.result_last_standing):
# the game-over email names who left last, and how.
_LAST_STANDING = frozenset({"resignation", "timeout", "account-disabled"})


@renderer("game_over")
def render_game_over(notification: Notification) -> KindContext:
    game = _game(notification)
    seat = seat_of(game, notification.user_id)
    names = seat_names(game)
    result: dict[str, Any] = game.result or _payload(notification).get("result") or {}
    scores: list[int] = list(result.get("scores") or [])
    places: list[int] = list(result.get("places") or [])
    ranking: list[int] = list(result.get("ranking") or range(len(scores)))
    left = _how_seats_left(game)
    standings = [
        {
            "place": places[i] if i < len(places) else None,
            "name": _seat_name(names, i),
            "score": scores[i] if i < len(scores) else None,
            "is_you": seat is not None and seat.index == i,
            "left": i in (result.get("resigned") or []),
            # "timeout" (forfeited), "resignation" or another reason the seat left for.
            "left_how": left.get(i, ""),
        }
        for i in ranking
    ]
    reason = str(result.get("reason", ""))
    # With one player left, the ranking is the winner, then the last to leave.
    last_left = ranking[1] if reason in _LAST_STANDING and len(ranking) > 1 else None
    # The seed is revealed once the game is over (finished): never before.
    seed = game.seed if game.status == Game.Status.FINISHED else ""
    return KindContext(
        {
            "standings": standings,
            "reason": reason,
            # A moderator decided the places (game_adjudicated, told here rather than in an email of its own).
            "adjudicated": reason == "adjudicated",
            "won": seat is not None and seat.index in (result.get("winners") or []),
            "winner_name": _winner_name(result, names),
            "last_left_name": _seat_name(names, last_left) if last_left is not None else "",
            "last_left_is_you": last_left is not None and seat is not None and seat.index == last_left,
            "seed": seed,
            # How to check the seed against its commitment (commands: never translated).
            "seed_checks": [
                f"printf %s {seed} | sha256sum",
                f"python3 -c \"import hashlib; print(hashlib.sha256(b'{seed}').hexdigest())\"",
            ]
            if seed
            else [],
            "commitment": game.seed_commitment,
            "board": board_for(game, seat.index if seat is not None else None),
            "game_url": game_url(game, seat),
            # The search bot's review, asked for (or read) on the replay page.
            "review_url": review_url(game, seat) if game.status == Game.Status.FINISHED else "",
        },
        seat=seat,
    )


@renderer("cancelled")
def render_cancelled(notification: Notification) -> KindContext:
    game = _game(notification)
    payload = _payload(notification)
    by_user_id = payload.get("by_user_id")
    by = None
    if isinstance(by_user_id, int):
        user = get_user_model().objects.select_related("player").filter(pk=by_user_id).first()
        by = display_name(user) if user is not None else None
    return KindContext({"reason": payload.get("reason", ""), "by": by})


@renderer("vacation")
def render_vacation(notification: Notification) -> KindContext:
    game = _game(notification)
    seat = seat_of(game, notification.user_id)
    payload = _payload(notification)
    until_text = payload.get("until")
    until = ""
    if isinstance(until_text, str):
        try:
            until = local_time(datetime.fromisoformat(until_text), notification.user)
        except ValueError:
            until = ""
    return KindContext(
        {
            "until": until,
            "automatic": bool(payload.get("automatic")),
            "game_url": game_url(game, seat),
        },
        seat=seat,
    )


# --- moderation ----------------------------------------------------------------------------


@renderer("deadline_extended")
def render_deadline_extended(notification: Notification) -> KindContext:
    """The extended turn's new deadline in the recipient's zone (none while the
    game is paused: the hours are added to the clock that resumes)."""
    game = _game(notification)
    seat = seat_of(game, notification.user_id)
    payload = _payload(notification)
    hours = payload.get("hours")
    return KindContext(
        {
            "hours": hours if isinstance(hours, int) else None,
            "deadline": local_time(game.deadline_at, notification.user) if game.status == Game.Status.ACTIVE else "",
            "game_url": game_url(game, seat),
        },
        seat=seat,
    )


@renderer("seat_replaced")
def render_seat_replaced(notification: Notification) -> KindContext:
    """To the player who took the seat: their seat and link. To the one who left
    it: that a moderator handed it on (to whom, by name, or to the bot). No board:
    the seat's hidden cards are the seat's, not the departing player's."""
    game = _game(notification)
    payload = _payload(notification)
    taking = payload.get("new_user_id") == notification.user_id
    seat = seat_of(game, notification.user_id) if taking else None
    successor = ""
    if not taking and isinstance(payload.get("new_user_id"), int):
        user = get_user_model().objects.select_related("player").filter(pk=payload["new_user_id"]).first()
        successor = display_name(user) if user is not None else ""
    return KindContext(
        {
            "taking": taking,
            "seat_number": payload.get("seat"),
            "bot": bool(payload.get("bot")),
            "successor": successor,
            "game_url": game_url(game, seat) if taking else f"{site_url()}/games/{game.pk}/",
        },
        seat=seat,
    )
