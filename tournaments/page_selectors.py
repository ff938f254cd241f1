"""Reads for the tournament pages (tournaments.pages) beyond the API's own
(tournaments.selectors): the viewer's entry, the organisers, the players'
count, a knockout's bracket as columns of matches; and the labels of a list of
games (My games), in one query.

The bracket is built from ``selectors.rounds_view`` (what the API shows), so the
page never reads more than the API does: names, places and the games' ids, never
a game's state or the tournament's seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.utils.translation import gettext

from tournaments.models import Entry, Tournament, TournamentGame


def viewer_entry_status(tournament: Tournament, user: User | AnonymousUser | None) -> str | None:
    """The viewer's entry's status (``Entry.Status``), or None: no entry, or nobody signed in."""
    if user is None or not user.is_authenticated:
        return None
    return Entry.objects.filter(tournament=tournament, user_id=user.pk).values_list("status", flat=True).first()


def organiser_names(tournament: Tournament) -> list[str]:
    """Who organises it (T-ORGANISER): its creator, then its league's admins."""
    names = [tournament.created_by.get_username()]
    if tournament.league_id is not None:
        admins = tournament.league.admins.order_by("username").values_list("username", flat=True)  # type: ignore[union-attr]
        names += [name for name in admins if name not in names]
    return names


def game_labels(game_ids: Sequence[str]) -> dict[str, str]:
    """"<tournament>, round <n>" (and the game of a match past its first) for each
    of ``game_ids`` that a tournament played, in one query: the labels of a
    player's list of games (tournaments.extension, ``game_list_labels``)."""
    found = TournamentGame.objects.filter(game_id__in=list(game_ids)).values_list(
        "game_id", "table__round__tournament__name", "table__round__number", "number"
    )
    labels = {}
    for game_id, name, number, game_number in found:
        label = gettext("%(tournament)s, round %(round)s") % {"tournament": name, "round": number}
        if game_number > 1:
            label = gettext("%(label)s, game %(game)s") % {"label": label, "game": game_number}
        labels[game_id] = label
    return labels


def players_count(tournament: Tournament) -> int:
    """Entries playing or out of it (not invitations), as the API counts them."""
    return tournament.entries.filter(status__in=[Entry.Status.ACTIVE, Entry.Status.ELIMINATED]).count()


# --- the bracket -----------------------------------------------------------------------------


@dataclass(frozen=True)
class BracketSide:
    """One player's line in a match box: ``name`` is empty while the slot waits
    for the winner of an earlier match, ``bye`` marks the empty place of a bye."""

    name: str
    wins: int = 0
    winner: bool = False
    bye: bool = False


@dataclass(frozen=True)
class BracketGame:
    number: int
    game_id: str
    status: str


@dataclass(frozen=True)
class BracketMatch:
    sides: tuple[BracketSide, BracketSide]
    games: tuple[BracketGame, ...] = ()
    # "" (played, or not decided yet), "bye", "forfeit", "withdrawn".
    decided_by: str = ""
    decided: bool = False


@dataclass(frozen=True)
class BracketRound:
    number: int
    # Players the round starts with (its matches twice over): 2 is the final.
    players: int
    matches: tuple[BracketMatch, ...]


def _wins(games: list[dict[str, Any]]) -> dict[str, int]:
    """Games won in a match, by name: a game's lone first place (a shared first
    place counts for no one, T-KO-REPLAY)."""
    wins: dict[str, int] = {}
    for game in games:
        places = game.get("places") or []
        firsts = [name for name, place in zip(game["players"], places) if place == 1]
        if len(firsts) == 1:
            wins[firsts[0]] = wins.get(firsts[0], 0) + 1
    return wins


def _match(table: dict[str, Any]) -> BracketMatch:
    players: list[str] = list(table["players"])
    winner = table.get("winner")
    wins = _wins(table["games"])
    sides = [BracketSide(name, wins.get(name, 0), winner == name) for name in players[:2]]
    if len(sides) == 1:
        sides.append(BracketSide("", bye=True))
    games = tuple(BracketGame(g["number"], str(g["game_id"]), str(g["status"])) for g in table["games"])
    return BracketMatch((sides[0], sides[1]), games, str(table.get("decided_by") or ""), winner is not None)


def _waiting(count: int, fed_by: tuple[BracketMatch, ...]) -> tuple[BracketMatch, ...]:
    """Matches not paired yet, each with the winners known so far of the two
    matches that feed it (T-KO-NEXT: neighbours in bracket order)."""

    def through(index: int) -> BracketSide:
        if index >= len(fed_by):
            return BracketSide("")
        return BracketSide(next((side.name for side in fed_by[index].sides if side.winner), ""))

    return tuple(BracketMatch((through(2 * i), through(2 * i + 1))) for i in range(count))


def bracket(rounds: list[dict[str, Any]], planned: int | None) -> list[BracketRound]:
    """A knockout's rounds as columns (T-KO-BRACKET): each played round's matches
    in bracket order, then the rounds still to come, halving to the final, with
    the winners already through in their places. ``rounds`` is ``selectors.rounds_view``; ``planned`` is
    ``selectors.rounds_planned``. Empty before the first round is paired."""
    if not rounds:
        return []
    first = len(rounds[0]["tables"])
    depth = max(planned or 0, len(rounds))
    columns: list[BracketRound] = []
    for index in range(depth):
        expected = max(1, first >> index)
        fed_by = columns[-1].matches if columns else ()
        if index < len(rounds):
            matches = tuple(_match(table) for table in rounds[index]["tables"])
            matches += _waiting(expected - len(matches), ())
        else:
            matches = _waiting(expected, fed_by)
        columns.append(BracketRound(number=index + 1, players=2 * len(matches), matches=matches))
    return columns
