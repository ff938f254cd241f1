"""Staff in a real browser on the players' list: read-only staff is offered no
action at all; staff who may disable accounts are offered that one alone, and
disabling asks why and for a note to the person before it does anything.

Personas: alice and bob are players; vera is staff holding every view permission
and nothing else; dina is staff holding ``accounts.view_player`` and
``accounts.disable_player``.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from accounts.models import AccountActionLog
from accounts.services import player_create

PASSWORD = "a long staff password for tests"


def staff(username: str, permissions: Any) -> Any:
    user = get_user_model().objects.create_user(username, f"{username}@example.com", PASSWORD, is_staff=True)
    user.user_permissions.set(permissions)
    return user


def log_in(page: Any, base: str, username: str) -> None:
    page.goto(f"{base}/admin/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{base}/admin/")


def test_read_only_staff_sees_the_players_and_is_offered_no_action(
    live_server: Any, new_page: Any, screenshot: Any
) -> None:
    for name in ("alice", "bob"):
        player_create(username=name, email=f"{name}@example.com")
    staff("vera", Permission.objects.filter(codename__startswith="view_"))

    page = new_page()
    log_in(page, live_server.url, "vera")
    page.goto(f"{live_server.url}/admin/accounts/player/")

    listed = page.locator("#result_list").inner_text()
    assert "alice" in listed and "bob" in listed
    assert page.locator("select[name=action]").count() == 0
    assert page.locator("input.action-select").count() == 0
    screenshot(page, "admin-players-read-only-staff")


def test_staff_who_may_disable_are_asked_why_before_an_account_is_disabled(
    live_server: Any, new_page: Any, screenshot: Any
) -> None:
    alice = player_create(username="alice", email="alice@example.com")
    staff(
        "dina",
        Permission.objects.filter(content_type__app_label="accounts", codename__in=["view_player", "disable_player"]),
    )

    page = new_page()
    log_in(page, live_server.url, "dina")
    page.goto(f"{live_server.url}/admin/accounts/player/")
    offered = page.locator("select[name=action] option").all_inner_texts()
    assert any(text.startswith("Disable the selected accounts") for text in offered)
    assert not any(text.startswith("Erase") for text in offered)

    page.locator("#result_list tbody tr", has_text="alice").locator("input.action-select").check()
    page.select_option("select[name=action]", "disable_accounts")
    with page.expect_navigation():
        page.click("button[name=index]")
    assert "Disable this account?" in page.content()
    page.click("#account-action-confirm")
    assert page.locator("textarea[name=reason]").evaluate("field => field.validity.valueMissing") is True
    assert not AccountActionLog.objects.exists()
    page.fill("textarea[name=reason]", "Three accounts, one person (ticket 41)")
    page.fill("textarea[name=note]", "Please play with one account only.")
    screenshot(page, "admin-disable-accounts-confirm")
    with page.expect_navigation():
        page.click("#account-action-confirm")

    assert "Disabled 1 account." in page.locator(".messagelist").inner_text()
    alice.refresh_from_db()
    assert not alice.is_active
    assert AccountActionLog.objects.get().reason == "Three accounts, one person (ticket 41)"
