"""A league admin moderates the players of their own leagues from the memberships
list: warns them, suspends them from the league and lifts it, each with a reason,
logged and emailed. A suspension from a league stops joining it and new pairings
in it; the games already running go on; the account and other leagues are not
touched, and a site-wide suspension stays with the staff.

Personas (conftest.py): mallory administers "Mallory's League", where alice, bob
and carol play; erin administers "Another League", where dave plays (and alice too).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.test import Client

from games.models import Game, ModerationEntry, Seat
from leagues import selectors, services
from leagues.errors import NotASeasonPlayer
from leagues.models import League, LeagueModerationEntry, Membership
from leagues.services import league_admins_group
from tests.games.game_helpers import client_for, make_player
from tests.leagues.conftest import add_members, make_league, make_season

pytestmark = pytest.mark.django_db

MEMBERSHIPS = "/admin/leagues/membership/"


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def erin_admin(erin: Any) -> Any:
    erin.is_staff = True
    erin.save()
    erin.groups.add(league_admins_group())
    return erin


@pytest.fixture
def leagues(mallory: Any, erin_admin: Any, players: list[Any]) -> tuple[League, League]:
    alice, bob, carol, dave = players
    mine = make_league("Mallory's League")
    mine.admins.add(mallory)
    theirs = make_league("Another League")
    theirs.admins.add(erin_admin)
    add_members(mine, [alice, bob, carol])
    add_members(theirs, [dave, alice])
    return mine, theirs


def membership(league: League, user: Any) -> Membership:
    return Membership.objects.get(league=league, user=user)


def act(client: Client, action: str, memberships: list[Membership], reason: str = "Abusive chat") -> Any:
    return client.post(
        MEMBERSHIPS,
        {"action": action, "_selected_action": [m.pk for m in memberships], "post": "yes", "reason": reason},
    )


def test_suspending_asks_for_a_reason_on_a_confirmation_page_first(
    leagues: tuple[League, League], mallory: Any, players: list[Any]
) -> None:
    mine, _ = leagues
    alice = players[0]
    page = _client(mallory).post(
        MEMBERSHIPS, {"action": "suspend_members", "_selected_action": [membership(mine, alice).pk]}
    )
    assert page.status_code == 200 and 'name="reason"' in page.content.decode()
    empty = act(_client(mallory), "suspend_members", [membership(mine, alice)], reason="")
    assert empty.status_code == 200  # the form again: a reason is required
    assert membership(mine, alice).suspended_at is None and not ModerationEntry.objects.exists()


def test_a_league_admin_suspends_a_player_from_their_league_logged_and_emailed(
    leagues: tuple[League, League], mallory: Any, players: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    mine, _ = leagues
    alice = players[0]
    with django_capture_on_commit_callbacks(execute=True):
        answer = act(_client(mallory), "suspend_members", [membership(mine, alice)])
    assert answer.status_code == 302
    suspended = membership(mine, alice)
    assert suspended.suspended_at is not None and suspended.suspended_by == mallory
    entry = ModerationEntry.objects.get()
    assert (entry.action, entry.user_id, entry.target_user_id, entry.reason) == (
        "league_suspended", mallory.pk, alice.pk, "Abusive chat"
    )
    assert entry.details == {"league_id": mine.pk, "league": "Mallory's League"}
    told = [m for m in mail.outbox if alice.email in m.to]
    assert [m.subject for m in told] == ["You are suspended from Mallory's League"]
    assert "Abusive chat" in told[0].body and "Your account and your other games and leagues are not affected" in told[0].body
    listed = _client(mallory).get(f"{MEMBERSHIPS}?suspended=yes").content.decode()
    assert listed.count('class="field-suspended"') == 1 and ">alice<" in listed


def test_a_suspended_player_cannot_join_the_league_again_but_keeps_their_account_and_other_leagues(
    leagues: tuple[League, League], mallory: Any, players: list[Any]
) -> None:
    mine, theirs = leagues
    alice = players[0]
    services.member_suspend(membership_id=membership(mine, alice).pk, by=mallory, reason="Abusive chat")
    # Leaving does not end it.
    services.league_leave_request(league=mine, user=alice)
    services.membership_approve(membership_id=membership(mine, alice).pk, by=mallory)
    client = client_for(alice)
    refused = client.post(f"/api/v1/leagues/{mine.pk}/join/")
    assert refused.status_code == 403 and refused.json()["code"] == "league_suspended"
    assert client.get("/api/v1/me/").status_code == 200
    assert client.post(f"/api/v1/leagues/{theirs.pk}/leave/").status_code == 202
    # Lifted: they may ask again.
    services.member_unsuspend(membership_id=membership(mine, alice).pk, by=mallory, reason="Apologised")
    assert client.post(f"/api/v1/leagues/{mine.pk}/join/").status_code == 202


def test_a_suspended_player_gets_no_new_pairings_and_their_running_games_go_on(
    leagues: tuple[League, League], mallory: Any, players: list[Any], erin: Any
) -> None:
    mine, _ = leagues
    alice, bob, carol, _dave = players
    services.season_start(season_id=make_season(mine, 1).pk)
    running = list(Game.objects.filter(league_game__season__league=mine, seats__user=alice))
    assert running and all(game.status == Game.Status.ACTIVE for game in running)

    services.member_suspend(membership_id=membership(mine, alice).pk, by=mallory, reason="Abusive chat")

    # Not in a new season's tables,
    services.season_start(season_id=make_season(mine, 2).pk)
    assert not Seat.objects.filter(game__league_game__season__number=2, user=alice).exists()
    # nor a late joiner's opponent,
    season = mine.seasons.get(number=1)
    late = services.season_add_late_joiner(season=season, user=erin)
    assert late and not any(Seat.objects.filter(game=p.game, user=alice).exists() for p in late)
    # nor anyone's replacement.
    assert alice not in selectors.season_active_players(season=season)
    pairing = season.league_games.exclude(game__seats__user=alice).first()
    assert pairing is not None
    with pytest.raises(NotASeasonPlayer, match="suspended"):
        services.pairing_replace_player(
            league_game_id=pairing.pk, seat_index=0, new_user=alice, by_user=mallory, reason="swap"
        )
    # The games already running go on, and she may still play them.
    for game in running:
        game.refresh_from_db()
        assert game.status == Game.Status.ACTIVE
        assert Seat.objects.filter(game=game, user=alice, resigned=False).exists()


def test_another_leagues_admin_cannot_suspend_or_warn_this_leagues_players(
    leagues: tuple[League, League], erin_admin: Any, players: list[Any]
) -> None:
    mine, _ = leagues
    alice = players[0]
    client = _client(erin_admin)
    for action in ("suspend_members", "warn_members", "unsuspend_members"):
        assert act(client, action, [membership(mine, alice)]).status_code == 403
    assert membership(mine, alice).suspended_at is None and not ModerationEntry.objects.exists()


def test_a_league_admins_warning_names_the_league_and_only_that_leagues_log_shows_it(
    leagues: tuple[League, League], mallory: Any, erin_admin: Any, players: list[Any],
    django_capture_on_commit_callbacks: Any,
) -> None:
    mine, theirs = leagues
    alice = players[0]  # a member of both leagues
    with django_capture_on_commit_callbacks(execute=True):
        assert act(_client(mallory), "warn_members", [membership(mine, alice)], "Late every turn").status_code == 302
    entry = ModerationEntry.objects.get(action="player_warned")
    assert entry.details["league_id"] == mine.pk
    told = [m for m in mail.outbox if alice.email in m.to]
    assert [m.subject for m in told] == ["A warning from the admins of Mallory's League"]
    assert "An admin of the league Mallory's League warned you" in told[0].body
    log = "/admin/leagues/leaguemoderationentry/"
    assert "Late every turn" in _client(mallory).get(log).content.decode()
    assert "Late every turn" not in _client(erin_admin).get(log).content.decode()
    assert LeagueModerationEntry.objects.count() == 1


def test_a_site_wide_suspension_is_not_a_league_admins_to_give(leagues: tuple[League, League], mallory: Any) -> None:
    client = _client(mallory)
    assert client.get("/admin/accounts/player/").status_code == 403
    assert client.get("/admin/auth/user/").status_code == 403


def test_the_league_admins_filters_list_only_their_leagues_and_their_players(
    leagues: tuple[League, League], mallory: Any, erin_admin: Any, players: list[Any]
) -> None:
    mine, _ = leagues
    third = make_league("Third League")
    third.admins.add(erin_admin)
    add_members(third, [players[3], make_player("frank")])
    services.season_start(season_id=make_season(mine).pk)
    services.season_start(season_id=make_season(third).pk)
    client = _client(mallory)
    for path in (MEMBERSHIPS, "/admin/leagues/season/", "/admin/leagues/seasonentry/", "/admin/leagues/leaguegame/"):
        html = client.get(path).content.decode()
        assert "Mallory&#x27;s League" in html, path
        assert "Another League" not in html and "Third League" not in html, path

    def to_move(league: League) -> set[str]:
        seats = Seat.objects.filter(game__league_game__season__league=league).select_related("user", "game")
        return {seat.user.username for seat in seats if seat.index == seat.game.to_move}

    waiting = client.get("/admin/leagues/leaguescopedgame/").content.decode()
    block = waiting[waiting.index("By waiting on") :]
    block = block[: block.index("</ul>")]
    assert to_move(mine) and to_move(third)
    for name in to_move(mine):
        assert f">{name}<" in block
    for name in to_move(third):
        assert f">{name}<" not in block
