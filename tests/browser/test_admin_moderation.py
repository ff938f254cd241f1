"""A league admin moderates in the Django admin with a real browser: logs in,
finds the overdue game of their league with the filter, extends its deadline
with a reason through the action's confirmation page, and reads it in their
league's moderation log.

Personas: alice and bob play the overdue game, carol and dan a game on time;
lena is a staff user in the "League admins" group (leagues permissions only: no
site-wide games permission) and an admin of the league both games belong to.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import time_machine
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.utils import timezone

from accounts.services import player_create
from games import services
from games.models import Game, GameEvent, ModerationEntry
from leagues.models import League, LeagueGame, Season
from leagues.services import league_admins_group

PASSWORD = "a long league admin password"


def two_player_game(first: Any, second: Any) -> Game:
    game = services.game_create(creator=first, seats=2, invited=[second], move_timeout_hours=24)
    services.seat_join(game=game, user=second)
    game.refresh_from_db()
    return game


def league_admin(username: str) -> Any:
    user = get_user_model().objects.create_user(username, f"{username}@example.com", PASSWORD, is_staff=True)
    group: Group = league_admins_group()
    user.groups.add(group)
    assert not user.has_perm("games.moderate_game")
    return user


def test_a_league_admin_extends_an_overdue_games_deadline_with_a_reason(
    live_server: Any, new_page: Any, screenshot: Any
) -> None:
    alice, bob, carol, dan = (player_create(username=n, email=f"{n}@example.com") for n in ("alice", "bob", "carol", "dan"))
    with time_machine.travel(timezone.now() - timedelta(days=3), tick=False):
        overdue = two_player_game(alice, bob)
    on_time = two_player_game(carol, dan)
    lena = league_admin("lena")
    league = League.objects.create(name="Tuesday league")
    league.admins.add(lena)
    season = Season.objects.create(league=league, number=1, starts_on=date.today(), ends_on=date.today())
    for game in (overdue, on_time):
        LeagueGame.objects.create(season=season, game=game, round=1)
    old_deadline = overdue.deadline_at
    assert old_deadline is not None and old_deadline < timezone.now()

    page = new_page()
    page.goto(f"{live_server.url}/admin/")
    page.fill("input[name=username]", "lena")
    page.fill("input[name=password]", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{live_server.url}/admin/")
    # The site-wide game admin is not offered: only the league-scoped one.
    assert page.get_by_role("link", name="Games", exact=True).count() == 0
    page.get_by_role("link", name="League games to moderate").first.click()
    page.wait_for_url("**/admin/leagues/leaguescopedgame/")
    page.get_by_role("link", name="Overdue: the deadline has passed").click()
    page.wait_for_url("**/admin/leagues/leaguescopedgame/?overdue=yes")
    page.wait_for_load_state()

    rows = page.locator("#result_list tbody tr")
    assert rows.count() == 1
    assert overdue.pk in rows.first.inner_text() and on_time.pk not in page.locator("#result_list").inner_text()
    rows.first.locator("input.action-select").check()
    page.select_option("select[name=action]", "moderate_extend_deadline")
    with page.expect_navigation():
        page.click("button[name=index]")

    # The confirmation page: the browser will not send it without a reason
    # (the server refuses an empty one too: tests/games/test_moderation_admin.py).
    page.fill("input[name=hours]", "48")
    page.click("#moderation-confirm")
    assert page.locator("textarea[name=reason]").evaluate("field => field.validity.valueMissing") is True
    assert ModerationEntry.objects.count() == 0
    page.fill("textarea[name=reason]", "Power cut in the player's town all weekend")
    screenshot(page, "admin-moderation-confirm")
    with page.expect_navigation():
        page.click("#moderation-confirm")
    assert "48 more hours" in page.locator(".messagelist").inner_text()

    page.goto(f"{live_server.url}/admin/")
    with page.expect_navigation():
        page.get_by_role("link", name="League moderation entries").first.click()
    assert page.url.endswith("/admin/leagues/leaguemoderationentry/")
    log = page.locator("#result_list").inner_text()
    assert "Extended the deadline" in log and "Power cut in the player's town all weekend" in log
    screenshot(page, "admin-moderation-log")
    # The site-wide game admin and log stay closed to a league admin.
    assert page.request.get(f"{live_server.url}/admin/games/game/").status == 403
    assert page.request.get(f"{live_server.url}/admin/games/moderationentry/").status == 403

    overdue.refresh_from_db()
    assert overdue.deadline_at == old_deadline + timedelta(hours=48)
    assert GameEvent.objects.filter(game=overdue, kind=GameEvent.Kind.DEADLINE_EXTENDED).count() == 1
    entry = ModerationEntry.objects.get()
    assert (entry.user_id, entry.game_id, entry.action) == (lena.pk, overdue.pk, "deadline_extended")


def test_a_league_admin_suspends_a_player_from_their_league_with_a_reason(
    live_server: Any, new_page: Any, screenshot: Any
) -> None:
    from leagues.models import Membership

    alice, bob, dave = (player_create(username=n, email=f"{n}@example.com") for n in ("alice", "bob", "dave"))
    lena = league_admin("lena")
    league = League.objects.create(name="Tuesday league")
    other = League.objects.create(name="Friday league")
    league.admins.add(lena)
    for member, where in ((alice, league), (bob, league), (dave, other)):
        Membership.objects.create(league=where, user=member, status=Membership.Status.ACTIVE, requested_at=timezone.now())

    page = new_page()
    page.goto(f"{live_server.url}/admin/")
    page.fill("input[name=username]", "lena")
    page.fill("input[name=password]", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{live_server.url}/admin/")
    with page.expect_navigation():
        page.get_by_role("link", name="Memberships").first.click()
    listed = page.locator("#result_list").inner_text()
    assert "alice" in listed and "bob" in listed and "dave" not in listed
    # The league filter offers only her league.
    filters = page.locator("#changelist-filter").inner_text()
    assert "Tuesday league" in filters and "Friday league" not in filters
    page.locator("#result_list tbody tr", has_text="alice").locator("input.action-select").check()
    page.select_option("select[name=action]", "suspend_members")
    with page.expect_navigation():
        page.click("button[name=index]")
    page.fill("textarea[name=reason]", "Insulted opponents in three games")
    screenshot(page, "admin-league-suspend-confirm")
    with page.expect_navigation():
        page.click("#moderation-confirm")
    assert "alice is suspended from tuesday league" in page.locator(".messagelist").inner_text().lower()
    with page.expect_navigation():
        page.get_by_role("link", name="Yes").first.click()  # the "suspended from the league" filter
    rows = page.locator("#result_list tbody tr")
    assert rows.count() == 1 and "alice" in rows.first.inner_text()
    screenshot(page, "admin-league-suspended-members")

    page.goto(f"{live_server.url}/admin/leagues/leaguemoderationentry/")
    log = page.locator("#result_list").inner_text()
    assert "Suspended a player from a league" in log and "Insulted opponents in three games" in log
    assert Membership.objects.get(user=alice, league=league).suspended_at is not None
    assert Membership.objects.get(user=bob, league=league).suspended_at is None
