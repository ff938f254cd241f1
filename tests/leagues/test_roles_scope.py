"""Roles in the admin: a league admin (staff, in "League admins", named an admin
of a league) moderates the games of their own leagues and reads their moderation
log, with no site-wide games permission; another league's game is out of reach
by every URL, and the site-wide game admin and log refuse them.

Personas (conftest.py): mallory administers "Mallory's League" (alice and bob
play in it); carol and dave play in "Another League"; erin is a staff user named
admin of Mallory's League but not in the group.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission
from django.test import Client

from games import moderation
from games.models import Game, ModerationEntry
from leagues import services
from leagues.models import League
from leagues.services import LEAGUE_ADMINS_GROUP, league_admins_group
from tests.leagues.conftest import add_members, make_league, make_season

GAMES = "/admin/leagues/leaguescopedgame/"
LOG = "/admin/leagues/leaguemoderationentry/"


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def leagues(mallory: Any, players: list[Any]) -> tuple[League, League]:
    mine = make_league("Mallory's League", vacation_allowed=False, pauses_allowed=False)
    mine.admins.add(mallory)
    theirs = make_league("Another League")
    add_members(mine, players[:2])
    add_members(theirs, players[2:])
    services.season_start(season_id=make_season(mine).pk)
    services.season_start(season_id=make_season(theirs).pk)
    return mine, theirs


def _game_of(league: League) -> Game:
    return Game.objects.get(league_game__season__league=league)


def _extend(client: Client, game: Game) -> Any:
    return client.post(
        GAMES,
        {
            "action": "moderate_extend_deadline",
            "_selected_action": [game.pk],
            "post": "yes",
            "hours": "24",
            "reason": "Power cut",
        },
    )


def test_the_league_admins_group_holds_only_leagues_and_their_tournaments_permissions(db: None) -> None:
    from tournaments.models import Tournament

    group = Group.objects.get(name=LEAGUE_ADMINS_GROUP)
    apps = set(group.permissions.values_list("content_type__app_label", flat=True))
    codenames = set(group.permissions.values_list("codename", flat=True))
    # Tournaments declare what a league admin holds for their league's tournaments.
    assert apps == {"leagues", "tournaments"}
    tournaments = set(group.permissions.filter(content_type__app_label="tournaments").values_list("codename", flat=True))
    assert tournaments == set(Tournament.league_admin_permissions)
    assert {"view_leaguescopedgame", "view_leaguemoderationentry"} <= codenames
    assert "moderate_game" not in codenames


def test_a_games_permission_given_to_the_group_is_taken_back_after_migrate(db: None) -> None:
    group = league_admins_group()
    group.permissions.add(Permission.objects.get(codename="moderate_game", content_type__app_label="games"))

    league_admins_group()

    assert not group.permissions.filter(content_type__app_label="games").exists()


def test_a_league_admin_gets_nothing_from_the_site_wide_game_admin(
    mallory: Any, leagues: tuple[League, League]
) -> None:
    mine, _ = leagues
    game = _game_of(mine)
    client = _client(mallory)

    assert client.get("/admin/games/game/").status_code == 403
    assert client.get(f"/admin/games/game/{game.pk}/change/").status_code == 403
    assert client.get(f"/admin/games/game/{game.pk}/board/0/").status_code == 403
    response = client.post(
        "/admin/games/game/",
        {"action": "moderate_abort", "_selected_action": [game.pk], "post": "yes", "reason": "test"},
    )
    assert response.status_code == 403
    assert client.get("/admin/games/moderationentry/").status_code == 403
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and not ModerationEntry.objects.exists()


def test_a_league_admin_opens_moderates_and_views_the_boards_of_their_own_games(
    mallory: Any, leagues: tuple[League, League]
) -> None:
    mine, theirs = leagues
    game = _game_of(mine)
    client = _client(mallory)

    listed = client.get(GAMES)
    assert listed.status_code == 200
    assert game.pk in listed.content.decode() and _game_of(theirs).pk not in listed.content.decode()
    assert client.get(f"{GAMES}{game.pk}/change/").status_code == 200
    assert client.get(f"{GAMES}{game.pk}/board/0/").status_code == 200
    deadline = game.deadline_at
    assert deadline is not None
    assert _extend(client, game).status_code == 302

    game.refresh_from_db()
    assert game.deadline_at is not None and game.deadline_at > deadline
    assert set(ModerationEntry.objects.values_list("action", flat=True)) == {"board_viewed", "deadline_extended"}


def test_a_league_admin_reaches_no_game_of_another_league_by_url(
    mallory: Any, leagues: tuple[League, League]
) -> None:
    _, theirs = leagues
    game = _game_of(theirs)
    deadline = game.deadline_at
    client = _client(mallory)

    assert client.get(f"{GAMES}{game.pk}/change/").status_code == 404
    assert client.get(f"{GAMES}{game.pk}/history/").status_code == 404
    assert client.get(f"{GAMES}{game.pk}/board/0/").status_code == 404
    assert _extend(client, game).status_code == 403
    assert _extend(client, game).status_code == 403
    mixed = client.post(
        GAMES,
        {"action": "moderate_abort", "_selected_action": [_game_of(leagues[0]).pk, game.pk], "post": "yes", "reason": "x"},
    )
    assert mixed.status_code == 403

    game.refresh_from_db()
    assert game.deadline_at == deadline and game.status == Game.Status.ACTIVE
    assert _game_of(leagues[0]).status == Game.Status.ACTIVE
    assert not ModerationEntry.objects.exists()


def test_a_staff_user_named_league_admin_but_not_in_the_group_moderates_nothing(
    erin: Any, leagues: tuple[League, League]
) -> None:
    mine, _ = leagues
    erin.is_staff = True
    erin.save()
    mine.admins.add(erin)
    game = _game_of(mine)
    client = _client(erin)

    assert client.get(GAMES).status_code == 403
    assert client.get(f"{GAMES}{game.pk}/board/0/").status_code in (403, 404)
    assert _extend(client, game).status_code == 403
    assert client.get(LOG).status_code == 403


def test_the_league_moderation_log_lists_only_the_entries_about_their_leagues(
    mallory: Any, players: list[Any], leagues: tuple[League, League]
) -> None:
    mine, theirs = leagues
    alice, _, carol, _ = players
    moderation.moderation_deadline_extend(game_id=_game_of(mine).pk, by_user=mallory, reason="Mine: a storm", hours=2)
    moderation.moderation_deadline_extend(
        game_id=_game_of(theirs).pk, by_user=mallory, reason="Theirs: a flood", hours=2
    )
    moderation.moderation_player_warn(user=alice, by_user=mallory, reason="Member: rude chat")
    moderation.moderation_player_warn(user=carol, by_user=mallory, reason="Other member: spam")
    # An entry about the other league's game that names one of mallory's members.
    moderation.moderation_entry_record(
        by_user=mallory, action="seat_replaced", reason="Theirs: seat handed over",
        game_id=_game_of(theirs).pk, target_user_id=alice.pk,
    )
    client = _client(mallory)

    page = client.get(LOG).content.decode()
    assert "Mine: a storm" in page and "Member: rude chat" in page
    assert "Theirs" not in page and "Other member" not in page
    found = client.get(LOG, {"q": "storm"}).content.decode()
    assert "Mine: a storm" in found and "rude chat" not in found
    theirs_entry = ModerationEntry.objects.get(reason="Theirs: a flood")
    assert client.get(f"{LOG}{theirs_entry.pk}/change/").status_code in (302, 404)
    assert "Theirs" not in client.get(f"{LOG}{theirs_entry.pk}/change/", follow=True).content.decode()


def test_the_league_moderation_log_names_the_moderator_and_the_player(
    mallory: Any, players: list[Any], leagues: tuple[League, League]
) -> None:
    alice = players[0]
    moderation.moderation_player_warn(user=alice, by_user=mallory, reason="Member: rude chat")
    entry = ModerationEntry.objects.get()
    client = _client(mallory)

    listing = client.get(LOG).content.decode()
    page = client.get(f"{LOG}{entry.pk}/change/").content.decode()

    for html in (listing, page):
        assert f"Mallory (mallory, user {mallory.pk})" in html
        assert f"Alice (alice, user {alice.pk})" in html


def test_the_league_moderation_log_is_read_only_even_for_a_superuser(
    mallory: Any, leagues: tuple[League, League], django_user_model: Any
) -> None:
    mine, _ = leagues
    moderation.moderation_deadline_extend(game_id=_game_of(mine).pk, by_user=mallory, reason="A storm", hours=2)
    entry = ModerationEntry.objects.get()
    root = django_user_model.objects.create_superuser("root", "root@example.com", "a long root password")

    for user in (mallory, root):
        client = _client(user)
        assert client.get(f"{LOG}{entry.pk}/change/").status_code == 200
        assert client.get(f"{LOG}add/").status_code == 403
        assert client.post(f"{LOG}{entry.pk}/change/", {"reason": "rewritten"}).status_code == 403
        assert client.get(f"{LOG}{entry.pk}/delete/").status_code == 403
    assert ModerationEntry.objects.get().reason == "A storm"


def test_a_season_gives_its_games_the_leagues_rules_on_vacation_and_pauses(
    leagues: tuple[League, League],
) -> None:
    mine, theirs = leagues
    assert (_game_of(mine).vacation_allowed, _game_of(mine).pauses_allowed) == (False, False)
    assert (_game_of(theirs).vacation_allowed, _game_of(theirs).pauses_allowed) == (True, True)
