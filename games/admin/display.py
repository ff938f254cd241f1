"""How the admin shows games and the moderation log in words: people by their
current names (the log stores ids only), time controls, results and an entry's
details. Read-only helpers for games.admin and leagues.admin."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from django.contrib.auth import get_user_model
from django.db.models import Model, OuterRef, QuerySet, Subquery
from django.utils.html import format_html, format_html_join
from django.utils.functional import Promise
from django.utils.safestring import SafeString
from django.utils.translation import gettext, gettext_lazy, ngettext

from accounts.models import Player
from core.text import listed
from games.models import Game, ModerationEntry
from games.results import ResultReason

_ModelT = TypeVar("_ModelT", bound=Model)


# --- people, times and results in words -------------------------------------------------


def person_words(user_id: int | None, username: str | None, display_name: str | None) -> str:
    """A person the moderation log names by id, as they are called now: "Hank
    (hank, user 10)"; an id whose account no longer exists: "user 10 (deleted)"."""
    if user_id is None:
        return "—"
    if username is None:
        return gettext("user %(id)s (deleted)") % {"id": user_id}
    if display_name and display_name != username:
        return gettext("%(name)s (%(username)s, user %(id)s)") % {
            "name": display_name,
            "username": username,
            "id": user_id,
        }
    return gettext("%(username)s (user %(id)s)") % {"username": username, "id": user_id}


def people_words(user_ids: Iterable[int | None]) -> dict[int, str]:
    """``person_words`` for each of these ids, in one query."""
    wanted = {user_id for user_id in user_ids if user_id is not None}
    found = {
        user_id: (username, display_name)
        for user_id, username, display_name in get_user_model()
        .objects.filter(pk__in=wanted)
        .values_list("pk", "username", "player__display_name")
    }
    return {user_id: person_words(user_id, *found.get(user_id, (None, None))) for user_id in wanted}


def with_people_names(queryset: QuerySet[_ModelT]) -> QuerySet[_ModelT]:
    """Moderation entries with the current username and display name of the
    moderator (``moderator_username``, ``moderator_display_name``) and of the
    player (``target_username``, ``target_display_name``), in the same query as
    the entries: the log keeps ids only, so a list of them would otherwise ask
    for each name apart."""
    users = get_user_model().objects
    names: dict[str, Any] = {}
    for prefix, column in (("moderator", "user_id"), ("target", "target_user_id")):
        names[f"{prefix}_username"] = Subquery(users.filter(pk=OuterRef(column)).values("username")[:1])
        names[f"{prefix}_display_name"] = Subquery(
            Player.objects.filter(user_id=OuterRef(column)).values("display_name")[:1]
        )
    annotated: QuerySet[_ModelT] = queryset.annotate(**names)
    return annotated


def moderator_words(entry: ModerationEntry) -> str:
    """The entry's moderator by name (``with_people_names`` looked it up)."""
    return person_words(
        entry.user_id, getattr(entry, "moderator_username", None), getattr(entry, "moderator_display_name", None)
    )


def target_words(entry: ModerationEntry) -> str:
    """The player the entry is about, by name (``with_people_names`` looked it up)."""
    return person_words(
        entry.target_user_id, getattr(entry, "target_username", None), getattr(entry, "target_display_name", None)
    )


def details_html(entry: ModerationEntry) -> SafeString:
    """An entry's details one per line, the people in them by name."""
    details = entry.details or {}
    names = people_words(value for key, value in details.items() if key.endswith("_user_id") and isinstance(value, int))
    rows = []
    for key, value in details.items():
        if key.endswith("_user_id"):
            label = key.removesuffix("_user_id").replace("_", " ") + " player"
            rows.append((label, names[value] if isinstance(value, int) else "—"))
        elif isinstance(value, list):
            rows.append((key.replace("_", " "), ", ".join(map(str, value))))
        else:
            rows.append((key.replace("_", " "), "—" if value is None else str(value)))
    if not rows:
        return format_html("{}", "—")
    return format_html("<ul>{}</ul>", format_html_join("", "<li>{}: {}</li>", rows))


def span_words(seconds: int) -> str:
    """A span of time as a person says it: "1 minute", "3 days", "1 day 6 hours"."""
    parts = []
    rest = max(seconds, 0)
    for unit in (86400, 3600, 60, 1):
        amount, rest = divmod(rest, unit)
        if amount:
            parts.append(_amount(unit, amount))
    return " ".join(parts) or gettext("no time")


def _amount(unit: int, n: int) -> str:
    if unit == 86400:
        return ngettext("%(n)s day", "%(n)s days", n) % {"n": n}
    if unit == 3600:
        return ngettext("%(n)s hour", "%(n)s hours", n) % {"n": n}
    if unit == 60:
        return ngettext("%(n)s minute", "%(n)s minutes", n) % {"n": n}
    return ngettext("%(n)s second", "%(n)s seconds", n) % {"n": n}


def _ordinal(n: int) -> str:
    """``n`` as an ordinal in the active language: "3rd" ("3°", "3.")."""
    if 10 <= n % 100 <= 20 or n % 10 not in (1, 2, 3):
        return gettext("%(n)sth") % {"n": n}
    if n % 10 == 1:
        return gettext("%(n)sst") % {"n": n}
    if n % 10 == 2:
        return gettext("%(n)snd") % {"n": n}
    return gettext("%(n)srd") % {"n": n}


def time_control_words(game: Game) -> str:
    """The game's clock as docs/api.md ("Clocks and timeouts") describes it:
    "1 minute per move; no time bank; the 3rd timeout in a row forfeits the seat"."""
    cap = span_words(game.bank_cap_seconds)
    if game.bank_start_seconds:
        bank = gettext("a bank of %(start)s at the start, at most %(cap)s") % {
            "start": span_words(game.bank_start_seconds),
            "cap": cap,
        }
    elif game.bank_cap_seconds:
        bank = gettext("an empty bank at the start, at most %(cap)s") % {"cap": cap}
    else:
        bank = gettext("no time bank")
    if game.forfeit_after == 1:
        forfeit = gettext("the first timeout forfeits the seat")
    else:
        forfeit = gettext("the %(ordinal)s timeout in a row forfeits the seat") % {
            "ordinal": _ordinal(game.forfeit_after)
        }
    return gettext("%(time)s per move; %(bank)s; %(forfeit)s") % {
        "time": span_words(game.move_seconds),
        "bank": bank,
        "forfeit": forfeit,
    }


# Why a game ended, for a moderator reading its result.
RESULT_REASON_WORDS: dict[str, str | Promise] = {
    ResultReason.POINTS: gettext_lazy("a player reached the points target and the round was finished"),
    ResultReason.GAUNTLET: gettext_lazy("a player completed the Infinity Gauntlet and the round was finished"),
    ResultReason.ALL_PASSED: gettext_lazy("every player passed in a row"),
    ResultReason.ROUND_LIMIT: gettext_lazy("the round limit was reached"),
    ResultReason.RESIGNATION: gettext_lazy("every other player resigned"),
    ResultReason.TIMEOUT: gettext_lazy("every other player resigned or ran out of time"),
    ResultReason.ACCOUNT_DISABLED: gettext_lazy("every other player left the game (an account was disabled)"),
    ResultReason.ADJUDICATED: gettext_lazy("a moderator decided the places"),
}


def _seat_names(game: Game) -> dict[int, str]:
    return {seat.index: seat.user.get_username() for seat in game.seats.all() if seat.index is not None}


def result_html(game: Game) -> SafeString:
    """The result as a moderator reads it: who won, each seat's place and score
    (and whether it left), and why the game ended."""
    result = game.result
    if not result:
        if game.status == Game.Status.ABORTED:
            return format_html("{}", gettext("No result: the game was aborted."))
        return format_html("{}", gettext("No result yet."))
    names = _seat_names(game)

    def who(seat: int) -> str:
        return gettext("%(name)s (seat %(seat)s)") % {"name": names.get(seat, gettext("nobody")), "seat": seat}

    places, scores = result.get("places") or [], result.get("scores") or []
    resigned, timed_out = set(result.get("resigned") or []), set(result.get("timed_out") or [])
    rows = []
    for seat in result.get("ranking") or []:
        left = gettext("out on time") if seat in timed_out else gettext("resigned") if seat in resigned else ""
        rows.append(
            (
                places[seat] if seat < len(places) else "?",
                who(seat),
                ngettext("%(n)s point", "%(n)s points", scores[seat]) % {"n": scores[seat]} if seat < len(scores) else "?",
                left,
            )
        )
    winners = [who(seat) for seat in result.get("winners") or []]
    reason = str(result.get("reason", ""))
    return format_html(
        "<p>{}: {}</p><table><tr><th>{}</th><th>{}</th><th>{}</th><th></th></tr>{}</table><p>{}</p>",
        ngettext("Winner", "Winners", max(1, len(winners))),
        listed(winners),
        gettext("place"),
        gettext("player"),
        gettext("score"),
        format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", rows),
        gettext("Why it ended: %(words)s (%(reason)s).")
        % {"words": RESULT_REASON_WORDS.get(reason, reason), "reason": reason},
    )
