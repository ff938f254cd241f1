"""Bugs a review found, each shown by a test: a knockout winner who withdrew
between rounds (T-WITHDRAW, T-KO-FORFEIT), leaving a finished tournament
(T-WITHDRAW), a withdrawn player coming back by themselves (T-WITHDRAW,
T-ORGANISER), a league's tournament and its variant, and an organiser's action
reading its entry before the tournament's lock (T-ADMIN-REPLACE)."""

from __future__ import annotations

from typing import Any

import pytest

from games import services as game_services
from games.models import Game, ModerationEntry
from leagues.models import League
from tests.games.game_helpers import make_player
from tests.tournaments.api_helpers import Clients, ok
from tests.tournaments.conftest import rated_players
from tournaments import errors, selectors, services
from tournaments.models import Entry, Tournament, TournamentGame


def _create(user: Any, **fields: Any) -> Tournament:
    defaults: dict[str, Any] = {"name": "T", "format": "swiss", "seats": 2, "rounds": 2}
    return services.tournament_create(creator=user, **{**defaults, **fields})


def _enter(tournament: Tournament, users: list[Any]) -> None:
    for user in users:
        services.tournament_join(tournament_id=tournament.pk, user=user)


def _game_between(tournament: Tournament, number: int, *names: str) -> Game:
    for tournament_game in TournamentGame.objects.filter(table__round__tournament=tournament,
                                                         table__round__number=number):  # fmt: skip
        game = tournament_game.game
        if set(game.seats.values_list("user__username", flat=True)) == set(names):
            return game
    raise AssertionError(f"no game of round {number} between {names}")


def test_a_knockout_winner_who_withdraws_between_rounds_loses_the_next_match_unplayed(
    transactional_db: None,
) -> None:
    """T-WITHDRAW, T-KO-FORFEIT: p1 wins their semi-final, then leaves while the
    other semi-final runs. The final is not played: no game waits days for p1's
    timeouts; p2 wins it at once and the tournament ends."""
    users = rated_players(4)
    tournament = _create(users[0], format="knockout", seats=2)
    _enter(tournament, users)
    services.tournament_start(tournament_id=tournament.pk, by=users[0])
    game_services.game_resign(game=_game_between(tournament, 1, "p1", "p4"), user=users[3])
    services.tournament_leave(tournament_id=tournament.pk, user=users[0])
    game_services.game_resign(game=_game_between(tournament, 1, "p2", "p3"), user=users[2])
    final = tournament.round_set.get(number=2)
    assert not TournamentGame.objects.filter(table__round=final).exists()
    (table,) = final.tables.all()
    assert table.winner is not None and table.winner.user_id == users[1].pk and table.decided_by == "withdrawn"
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED and tournament.winner_id == users[1].pk


def test_a_player_cannot_leave_a_finished_tournament(transactional_db: None) -> None:
    """T-WITHDRAW is for a running tournament: the champion of a finished one
    stays the champion, not "withdrawn", in its final standings."""
    users = rated_players(2)
    tournament = _create(users[0], format="knockout", seats=2)
    _enter(tournament, users)
    services.tournament_start(tournament_id=tournament.pk, by=users[0])
    game_services.game_resign(game=_game_between(tournament, 1, "p1", "p2"), user=users[1])
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    with pytest.raises(errors.TournamentClosed):
        services.tournament_leave(tournament_id=tournament.pk, user=users[0])
    organiser = users[0]
    with pytest.raises(errors.TournamentClosed):
        services.entry_withdraw(entry_id=Entry.objects.get(tournament=tournament, user=users[0]).pk, by=organiser,
                                reason="Cheated")  # fmt: skip
    assert Entry.objects.get(tournament=tournament, user=users[0]).status == Entry.Status.ACTIVE


def test_a_player_an_organiser_withdrew_does_not_come_back_unless_invited(db: None) -> None:
    """T-WITHDRAW, T-ORGANISER: before the start, an organiser withdraws p2 from a
    public tournament; p2 cannot simply join again, but an invitation lets them."""
    organiser = make_player("olga")
    (p1, p2) = rated_players(2)
    tournament = _create(organiser)
    _enter(tournament, [p1, p2])
    entry = Entry.objects.get(tournament=tournament, user=p2)
    services.entry_withdraw(entry_id=entry.pk, by=organiser, reason="Abusive in chat")
    with pytest.raises(errors.InvitationOnly) as refused:
        services.tournament_join(tournament_id=tournament.pk, user=p2)
    assert refused.value.fields["rule"] == "T-WITHDRAW"
    invited = services.tournament_invite(tournament_id=tournament.pk, by=organiser, usernames=["p2"])
    assert [e.user_id for e in invited] == [p2.pk]
    assert services.tournament_join(tournament_id=tournament.pk, user=p2).status == Entry.Status.ACTIVE


def test_a_leagues_tournament_made_through_the_api_plays_the_leagues_variant(db: None) -> None:
    """A league's tournament takes the league's variant unless the request names one
    (tournaments.services.tournament_create); the API's default must not stand in."""
    admin = make_player("ada")
    league = League.objects.create(name="Marvel league", variant=Game.Variant.MARVEL)
    league.admins.add(admin)
    client = Clients([admin])["ada"]
    body = ok(client.post("/api/v1/tournaments/", {"name": "Cup", "format": "knockout", "league_id": league.pk},
                          format="json"), 201)  # fmt: skip
    assert body["variant"] == Game.Variant.MARVEL
    body = ok(client.post("/api/v1/tournaments/", {"name": "Base cup", "format": "knockout", "league_id": league.pk,
                                                   "variant": "base"}, format="json"), 201)  # fmt: skip
    assert body["variant"] == "base"


def test_an_organisers_action_reads_the_entry_under_the_tournaments_lock(
    db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """T-ADMIN-REPLACE: two organisers replace the same player at once. The second,
    who waited on the tournament's lock, must see the first's change (the entry is
    no longer p1's), not hand it on as p1's and log p1 as its player."""
    organiser, nina, oscar = make_player("olga"), make_player("nina"), make_player("oscar")
    (p1, p2) = rated_players(2)
    tournament = _create(organiser)
    _enter(tournament, [p1, p2])
    entry = Entry.objects.get(tournament=tournament, user=p1)
    locked = services._locked

    def first_replace_commits_while_we_wait(tournament_id: int) -> Tournament:
        Entry.objects.filter(pk=entry.pk).update(user=nina)  # the other organiser's replacement
        return locked(tournament_id)

    monkeypatch.setattr(services, "_locked", first_replace_commits_while_we_wait)
    services.entry_replace(entry_id=entry.pk, user=oscar, by=organiser, reason="Moved away")
    logged = ModerationEntry.objects.get(action=ModerationEntry.Action.TOURNAMENT_REPLACED)
    assert logged.target_user_id == nina.pk


def test_a_private_tournaments_news_reaches_only_those_who_took_part(transactional_db: None) -> None:
    """T-NEWS-AUDIENCE: an invitation that lapsed at the start, and a player the
    organiser withdrew before it, hear nothing of a private tournament's rounds."""
    organiser = make_player("olga")
    p1, p2, p3, _p4 = rated_players(4)
    tournament = _create(organiser, public=False)
    services.tournament_invite(tournament_id=tournament.pk, by=organiser, usernames=["p1", "p2", "p3", "p4"])
    _enter(tournament, [p1, p2, p3])
    services.entry_withdraw(entry_id=Entry.objects.get(tournament=tournament, user=p3).pk, by=organiser,
                            reason="Abusive in chat")  # fmt: skip
    services.tournament_start(tournament_id=tournament.pk, by=organiser)
    assert selectors.event_recipients(tournament.pk) == {p1.pk, p2.pk}
