"""The tournaments' rules beyond the two Done-when runs: settings that do not fit
(T-FORMAT-*), private tournaments and invitations (T-ENTRY-*), the rhythm
(T-RHYTHM-*), forfeits (T-KO-FORFEIT, T-WITHDRAW-FORFEITS), replays (T-KO-REPLAY),
replacing a player (T-ADMIN-REPLACE), and that the seed never leaves the server."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games import services as game_services
from games.models import Game, ModerationEntry
from games.moderation import moderation_game_adjudicate
from tests.games.game_helpers import make_player, play_moves
from tests.tournaments.api_helpers import Clients, current_round, detail, ok
from tests.tournaments.conftest import rated_players
from tournaments import errors, services
from tournaments.models import Entry, Tournament, TournamentGame


def _problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    body: dict[str, Any] = response.json()
    assert body["code"] == code and body["detail"]
    return body


def _create(user: Any, **fields: Any) -> Tournament:
    defaults: dict[str, Any] = {"name": "T", "format": "swiss", "seats": 2, "rounds": 2}
    return services.tournament_create(creator=user, **{**defaults, **fields})


def _enter(tournament: Tournament, users: list[Any]) -> None:
    for user in users:
        services.tournament_join(tournament_id=tournament.pk, user=user)


def _only_game(tournament: Tournament, number: int = 1) -> Game:
    (found,) = [g.game for g in TournamentGame.objects.filter(table__round__tournament=tournament,
                                                               table__round__number=number)]  # fmt: skip
    return found


@pytest.mark.parametrize(
    ("fields", "field", "rule"),
    [
        ({"format": "swiss", "seats": 3}, "rounds", "T-FORMAT-ROUNDS"),
        ({"format": "knockout", "seats": 3}, "seats", "T-FORMAT-SEATS"),
        ({"format": "knockout", "games_per_match": 2}, "games_per_match", "T-KO-MATCH"),
        ({"format": "swiss", "rounds": 2, "round_starts": ["2099-01-01T10:00:00Z"]}, "round_starts",
         "T-RHYTHM-SCHEDULE"),
        ({"format": "swiss", "rounds": 1, "starts_at": "2001-01-01T10:00:00Z"}, "starts_at", "T-RHYTHM-START"),
        ({"format": "swiss", "rounds": 1, "starts_at": "2099-01-02T10:00:00Z", "round_starts": ["2099-01-01T10:00:00Z"]},
         "starts_at", "T-RHYTHM-SCHEDULE"),
    ],
)  # fmt: skip
def test_settings_that_do_not_fit_are_refused_with_their_rule(db: None, fields: dict[str, Any], field: str,
                                                              rule: str) -> None:  # fmt: skip
    client = Clients([make_player("olga")])["olga"]
    body = _problem(client.post("/api/v1/tournaments/", {"name": "Bad", **fields}, format="json"), 400,
                    "invalid_tournament")  # fmt: skip
    assert body["field"] == field and body["rule"] == rule
    assert not Tournament.objects.exists()


def test_a_private_tournament_is_by_invitation_and_unknown_to_strangers(db: None) -> None:
    olga, ann, stranger = make_player("olga"), make_player("ann"), make_player("zed")
    clients = Clients([olga, ann, stranger])
    tournament = _create(olga, public=False)
    url = f"/api/v1/tournaments/{tournament.pk}/"
    _problem(clients["zed"].get(url), 404, "tournament_not_found")
    _problem(clients["zed"].post(url + "join/"), 404, "tournament_not_found")
    assert ok(clients["zed"].get("/api/v1/tournaments/")) == []
    _problem(clients["ann"].post(url + "invite/", {"usernames": ["zed"]}, format="json"), 404, "tournament_not_found")
    assert ok(clients["olga"].post(url + "invite/", {"usernames": ["ann"]}, format="json"))[0]["status"] == "invited"
    # The invitee sees it and accepts by joining; an organiser who is not a player is not in it.
    assert ok(clients["ann"].get(url))["your_entry"] == "invited"
    assert ok(clients["ann"].post(url + "join/"))["status"] == "active"
    _problem(clients["ann"].post(url + "invite/", {"usernames": ["zed"]}, format="json"), 403, "not_an_organiser")
    _problem(clients["ann"].post(url + "start/"), 403, "not_an_organiser")
    _problem(clients["olga"].post(url + "start/"), 409, "tournament_too_few_players")


def test_a_full_tournament_and_a_second_entry_are_refused(db: None) -> None:
    users = rated_players(3)
    clients = Clients(users)
    tournament = _create(users[0], max_players=2)
    url = f"/api/v1/tournaments/{tournament.pk}/join/"
    ok(clients["p1"].post(url))
    _problem(clients["p1"].post(url), 409, "already_entered")
    ok(clients["p2"].post(url))
    _problem(clients["p3"].post(url), 409, "tournament_full")


def test_the_first_round_starts_at_its_time_and_a_tournament_without_players_is_cancelled(
    transactional_db: None,
) -> None:
    users = rated_players(2)
    soon = timezone.now() + timedelta(hours=1)
    ready, empty = _create(users[0], starts_at=soon), _create(users[0], starts_at=soon, name="Empty")
    _enter(ready, users)
    assert services.tournaments_start_due(now=soon - timedelta(minutes=1)) == 0
    assert services.tournaments_start_due(now=soon) == 2
    ready.refresh_from_db(), empty.refresh_from_db()
    assert ready.status == Tournament.Status.RUNNING and ready.round_set.count() == 1
    assert empty.status == Tournament.Status.CANCELLED


def test_a_scheduled_round_waits_for_its_time_then_opens(transactional_db: None) -> None:
    users = rated_players(2)
    first, second = timezone.now() + timedelta(hours=1), timezone.now() + timedelta(days=3)
    tournament = _create(users[0], round_starts=[first.isoformat(), second.isoformat()])
    assert tournament.rhythm == Tournament.Rhythm.SCHEDULE and tournament.starts_at == first
    _enter(tournament, users)
    services.tournaments_start_due(now=first)
    game_services.game_resign(game=_only_game(tournament), user=users[1])
    tournament.refresh_from_db()
    # T-RHYTHM-SCHEDULE: round 1 has ended, but round 2 waits for its time.
    assert tournament.round_set.count() == 1 and tournament.round_set.get().finished_at is not None
    assert services.tournaments_start_due(now=second - timedelta(minutes=5)) == 0
    assert services.tournaments_start_due(now=second) == 1
    assert tournament.round_set.count() == 2


def test_bot_moves_alone_never_win_a_match(transactional_db: None) -> None:
    """T-KO-FORFEIT: p1 missed their first turn (the bot played it), then p2
    resigned: p1 won the game, but every move of their seat was the bot's."""
    users = rated_players(2)
    tournament = _create(users[0], format="knockout", seats=2, forfeit_after=3, vacation_allowed=False)
    _enter(tournament, users)
    services.tournament_start(tournament_id=tournament.pk, by=users[0])
    game = _only_game(tournament)
    assert game_services.game_time_out(game_id=game.pk, now=timezone.now() + timedelta(days=30))
    game_services.game_resign(game=game, user=users[1])
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    table = current_round(detail(Clients(users)["p1"], tournament.pk))["tables"][0]
    assert table["games"][0]["places"] == [1, 2] and table["games"][0]["forfeited"] == ["p1"]
    assert table["winner"] == "p2" and table["decided_by"] == "forfeit"
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED and tournament.winner_id == users[1].pk


def test_a_shared_first_place_is_replayed_with_the_seats_swapped(transactional_db: None) -> None:
    users = rated_players(2)
    staff = make_player("mod")
    tournament = _create(users[0], format="knockout", seats=2)
    _enter(tournament, users)
    services.tournament_start(tournament_id=tournament.pk, by=users[0])
    game = _only_game(tournament)
    moderation_game_adjudicate(game_id=game.pk, by_user=staff, reason="Agreed draw", places=[1, 1])
    table = current_round(detail(Clients(users)["p1"], tournament.pk))["tables"][0]
    assert table["winner"] is None
    assert [g["players"] for g in table["games"]] == [["p1", "p2"], ["p2", "p1"]]


def test_two_forfeits_withdraw_a_swiss_player(transactional_db: None) -> None:
    """T-WITHDRAW-FORFEITS: p4 misses a deadline in each of the first two rounds
    (forfeit_after 1: the first forfeits); round 3 pairs the other three only."""
    users = rated_players(4)
    tournament = _create(users[0], seats=2, rounds=3, forfeit_after=1, vacation_allowed=False)
    _enter(tournament, users)
    services.tournament_start(tournament_id=tournament.pk, by=users[0])
    for number in (1, 2):
        for tournament_game in TournamentGame.objects.filter(table__round__tournament=tournament,
                                                             table__round__number=number):  # fmt: skip
            game = tournament_game.game
            names = set(game.seats.values_list("user__username", flat=True))
            if "p4" in names:
                game.refresh_from_db()
                if game.seats.get(index=game.to_move).user.username != "p4":
                    play_moves(game, 1)
                assert game_services.game_time_out(game_id=game.pk, now=timezone.now() + timedelta(days=30))
            else:
                other = sorted(names)[1]
                game_services.game_resign(game=game, user=game.seats.get(user__username=other).user)
    entry = Entry.objects.get(tournament=tournament, user=users[3])
    assert entry.status == Entry.Status.WITHDRAWN and entry.reason == Entry.Reason.FORFEITS
    round_3 = tournament.round_set.get(number=3)
    seated = {int(e) for t in round_3.tables.all() for e in t.entries} | {round_3.bye_id}
    assert entry.pk not in seated and len(seated) == 3


def test_a_player_with_a_running_game_is_not_replaced(transactional_db: None) -> None:
    users = rated_players(2)
    organiser, newcomer = make_player("olga"), make_player("nina")
    tournament = _create(organiser, seats=2, rounds=2)
    _enter(tournament, users)
    services.tournament_start(tournament_id=tournament.pk, by=organiser)
    entry = Entry.objects.get(tournament=tournament, user=users[0])
    with pytest.raises(errors.NotBetweenRounds) as refused:
        services.entry_replace(entry_id=entry.pk, user=newcomer, by=organiser, reason="Moved away")
    assert refused.value.fields["rule"] == "T-ADMIN-REPLACE"
    entry.refresh_from_db()
    assert entry.user_id == users[0].pk
    assert not ModerationEntry.objects.filter(action=ModerationEntry.Action.TOURNAMENT_REPLACED).exists()


def test_replacing_logs_and_hands_over_the_standing(transactional_db: None) -> None:
    users = rated_players(2)
    organiser, newcomer = make_player("olga"), make_player("nina")
    later = timezone.now() + timedelta(days=5)
    tournament = _create(organiser, seats=2, rounds=2,
                         round_starts=[(timezone.now() + timedelta(hours=1)).isoformat(), later.isoformat()])  # fmt: skip
    _enter(tournament, users)
    services.tournament_start(tournament_id=tournament.pk, by=organiser)
    game_services.game_resign(game=_only_game(tournament), user=users[1])  # p1 wins round 1; round 2 waits
    entry = Entry.objects.get(tournament=tournament, user=users[0])
    services.entry_replace(entry_id=entry.pk, user=newcomer, by=organiser, reason="Moved away")
    logged = ModerationEntry.objects.get(action=ModerationEntry.Action.TOURNAMENT_REPLACED)
    assert logged.target_user_id == users[0].pk and logged.details["new_user_id"] == newcomer.pk
    standings = {row["username"]: row["points"] for row in detail(Clients([organiser])["olga"], tournament.pk)["standings"]}
    assert standings == {"nina": 3.0, "p2": 1.0}
    services.tournaments_start_due(now=later)
    round_2 = tournament.round_set.get(number=2)
    (game,) = [g.game for g in TournamentGame.objects.filter(table__round=round_2)]
    assert set(game.seats.values_list("user__username", flat=True)) == {"nina", "p2"}


def test_the_seed_never_leaves_the_server(transactional_db: None) -> None:
    users = rated_players(3)
    clients = Clients(users)
    tournament = _create(users[0], seats=2, rounds=2)
    _enter(tournament, users)
    services.tournament_start(tournament_id=tournament.pk, by=users[0])
    tournament.refresh_from_db()
    for response in (
        clients["p1"].get(f"/api/v1/tournaments/{tournament.pk}/"),
        clients["p2"].get("/api/v1/tournaments/"),
    ):
        text = response.content.decode()
        assert response.status_code == 200
        assert tournament.seed not in text and str(tournament.seed_int()) not in text
        assert "seed" not in json.dumps(response.json()).replace("seed_", "")


def test_a_swiss_whose_next_round_needs_a_second_bye_ends_with_the_rounds_played(transactional_db: None) -> None:
    """T-SWISS-BYE: three players at two-seat tables have each had the bye after
    three rounds; a fourth cannot be paired, so the tournament ends there."""
    users = rated_players(3)
    tournament = _create(users[0], seats=2, rounds=4)
    _enter(tournament, users)
    services.tournament_start(tournament_id=tournament.pk, by=users[0])
    for number in (1, 2, 3):
        game = _only_game(tournament, number)
        loser = game.seats.order_by("-join_position").first()
        assert loser is not None
        game_services.game_resign(game=game, user=loser.user)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.round_set.count() == 3
    assert sorted(r.bye.user.username for r in tournament.round_set.all() if r.bye) == ["p1", "p2", "p3"]


def test_a_tournaments_page_of_the_api_costs_the_same_queries_however_many_games_it_shows(
    transactional_db: None,
) -> None:
    """The rounds, tables, games, seats and who only the bot moved for are read in
    a bounded number of queries: each round played adds four or five games, and
    none of them a query (the state of the tournament may add one: a bye to
    name, a winner to read)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tests.tournaments.news_helpers import round_played

    users = rated_players(9)
    tournament = _create(users[0], seats=2, rounds=3)
    _enter(tournament, users)
    services.tournament_start(tournament_id=tournament.pk, by=users[0])
    client = Clients(users)["p1"]
    counts = []
    for number in (1, 2, 3):
        round_played(tournament, number)
        with CaptureQueriesContext(connection) as queries:
            assert client.get(f"/api/v1/tournaments/{tournament.pk}/").status_code == 200
        counts.append(len(queries))
    assert tournament.round_set.count() == 3
    assert max(counts) - min(counts) <= 1, counts


def test_one_tournament_that_fails_to_start_does_not_stop_the_sweep(
    transactional_db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    users = rated_players(2)
    soon = timezone.now() + timedelta(hours=1)
    broken, fine = _create(users[0], starts_at=soon, name="Broken"), _create(users[0], starts_at=soon, name="Fine")
    _enter(broken, users)
    _enter(fine, users)
    real = services.tournament_start

    def start(*, tournament_id: int, **kwargs: Any) -> Tournament:
        if tournament_id == broken.pk:
            raise RuntimeError("a fault")
        return real(tournament_id=tournament_id, **kwargs)

    monkeypatch.setattr(services, "tournament_start", start)
    assert services.tournaments_start_due(now=soon) == 1
    fine.refresh_from_db(), broken.refresh_from_db()
    assert fine.status == Tournament.Status.RUNNING and broken.status == Tournament.Status.OPEN


def test_a_swiss_is_won_by_the_best_placed_player_still_in_it(transactional_db: None) -> None:
    """p1 wins both rounds, then withdraws before the last game ends: they still
    top the standings on points, but the tournament is p2's."""
    from tests.tournaments.news_helpers import game_of

    p1, p2, p3, p4 = users = rated_players(4)
    tournament = _create(p1, seats=2, rounds=2)
    _enter(tournament, users)
    services.tournament_start(tournament_id=tournament.pk, by=p1)
    game_services.game_resign(game=game_of(tournament, 1, p1), user=p2)
    game_services.game_resign(game=game_of(tournament, 1, p3), user=p4)
    game_services.game_resign(game=game_of(tournament, 2, p1), user=p3)  # p1 v p3, the two winners
    services.tournament_leave(tournament_id=tournament.pk, user=p1)
    game_services.game_resign(game=game_of(tournament, 2, p2), user=p4)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    top = detail(Clients(users)["p2"], tournament.pk)["standings"][0]
    assert top["username"] == "p1" and top["status"] == "withdrawn"
    assert tournament.winner_id == p2.pk
