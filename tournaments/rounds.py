"""A tournament's rounds: paired by the pure core (tournaments.pairing), played as
ordinary games, closed when their games end (docs/tournaments.md).

``round_open`` pairs and creates a round's games; ``tournament_advance`` runs
after each game of the tournament ends (the outbox consumer "tournaments",
tournaments.extension, at least once: it is idempotent under the tournament's
row lock) and on beat's sweep for scheduled rounds. It plays a match's next game,
decides matches (T-KO-*), closes a round, withdraws those who forfeited twice
(T-WITHDRAW-FORFEITS), and opens the next round or ends the tournament.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from games import services as game_services
from games.models import Game, GameEvent, Move, PlayedBy
from leagues.models import DEFAULT_POINTS
from leagues.selectors import points_for
from tournaments import pairing
from tournaments.models import Entry, Tournament, TournamentGame, TournamentRound, TournamentTable

logger = logging.getLogger(__name__)

# T-WITHDRAW-FORFEITS: a player who forfeits this many games is not paired again.
FORFEITS_WITHDRAW = 2


def points_for_place(place: int, table_size: int) -> float:
    """T-STAND-POINTS: leagues' points by place for a table of that size (docs/leagues.md)."""
    return float(points_for(DEFAULT_POINTS.get(table_size, DEFAULT_POINTS[2]), place))


# --- one game's result, by entry ----------------------------------------------------------


@dataclass(frozen=True)
class GameResult:
    """A finished (or aborted) tournament game, by entry id: places (empty when the
    game was aborted), prestige, and the entries whose seat counts as forfeited."""

    entries: tuple[int, ...]
    places: dict[int, int]
    prestige: dict[int, int]
    forfeited: frozenset[int]


def game_result(tournament_game: TournamentGame) -> GameResult | None:
    """The result of a game once it has ended; None while it runs. A seat that
    timed out counts as forfeited, and so does one whose every move was the
    bot's (T-KO-FORFEIT: bot moves for missed turns never win on their own)."""
    game = tournament_game.game
    entries = tuple(int(e) for e in tournament_game.entries)
    if game.status == Game.Status.ABORTED:
        return GameResult(entries, {}, {}, frozenset())
    if game.status != Game.Status.FINISHED or not isinstance(game.result, dict):
        return None
    seats = {s.join_position: s for s in game.seats.all() if s.join_position is not None}
    places = [int(p) for p in game.result.get("places", [])]
    scores = [int(s) for s in game.result.get("scores", [])] or [0] * len(places)
    by_entry: dict[int, int] = {}
    prestige: dict[int, int] = {}
    forfeited: set[int] = set()
    for position, entry_id in enumerate(entries):
        seat = seats.get(position)
        if seat is None or seat.index is None or seat.index >= len(places):
            logger.warning("tournament game %s: seat %s has no result", game.pk, position)
            continue
        by_entry[entry_id] = places[seat.index]
        prestige[entry_id] = scores[seat.index] if seat.index < len(scores) else 0
        if seat.timed_out or (not seat.resigned and seat.index in _bot_only_seats(game)):
            forfeited.add(entry_id)
    return GameResult(entries, by_entry, prestige, frozenset(forfeited))


_BOT_ONLY = "_tournament_bot_only_seats"


def bot_only_prime(games: Iterable[Game]) -> None:
    """Read, in one query, which seats of these finished games only the bot moved
    for, and keep it on each game (``game_result`` then asks nothing more)."""
    finished = {game.pk: game for game in games if game.status == Game.Status.FINISHED}
    if not finished:
        return
    made: dict[str, dict[int, set[str]]] = {game_id: {} for game_id in finished}
    rows = Move.objects.filter(game_id__in=list(finished)).exclude(played_by=PlayedBy.SERVICE)
    for game_id, seat, played_by in rows.values_list("game_id", "seat", "played_by").distinct():
        made[game_id].setdefault(seat, set()).add(played_by)
    for game_id, game in finished.items():
        setattr(game, _BOT_ONLY, {seat for seat, by in made[game_id].items() if by == {PlayedBy.BOT}})


def _bot_only_seats(game: Game) -> set[int]:
    """The seats whose every move (one at least) the bot played: T-KO-FORFEIT."""
    if not hasattr(game, _BOT_ONLY):
        bot_only_prime([game])
    seats: set[int] = getattr(game, _BOT_ONLY)
    return seats


# --- standings and pairing input ------------------------------------------------------------


def round_results(tournament: Tournament, *, finished_only: bool = False) -> list[pairing.RoundResult]:
    """Every round's results as the core reads them (T-STAND-*): each ended table
    (a Swiss table's one game), and the round's bye. An aborted table scores
    nothing but its players have met."""
    results: list[pairing.RoundResult] = []
    rounds = list(tournament.round_set.order_by("number").prefetch_related("tables__games__game__seats"))
    bot_only_prime(g.game for r in rounds for t in r.tables.all() for g in t.games.all())
    for played in rounds:
        if finished_only and played.finished_at is None:
            continue
        tables = []
        for table in played.tables.all():
            for tournament_game in table.games.all():
                result = game_result(tournament_game)
                if result is None:
                    continue
                if result.places:
                    tables.append(pairing.TableResult(result.places, result.prestige))
                else:
                    tables.append(pairing.TableResult({e: len(result.entries) for e in result.entries}, {}))
        results.append(pairing.RoundResult(tuple(tables), played.bye_id))
    return results


def took_part_q(tournament: Tournament) -> Q:
    """The entries that take part, as a filter on Entry: before the start, those
    entered; after it, every entry that started (withdrawn ones too: their games
    count for the others), not the invitations that lapsed or the ones who left first."""
    entries = Q(status__in=[Entry.Status.ACTIVE, Entry.Status.ELIMINATED])
    if tournament.started_at is not None:
        entries |= Q(
            status=Entry.Status.WITHDRAWN,
            reason__in=[Entry.Reason.LEFT, Entry.Reason.WITHDRAWN, Entry.Reason.FORFEITS],
            left_at__gte=tournament.started_at,
        )
    return entries


def ratings(tournament: Tournament) -> dict[int, float]:
    """The entries of the standings (``took_part_q``), by id: their rating."""
    return {e.pk: e.rating for e in tournament.entries.filter(took_part_q(tournament)).order_by("id")}


def standings(tournament: Tournament) -> list[pairing.Standing]:
    """Swiss: T-STAND-*. Knockout: T-KO-STAND."""
    played = ratings(tournament)
    if tournament.format == Tournament.Format.KNOCKOUT:
        return _knockout_standings(tournament, played)
    return pairing.standings(played, round_results(tournament), points_for_place, seed=tournament.seed_int())


def _knockout_standings(tournament: Tournament, played: dict[int, float]) -> list[pairing.Standing]:
    """T-KO-STAND: the winner first, then by the round a player reached (those out
    later above those out sooner), then matches won (a bye counts as one), then
    rating. ``points`` are matches won; Buchholz has no meaning here (0)."""
    reached = dict.fromkeys(played, 0)
    won = dict.fromkeys(played, 0)
    prestige = dict.fromkeys(played, 0)
    rounds = list(tournament.round_set.prefetch_related("tables__games__game__seats"))
    bot_only_prime(g.game for r in rounds for t in r.tables.all() for g in t.games.all())
    for one in rounds:
        for table in one.tables.all():
            for entry in table.entries:
                if int(entry) in reached:
                    reached[int(entry)] = max(reached[int(entry)], one.number)
            if table.winner_id in won:
                won[table.winner_id] += 1
            for tournament_game in table.games.all():
                result = game_result(tournament_game)
                for entry_id, points in (result.prestige if result else {}).items():
                    if entry_id in prestige:
                        prestige[entry_id] += points
    champion = None
    if tournament.winner_id is not None:
        champion = Entry.objects.filter(tournament=tournament, user_id=tournament.winner_id).values_list("pk", flat=True).first()
    order = sorted(played, key=lambda e: (e != champion, -reached[e], -won[e], -played[e], e))
    return [
        pairing.Standing(rank, entry, float(won[entry]), 0.0, prestige[entry], played[entry])
        for rank, entry in enumerate(order, start=1)
    ]


# --- opening a round ------------------------------------------------------------------------


def _game_create(tournament: Tournament, entries: Sequence[Entry]) -> Game:
    """A game with every seat taken, in the order given (the first seat is the
    creator's; the play order is drawn from the game's seed like any game's)."""
    game = game_services.game_create(
        creator=entries[0].user,
        variant=tournament.variant,
        seats=len(entries),
        move_seconds=tournament.move_seconds,
        bank_seconds=tournament.bank_seconds,
        bank_cap_seconds=max(tournament.bank_cap_seconds, tournament.bank_seconds),
        forfeit_after=tournament.forfeit_after,
        public=tournament.public,
        rated=tournament.rated,
        vacation_allowed=tournament.vacation_allowed,
        # T-KO-SEATS: a match's games alternate who moves first.
        seat_order_joined=tournament.format == Tournament.Format.KNOCKOUT,
    )
    for entry in entries[1:]:
        game_services.seat_join(game=game, user=entry.user)
    return game


def _table_game(table: TournamentTable, entry_ids: Sequence[int], number: int) -> TournamentGame:
    by_id = {e.pk: e for e in Entry.objects.filter(pk__in=list(entry_ids)).select_related("user")}
    game = _game_create(table.round.tournament, [by_id[e] for e in entry_ids])
    return TournamentGame.objects.create(table=table, game=game, number=number, entries=list(entry_ids))


def _note(game_id: str, kind: str, payload: dict[str, object]) -> None:
    with game_services.game_change(game_id) as writes:
        writes.note(kind, payload)


def round_open(tournament: Tournament, now: datetime) -> TournamentRound | None:
    """Pair round ``n + 1`` and create its games (T-SWISS-*, T-KO-*); its
    ``tournament_round_started`` event goes out on its first game. Called under
    the tournament's row lock. None when no pairing is possible (T-SWISS-BYE)."""
    number = tournament.round_set.count() + 1
    active = {e.pk for e in tournament.entries.filter(status=Entry.Status.ACTIVE)}
    seed = tournament.seed_int() + number
    new_round = TournamentRound.objects.create(tournament=tournament, number=number, started_at=now)
    first_game: str | None = None
    if tournament.format == Tournament.Format.SWISS:
        order = [s.as_swiss_player() for s in standings(tournament) if s.player in active]
        met, had_bye = pairing.history(round_results(tournament))
        try:
            swiss = pairing.swiss_round(order, met=met, had_bye=had_bye, seats=tournament.seats, seed=seed)
        except pairing.PairingError as refused:
            # T-SWISS-BYE: every player left has had a bye and one more is needed;
            # the tournament ends with the rounds played (tournament_advance).
            logger.warning("tournament %s: round %s cannot be paired (%s); it ends here", tournament.pk, number,
                           refused)  # fmt: skip
            new_round.delete()
            return None
        new_round.bye_id = swiss.bye
        new_round.save(update_fields=["bye"])
        for position, entries in enumerate(swiss.tables, start=1):
            table = TournamentTable.objects.create(round=new_round, position=position, entries=list(entries))
            created = _table_game(table, entries, 1).game_id
            first_game = first_game or created
    else:
        gone = set(tournament.entries.filter(status=Entry.Status.WITHDRAWN).values_list("pk", flat=True))
        for position, match in enumerate(_knockout_round(tournament, number), start=1):
            if match.low is None:  # T-KO-BYE
                TournamentTable.objects.create(
                    round=new_round, position=position, entries=[match.high], winner_id=match.high,
                    decided_by="bye", finished_at=now,
                )  # fmt: skip
                continue
            if {match.high, match.low} & gone:
                # T-WITHDRAW: a winner who withdrew between rounds loses this match
                # unplayed (when both did, the better seed goes on, to lose the next).
                winner = match.low if match.high in gone and match.low not in gone else match.high
                TournamentTable.objects.create(
                    round=new_round, position=position, entries=[match.high, match.low], winner_id=winner,
                    decided_by="withdrawn", finished_at=now,
                )  # fmt: skip
                continue
            table = TournamentTable.objects.create(round=new_round, position=position, entries=[match.high, match.low])
            created = _table_game(table, pairing.match_seats(match, 1), 1).game_id
            first_game = first_game or created
    if first_game is not None:
        _note(first_game, GameEvent.Kind.TOURNAMENT_ROUND_STARTED, {"tournament_id": tournament.pk, "round": number})
    return new_round


def _knockout_round(tournament: Tournament, number: int) -> tuple[pairing.KnockoutMatch, ...]:
    """T-KO-BRACKET, T-KO-NEXT: the first round from the seeds, the next from the
    winners of the last in bracket order."""
    if number == 1:
        active = tournament.entries.filter(status=Entry.Status.ACTIVE)
        return pairing.knockout_first_round({e.pk: e.rating for e in active}, tournament.seed_int())
    previous = tournament.round_set.get(number=number - 1)
    winners = [t.winner_id for t in previous.tables.order_by("position") if t.winner_id is not None]
    everyone = {e.pk: e.rating for e in tournament.entries.all()}
    return pairing.knockout_next_round(winners, everyone, tournament.seed_int())


# --- after a game ends ------------------------------------------------------------------------


def _match_step(table: TournamentTable, tournament: Tournament, now: datetime) -> None:
    """T-KO-MATCH, T-KO-REPLAY, T-KO-FORFEIT: decide the match, or play its next game."""
    games = list(table.games.select_related("game").prefetch_related("game__seats").order_by("number"))
    results = [game_result(g) for g in games]
    if any(r is None for r in results):
        return
    high, low = int(table.entries[0]), int(table.entries[1])
    match = pairing.KnockoutMatch(high, low)
    gone = set(Entry.objects.filter(pk__in=[high, low], status=Entry.Status.WITHDRAWN).values_list("pk", flat=True))
    if len(gone) == 1:  # T-WITHDRAW: a player who left loses the match
        (loser,) = gone
        _decide(table, winner=high if loser == low else low, loser=loser, how="withdrawn", now=now)
        return
    for result in results:
        assert result is not None
        lone = result.forfeited if len(result.forfeited) == 1 else frozenset()
        if lone:
            (loser,) = lone
            _decide(table, winner=high if loser == low else low, loser=loser, how="forfeit", now=now)
            return
    played = [r.places if r.places else {high: 1, low: 1} for r in results if r is not None]
    outcome = pairing.match_outcome(match, played, tournament.games_per_match)
    if outcome.winner is not None:
        _decide(table, winner=outcome.winner, loser=low if outcome.winner == high else high, how="", now=now)
        return
    number = len(games) + 1
    _table_game(table, pairing.match_seats(match, number), number)


def _decide(table: TournamentTable, *, winner: int, loser: int, how: str, now: datetime) -> None:
    table.winner_id, table.decided_by, table.finished_at = winner, how, now
    table.save(update_fields=["winner", "decided_by", "finished_at"])
    Entry.objects.filter(pk=loser, status=Entry.Status.ACTIVE).update(status=Entry.Status.ELIMINATED, left_at=now)


def _forfeit_withdrawals(tournament: Tournament, now: datetime) -> None:
    """T-WITHDRAW-FORFEITS: a Swiss player who has forfeited two games is not paired again."""
    counts: dict[int, int] = {}
    for tournament_game in TournamentGame.objects.filter(table__round__tournament=tournament).select_related(
        "game"
    ).prefetch_related("game__seats"):
        result = game_result(tournament_game)
        for entry_id in result.forfeited if result is not None else ():
            counts[entry_id] = counts.get(entry_id, 0) + 1
    out = [e for e, n in counts.items() if n >= FORFEITS_WITHDRAW]
    Entry.objects.filter(pk__in=out, status=Entry.Status.ACTIVE).update(
        status=Entry.Status.WITHDRAWN, reason=Entry.Reason.FORFEITS, left_at=now
    )


def _round_done(current: TournamentRound) -> bool:
    for table in current.tables.prefetch_related("games__game__seats"):
        if current.tournament.format == Tournament.Format.KNOCKOUT:
            if table.winner_id is None:
                return False
        elif any(game_result(g) is None for g in table.games.all()):
            return False
    return True


def _next_round_due(tournament: Tournament, number: int, now: datetime) -> bool:
    """T-RHYTHM-ENDED, T-RHYTHM-SCHEDULE: round ``number`` may open now."""
    if tournament.rhythm != Tournament.Rhythm.SCHEDULE:
        return True
    times = tournament.round_starts or []
    if number - 1 >= len(times):
        return True  # a knockout's rounds past the schedule follow when the last ends
    when = parse_datetime(str(times[number - 1]))
    return when is None or when <= now


def tournament_advance(*, tournament_id: int, now: datetime | None = None) -> bool:
    """Move the tournament on as far as its games allow; True when it changed.
    Idempotent under the tournament's row lock: a repeated call finds nothing to do."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None or tournament.status != Tournament.Status.RUNNING:
            return False
        changed = False
        while True:
            # A knockout round may open already decided (T-WITHDRAW: its matches lost
            # by withdrawals, no game to end it): it closes at once, and so on.
            moved, opened = _advance_step(tournament, now)
            changed |= moved
            if not opened:
                return changed


def _advance_step(tournament: Tournament, now: datetime) -> tuple[bool, bool]:
    """One step of ``tournament_advance``, under the tournament's row lock: (changed,
    a round opened)."""
    current = tournament.round_set.order_by("-number").first()
    if current is None:
        return False, False
    changed = False
    if current.finished_at is None:
        if tournament.format == Tournament.Format.KNOCKOUT:
            for table in current.tables.filter(winner__isnull=True):
                before = table.games.count()
                _match_step(table, tournament, now)
                table.refresh_from_db()
                changed |= table.winner_id is not None or table.games.count() != before
        if not _round_done(current):
            return changed, False
        current.finished_at = now
        current.save(update_fields=["finished_at"])
        changed = True
        if tournament.format == Tournament.Format.SWISS:
            _forfeit_withdrawals(tournament, now)
    if _tournament_over(tournament, current):
        _finish(tournament, current, now)
        return True, False
    if _next_round_due(tournament, current.number + 1, now):
        if round_open(tournament, now) is None:
            _finish(tournament, current, now)
            return True, False
        return True, True
    return changed, False


def _tournament_over(tournament: Tournament, current: TournamentRound) -> bool:
    if tournament.format == Tournament.Format.KNOCKOUT:
        return current.tables.count() == 1
    active = tournament.entries.filter(status=Entry.Status.ACTIVE).count()
    return current.number >= (tournament.rounds or 0) or active < 2


def _finish(tournament: Tournament, last: TournamentRound, now: datetime) -> None:
    if tournament.format == Tournament.Format.KNOCKOUT:
        winner_entry = last.tables.get().winner
    else:
        # The best placed player still in the tournament: one who withdrew does not win it.
        still_in = set(tournament.entries.filter(status=Entry.Status.ACTIVE).values_list("pk", flat=True))
        top = next((row.player for row in standings(tournament) if row.player in still_in), None)
        winner_entry = Entry.objects.get(pk=top) if top is not None else None
    tournament.status, tournament.finished_at = Tournament.Status.FINISHED, now
    tournament.winner_id = winner_entry.user_id if winner_entry is not None else None
    tournament.save(update_fields=["status", "finished_at", "winner"])
    last_game = (
        TournamentGame.objects.filter(table__round__tournament=tournament).order_by("-game__finished_at", "-id").first()
    )
    if last_game is not None:
        _note(
            last_game.game_id,
            GameEvent.Kind.TOURNAMENT_FINISHED,
            {"tournament_id": tournament.pk, "winner_id": tournament.winner_id},
        )


def tournament_of_game(game_id: str) -> int | None:
    return (
        TournamentGame.objects.filter(game_id=game_id).values_list("table__round__tournament_id", flat=True).first()
    )
