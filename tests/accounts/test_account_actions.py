"""Staff disable and erase accounts from the admin: each needs its permission and
a reason, asks on a confirmation page first, is written to the append-only
account action log, and is told to the person in their language.

Personas (conftest.py): alice and bob are players. Here also:
- sam: staff holding ``accounts.disable_player``, ``accounts.erase_player`` and
  ``accounts.view_player``, and nothing else;
- root: a superuser, the only one who reads the log.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core import mail
from django.test import Client

from accounts.errors import AccountActionRefusedError, InvalidInput
from accounts.models import AccountActionLog, Player
from accounts.services import (
    SYSTEM_USERNAME_PREFIXES,
    account_disable,
    account_erase,
    player_language_set,
    system_account_get,
)

User = get_user_model()
PLAYERS = "/admin/accounts/player/"


@pytest.fixture
def sam(db: None) -> Any:
    user = User.objects.create_user("sam", "sam@example.com", "pw-for-tests-only", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(
            content_type__app_label="accounts", codename__in=["disable_player", "erase_player", "view_player"]
        )
    )
    return User.objects.get(pk=user.pk)


@pytest.fixture
def root(db: None) -> Any:
    return User.objects.create_superuser("root", "root@example.com", "pw-for-tests-only")


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _player_pk(user: Any) -> int:
    return Player.objects.get(user=user).pk


# --- the confirmation page ---------------------------------------------------------------


def test_disabling_in_the_admin_asks_first_and_changes_nothing_until_confirmed(sam: Any, alice: Any) -> None:
    page = _client(sam).post(PLAYERS, {"action": "disable_accounts", "_selected_action": [_player_pk(alice)]})

    assert page.status_code == 200
    text = page.content.decode()
    assert "Disable this account?" in text and "alice@example.com" in text
    assert 'name="reason"' in text and 'name="note"' in text
    alice.refresh_from_db()
    assert alice.is_active
    assert not AccountActionLog.objects.exists()


def test_a_confirmation_without_a_reason_shows_the_page_again_and_disables_nothing(sam: Any, alice: Any) -> None:
    page = _client(sam).post(
        PLAYERS, {"action": "disable_accounts", "_selected_action": [_player_pk(alice)], "post": "yes", "reason": "  "}
    )

    assert page.status_code == 200
    assert "This field is required." in page.content.decode()
    alice.refresh_from_db()
    assert alice.is_active


def test_a_confirmed_disable_logs_the_reason_and_emails_the_person_the_note(
    sam: Any, alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        answer = _client(sam).post(
            PLAYERS,
            {
                "action": "disable_accounts",
                "_selected_action": [_player_pk(alice)],
                "post": "yes",
                "reason": "Ticket 41: three accounts, one person",
                "note": "Please play with one account only.",
            },
            follow=True,
        )

    assert "Disabled 1 account." in answer.content.decode()
    alice.refresh_from_db()
    assert not alice.is_active
    entry = AccountActionLog.objects.get()
    assert (entry.action, entry.actor_user_id, entry.target_user_id, entry.target_username) == (
        "disabled", sam.pk, alice.pk, "alice"
    )
    assert entry.reason == "Ticket 41: three accounts, one person"
    [email] = mail.outbox
    assert email.to == ["alice@example.com"] and email.subject == "Your Splendor by post account is disabled"
    assert "Please play with one account only." in email.body
    assert "Ticket 41" not in email.body  # the reason is the staff's own
    assert entry.message_sent == email.body


def test_the_erasure_email_goes_to_the_address_the_account_had_in_its_language(
    sam: Any, alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    player_language_set(user=alice, language="it")

    with django_capture_on_commit_callbacks(execute=True):
        account_erase(user=alice, by_user=sam, reason="Asked by email", note="")

    alice.refresh_from_db()
    assert alice.email == "" and alice.username == f"deleted-{alice.pk}"
    [email] = mail.outbox
    assert email.to == ["alice@example.com"]
    assert email.subject == "Il tuo account di Splendor by post è cancellato"
    assert f"deleted player {alice.pk}" in email.body
    entry = AccountActionLog.objects.get()
    assert (entry.action, entry.target_username, entry.message_sent) == ("erased", "alice", email.body)


def test_a_disable_email_in_latvian(sam: Any, bob: Any, django_capture_on_commit_callbacks: Any) -> None:
    player_language_set(user=bob, language="lv")

    with django_capture_on_commit_callbacks(execute=True):
        account_disable(user=bob, by_user=sam, reason="Spam")

    [email] = mail.outbox
    assert email.subject == "Tavs Splendor by post konts ir atspējots"
    assert "Servisa komanda atspējoja" in email.body


def test_disabling_a_disabled_account_logs_and_sends_nothing(
    sam: Any, alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        assert account_disable(user=alice, by_user=sam, reason="Spam") is True
        assert account_disable(user=alice, by_user=sam, reason="Spam again") is False

    assert AccountActionLog.objects.count() == 1
    assert len(mail.outbox) == 1


# --- refusals --------------------------------------------------------------------------


def test_the_services_refuse_staff_without_the_permission(alice: Any, bob: Any) -> None:
    bob.is_staff = True
    bob.save()

    with pytest.raises(AccountActionRefusedError):
        account_disable(user=alice, by_user=bob, reason="Spam")
    with pytest.raises(AccountActionRefusedError):
        account_erase(user=alice, by_user=bob, reason="Spam")

    alice.refresh_from_db()
    assert alice.is_active and alice.username == "alice"


def test_no_one_disables_their_own_account_and_only_a_superuser_a_superusers(sam: Any, root: Any) -> None:
    with pytest.raises(AccountActionRefusedError, match="your own account"):
        account_disable(user=sam, by_user=sam, reason="Leaving")
    with pytest.raises(AccountActionRefusedError, match="superuser"):
        account_erase(user=root, by_user=sam, reason="Taking over")

    assert User.objects.get(pk=root.pk).is_active


def test_the_services_bot_account_cannot_be_erased(root: Any) -> None:
    bot = system_account_get(username=f"{SYSTEM_USERNAME_PREFIXES[0]}greedy", display_name="Greedy bot")

    with pytest.raises(AccountActionRefusedError):
        account_erase(user=bot, by_user=root, reason="Tidying up")

    bot.refresh_from_db()
    assert bot.is_active and bot.username.startswith(SYSTEM_USERNAME_PREFIXES[0])


def test_a_blank_reason_is_refused_by_the_service(sam: Any, alice: Any) -> None:
    with pytest.raises(InvalidInput) as refused:
        account_disable(user=alice, by_user=sam, reason=" ")

    assert "reason" in refused.value.errors
    alice.refresh_from_db()
    assert alice.is_active


def test_the_admin_refuses_the_whole_selection_when_one_account_is_a_superusers(
    sam: Any, alice: Any, root: Any
) -> None:
    root_player = Player.objects.create(user=root, display_name="Root")

    answer = _client(sam).post(
        PLAYERS,
        {
            "action": "disable_accounts",
            "_selected_action": [_player_pk(alice), root_player.pk],
            "post": "yes",
            "reason": "Spam",
        },
    )

    assert answer.status_code == 403
    alice.refresh_from_db()
    assert alice.is_active


# --- the log ---------------------------------------------------------------------------


def test_the_log_is_append_only(sam: Any, alice: Any) -> None:
    account_disable(user=alice, by_user=sam, reason="Spam")
    entry = AccountActionLog.objects.get()

    entry.reason = "Nothing happened"
    with pytest.raises(ValueError):
        entry.save()
    with pytest.raises(ValueError):
        entry.delete()
    with pytest.raises(ValueError):
        AccountActionLog.objects.filter(pk=entry.pk).update(reason="Nothing happened")
    with pytest.raises(ValueError):
        AccountActionLog.objects.all().delete()

    assert AccountActionLog.objects.get().reason == "Spam"


def test_superusers_read_the_log_and_no_one_adds_changes_or_deletes_there(sam: Any, root: Any, alice: Any) -> None:
    account_disable(user=alice, by_user=sam, reason="Spam")
    entry = AccountActionLog.objects.get()
    base = "/admin/accounts/accountactionlog/"
    as_root = _client(root)

    listed = as_root.get(base)

    assert listed.status_code == 200 and "alice" in listed.content.decode() and "sam" in listed.content.decode()
    assert as_root.get(f"{base}add/").status_code == 403
    assert as_root.get(f"{base}{entry.pk}/delete/").status_code == 403
    as_root.post(f"{base}{entry.pk}/change/", {"reason": "Nothing happened"})
    assert AccountActionLog.objects.get().reason == "Spam"
    assert _client(sam).get(base).status_code == 403


# --- the other door: Django's user form --------------------------------------------------


def test_staff_who_may_change_users_cannot_untick_active_or_grant_themselves_superuser(alice: Any) -> None:
    clerk = User.objects.create_user("clerk", "clerk@example.com", "pw-for-tests-only", is_staff=True)
    clerk.user_permissions.set(
        Permission.objects.filter(content_type__app_label="auth", codename__in=["change_user", "view_user"])
    )
    client = _client(User.objects.get(pk=clerk.pk))
    form = client.get(f"/admin/auth/user/{alice.pk}/change/")
    assert form.status_code == 200 and 'name="username"' in form.content.decode()
    assert 'name="is_active"' not in form.content.decode()

    for user, changes in ((alice, {"is_active": ""}), (clerk, {"is_superuser": "on", "is_staff": "on"})):
        client.post(
            f"/admin/auth/user/{user.pk}/change/",
            {
                "username": user.username,
                "email": user.email,
                "date_joined_0": "2026-01-01",
                "date_joined_1": "00:00:00",
                **changes,
            },
        )

    alice.refresh_from_db()
    clerk.refresh_from_db()
    assert alice.is_active and not clerk.is_superuser
