"""Editing a season's pairings: a league admin changes a player in a pairing or
cancels pairings, from the league games admin, with a reason; both go through
games.moderation, so each is logged and written to the outbox.

Personas (conftest.py): mallory administers "Mallory's League", a two-player
league where alice, bob and carol play a round robin; dave and erin play in
"Another League", which mallory does not administer.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from core.errors import InvalidInput
from games.models import Game, GameEvent, ModerationEntry, Seat
from leagues import selectors, services
from leagues.errors import NotASeasonPlayer, PairingNotEditable
from leagues.models import LeagueGame, Season
from tests.games.game_helpers import make_player
from tests.leagues.builders import finish
from tests.leagues.conftest import add_members, make_league, make_season

PAIRINGS = "/admin/leagues/leaguegame/"


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def carol(players: list[Any]) -> Any:
    return players[2]


@pytest.fixture
def seasons(mallory: Any, players: list[Any], erin: Any) -> tuple[Season, Season]:
    alice, bob, carol, dave = players
    mine = make_league("Mallory's League")
    mine.admins.add(mallory)
    theirs = make_league("Another League")
    add_members(mine, [alice, bob, carol])
    add_members(theirs, [dave, erin])
    my_season, their_season = make_season(mine), make_season(theirs)
    services.season_start(season_id=my_season.pk)
    services.season_start(season_id=their_season.pk)
    return my_season, their_season


def _pairing_of(season: Season, *users: Any) -> LeagueGame:
    pairings = LeagueGame.objects.filter(season=season).select_related("game")
    for user in users:
        pairings = pairings.filter(game__seats__user=user)
    pairing = pairings.first()
    assert pairing is not None
    return pairing


def _seat_of(pairing: LeagueGame, user: Any) -> int:
    index = Seat.objects.get(game_id=pairing.game_id, user=user).index
    assert index is not None
    return index


def _players_of(pairing: LeagueGame) -> set[str]:
    return set(Seat.objects.filter(game_id=pairing.game_id).values_list("user__username", flat=True))


def _replace(client: Client, pairing: LeagueGame, seat: int, new_user: Any, reason: str = "Bob is in hospital") -> Any:
    return client.post(
        PAIRINGS,
        {
            "action": "replace_player",
            "_selected_action": [pairing.pk],
            "post": "yes",
            "seat": str(seat),
            "new_user": str(new_user.pk),
            "reason": reason,
        },
    )


def _cancel(client: Client, *pairings: LeagueGame, reason: str = "Scheduled by mistake") -> Any:
    return client.post(
        PAIRINGS,
        {
            "action": "cancel_pairings",
            "_selected_action": [p.pk for p in pairings],
            "post": "yes",
            "reason": reason,
        },
    )


# --- the services --------------------------------------------------------------------


def test_replacing_a_player_hands_the_seat_to_another_season_player_and_logs_it(
    mallory: Any, players: list[Any], seasons: tuple[Season, Season]
) -> None:
    alice, bob, carol, _ = players
    pairing = _pairing_of(seasons[0], alice, bob)
    seat = _seat_of(pairing, bob)

    services.pairing_replace_player(
        league_game_id=pairing.pk, seat_index=seat, new_user=carol, by_user=mallory, reason="Bob is in hospital"
    )

    assert _players_of(pairing) == {"alice", "carol"}
    entry = ModerationEntry.objects.get(game_id=pairing.game_id)
    assert (entry.action, entry.user_id, entry.target_user_id, entry.reason) == (
        ModerationEntry.Action.SEAT_REPLACED, mallory.pk, bob.pk, "Bob is in hospital"
    )
    assert entry.details["new_user_id"] == carol.pk
    assert GameEvent.objects.filter(game_id=pairing.game_id, kind=GameEvent.Kind.SEAT_REPLACED).exists()


def test_a_player_outside_the_season_cannot_be_put_in_a_pairing(
    mallory: Any, players: list[Any], seasons: tuple[Season, Season], erin: Any
) -> None:
    alice, bob, _, _ = players
    pairing = _pairing_of(seasons[0], alice, bob)

    with pytest.raises(NotASeasonPlayer, match="erin does not play in"):
        services.pairing_replace_player(
            league_game_id=pairing.pk, seat_index=_seat_of(pairing, bob), new_user=erin, by_user=mallory, reason="r"
        )

    assert _players_of(pairing) == {"alice", "bob"} and not ModerationEntry.objects.exists()


def test_a_player_who_left_the_season_cannot_be_put_in_a_pairing(
    mallory: Any, players: list[Any], seasons: tuple[Season, Season]
) -> None:
    alice, bob, carol, _ = players
    services.season_drop_player(season=seasons[0], user=carol)
    pairing = _pairing_of(seasons[0], alice, bob)

    with pytest.raises(NotASeasonPlayer):
        services.pairing_replace_player(
            league_game_id=pairing.pk, seat_index=_seat_of(pairing, bob), new_user=carol, by_user=mallory, reason="r"
        )

    assert _players_of(pairing) == {"alice", "bob"}


def test_a_player_already_at_the_table_cannot_take_a_second_seat(
    mallory: Any, players: list[Any], seasons: tuple[Season, Season]
) -> None:
    alice, bob, _, _ = players
    pairing = _pairing_of(seasons[0], alice, bob)

    with pytest.raises(NotASeasonPlayer, match="alice already has a seat"):
        services.pairing_replace_player(
            league_game_id=pairing.pk, seat_index=_seat_of(pairing, bob), new_user=alice, by_user=mallory, reason="r"
        )

    assert _players_of(pairing) == {"alice", "bob"}


def test_a_finished_or_cancelled_pairing_cannot_be_edited(
    mallory: Any, players: list[Any], seasons: tuple[Season, Season]
) -> None:
    alice, bob, carol, _ = players
    finished = _pairing_of(seasons[0], alice, bob)
    finish(finished.game, {alice: 1, bob: 2})
    cancelled = _pairing_of(seasons[0], bob, carol)
    services.pairing_cancel(league_game_id=cancelled.pk, by_user=mallory, reason="Scheduled by mistake")

    with pytest.raises(PairingNotEditable, match="already finished"):
        services.pairing_replace_player(
            league_game_id=finished.pk, seat_index=_seat_of(finished, bob), new_user=carol, by_user=mallory, reason="r"
        )
    with pytest.raises(PairingNotEditable, match="already aborted"):
        services.pairing_cancel(league_game_id=cancelled.pk, by_user=mallory, reason="again")

    assert ModerationEntry.objects.count() == 1


def test_a_pairing_edit_without_a_reason_is_refused_and_changes_nothing(
    mallory: Any, players: list[Any], seasons: tuple[Season, Season]
) -> None:
    alice, bob, carol, _ = players
    pairing = _pairing_of(seasons[0], alice, bob)

    with pytest.raises(InvalidInput):
        services.pairing_cancel(league_game_id=pairing.pk, by_user=mallory, reason="   ")
    with pytest.raises(InvalidInput):
        services.pairing_replace_player(
            league_game_id=pairing.pk, seat_index=_seat_of(pairing, bob), new_user=carol, by_user=mallory, reason=""
        )

    pairing.game.refresh_from_db()
    assert pairing.game.status == Game.Status.ACTIVE and _players_of(pairing) == {"alice", "bob"}
    assert not ModerationEntry.objects.exists()


def test_the_standings_ignore_a_cancelled_pairing(
    mallory: Any, players: list[Any], seasons: tuple[Season, Season]
) -> None:
    alice, bob, carol, _ = players
    finish(_pairing_of(seasons[0], alice, bob).game, {alice: 1, bob: 2})
    cancelled = _pairing_of(seasons[0], alice, carol)

    services.pairing_cancel(league_game_id=cancelled.pk, by_user=mallory, reason="Scheduled by mistake")

    rows = {row.username: row for row in selectors.season_standings(season=seasons[0])}
    assert (rows["alice"].played, rows["alice"].wins) == (1, 1)
    assert (rows["carol"].played, rows["carol"].points) == (0, 0)
    cancelled.game.refresh_from_db()
    assert cancelled.game.status == Game.Status.ABORTED


# --- the admin actions -------------------------------------------------------------------


def test_the_change_player_page_offers_the_seats_and_only_the_seasons_players(
    mallory: Any, players: list[Any], seasons: tuple[Season, Season]
) -> None:
    alice, bob, _, _ = players
    pairing = _pairing_of(seasons[0], alice, bob)

    page = _client(mallory).post(PAIRINGS, {"action": "replace_player", "_selected_action": [pairing.pk]})

    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="reason"' in html and 'name="seat"' in html
    assert ">carol<" in html and ">dave<" not in html and ">erin<" not in html


def test_a_league_admin_changes_a_player_in_their_own_pairing(
    mallory: Any, players: list[Any], seasons: tuple[Season, Season]
) -> None:
    alice, bob, carol, _ = players
    pairing = _pairing_of(seasons[0], alice, bob)

    response = _replace(_client(mallory), pairing, _seat_of(pairing, bob), carol)

    assert response.status_code == 302
    assert _players_of(pairing) == {"alice", "carol"}
    entry = ModerationEntry.objects.get()
    assert (entry.action, entry.user_id, entry.reason) == (
        ModerationEntry.Action.SEAT_REPLACED, mallory.pk, "Bob is in hospital"
    )


def test_the_change_player_action_without_a_reason_shows_the_page_again_and_changes_nothing(
    mallory: Any, players: list[Any], seasons: tuple[Season, Season]
) -> None:
    alice, bob, carol, _ = players
    pairing = _pairing_of(seasons[0], alice, bob)

    response = _replace(_client(mallory), pairing, _seat_of(pairing, bob), carol, reason="  ")

    assert response.status_code == 200 and "This field is required" in response.content.decode()
    assert _players_of(pairing) == {"alice", "bob"} and not ModerationEntry.objects.exists()


def test_a_non_member_cannot_be_chosen_in_the_change_player_action(
    mallory: Any, players: list[Any], seasons: tuple[Season, Season], erin: Any
) -> None:
    alice, bob, _, _ = players
    pairing = _pairing_of(seasons[0], alice, bob)

    response = _replace(_client(mallory), pairing, _seat_of(pairing, bob), erin)

    assert response.status_code == 200 and "Select a valid choice" in response.content.decode()
    assert _players_of(pairing) == {"alice", "bob"} and not ModerationEntry.objects.exists()


def test_the_change_player_action_takes_one_pairing_at_a_time(
    mallory: Any, players: list[Any], seasons: tuple[Season, Season]
) -> None:
    pairings = list(LeagueGame.objects.filter(season=seasons[0])[:2])

    response = _client(mallory).post(
        PAIRINGS,
        {"action": "replace_player", "_selected_action": [p.pk for p in pairings], "post": "yes",
         "seat": "0", "new_user": str(players[2].pk), "reason": "r"},
        follow=True,
    )

    assert "Choose exactly one" in response.content.decode()
    assert not ModerationEntry.objects.exists()


def test_a_league_admin_cancels_their_pairings_with_a_reason(
    mallory: Any, players: list[Any], seasons: tuple[Season, Season]
) -> None:
    alice, bob, carol, _ = players
    first, second = _pairing_of(seasons[0], alice, bob), _pairing_of(seasons[0], bob, carol)

    response = _cancel(_client(mallory), first, second)

    assert response.status_code == 302
    statuses = set(Game.objects.filter(pk__in=[first.game_id, second.game_id]).values_list("status", flat=True))
    assert statuses == {Game.Status.ABORTED}
    entries = ModerationEntry.objects.filter(action=ModerationEntry.Action.GAME_ABORTED)
    assert set(entries.values_list("game_id", flat=True)) == {first.game_id, second.game_id}
    assert set(entries.values_list("reason", flat=True)) == {"Scheduled by mistake"}
    assert _pairing_of(seasons[0], alice, carol).game.status == Game.Status.ACTIVE


def test_the_cancel_action_without_a_reason_changes_nothing(
    mallory: Any, players: list[Any], seasons: tuple[Season, Season]
) -> None:
    pairing = _pairing_of(seasons[0], players[0], players[1])

    response = _cancel(_client(mallory), pairing, reason="")

    assert response.status_code == 200 and "This field is required" in response.content.decode()
    pairing.game.refresh_from_db()
    assert pairing.game.status == Game.Status.ACTIVE and not ModerationEntry.objects.exists()


def test_a_league_admin_cannot_edit_another_leagues_pairing(
    mallory: Any, players: list[Any], seasons: tuple[Season, Season], erin: Any
) -> None:
    _, _, _, dave = players
    theirs = _pairing_of(seasons[1], dave, erin)
    client = _client(mallory)

    assert str(theirs) not in client.get(PAIRINGS).content.decode()
    assert _cancel(client, theirs).status_code == 403
    assert _replace(client, theirs, _seat_of(theirs, erin), dave).status_code == 403
    # Mixed in with one of their own: still refused as a whole.
    assert _cancel(client, _pairing_of(seasons[0], players[0]), theirs).status_code == 403

    assert set(Game.objects.values_list("status", flat=True)) == {Game.Status.ACTIVE}
    assert not ModerationEntry.objects.exists()


def test_a_staff_user_who_administers_no_league_gets_no_pairing_actions(
    players: list[Any], seasons: tuple[Season, Season]
) -> None:
    stan = make_player("stan")
    stan.is_staff = True
    stan.save()

    assert _cancel(_client(stan), _pairing_of(seasons[0], players[0])).status_code == 403
    assert set(Game.objects.values_list("status", flat=True)) == {Game.Status.ACTIVE}


def test_a_superuser_cancels_a_pairing_of_any_league(
    django_user_model: Any, players: list[Any], seasons: tuple[Season, Season], erin: Any
) -> None:
    root = django_user_model.objects.create_superuser("root", "root@example.com", "a long root password")
    theirs = _pairing_of(seasons[1], erin)

    assert _cancel(_client(root), theirs).status_code == 302

    theirs.game.refresh_from_db()
    assert theirs.game.status == Game.Status.ABORTED
    assert ModerationEntry.objects.get().user_id == root.pk

