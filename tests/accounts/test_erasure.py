"""Erasing an account: DELETE /api/v1/me/ with the username typed back, or the
admin's erase action after a confirmation page. The account stays (seats point
at it) but nothing in it names the person, and it never works again."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core import mail

from accounts.models import ApiToken, EmailVerification, PasswordFailures, Player
from accounts.services import login_check, player_erase, player_for_user
from accounts.signals import account_disabled, account_erased
from tests.accounts.conftest import client_with

User = get_user_model()


def erase_me(token: str, body: dict | None, capture) -> object:  # type: ignore[no-untyped-def]
    with capture(execute=True):
        return client_with(token).delete("/api/v1/me/", body, format="json")


def test_a_player_erases_their_account_by_typing_their_username(
    alice, alice_play_token, django_capture_on_commit_callbacks
):
    _, plain = alice_play_token
    answer = erase_me(plain, {"confirm": "alice"}, django_capture_on_commit_callbacks)
    assert answer.status_code == 204
    user = User.objects.get(pk=alice.pk)
    assert user.username == f"deleted-{alice.pk}"
    assert user.email == "" and user.first_name == "" and user.last_name == ""
    assert not user.is_active and not user.has_usable_password()
    assert user.player.display_name == f"deleted player {alice.pk}"
    assert user.player.erased_at is not None


def test_a_missing_confirmation_is_a_400_that_says_what_to_send(alice, alice_play_token):
    _, plain = alice_play_token
    answer = client_with(plain).delete("/api/v1/me/", {}, format="json")
    assert answer.status_code == 400
    body = answer.json()
    assert body["code"] == "confirmation_required"
    assert '{"confirm": "alice"}' in body["detail"]
    assert body["errors"]["confirm"] == ['To erase your account for good, send {"confirm": "alice"} (your username).']
    assert User.objects.get(pk=alice.pk).is_active


def test_a_wrong_confirmation_erases_nothing(alice, alice_play_token):
    _, plain = alice_play_token
    answer = client_with(plain).delete("/api/v1/me/", {"confirm": "Alice"}, format="json")
    assert answer.status_code == 400 and answer.json()["code"] == "confirmation_required"
    assert "did not match" in answer.json()["detail"]
    assert User.objects.get(pk=alice.pk).username == "alice"


def test_erasing_needs_a_play_token(alice, alice_read_token):
    _, plain = alice_read_token
    answer = client_with(plain).delete("/api/v1/me/", {"confirm": "alice"}, format="json")
    assert answer.status_code == 403 and answer.json()["code"] == "insufficient_scope"
    assert User.objects.get(pk=alice.pk).username == "alice"


def test_every_token_stops_working_once_the_account_is_erased(
    alice, alice_play_token, alice_read_token, django_capture_on_commit_callbacks
):
    _, plain = alice_play_token
    _, other = alice_read_token
    erase_me(plain, {"confirm": "alice"}, django_capture_on_commit_callbacks)
    for token in (plain, other):
        answer = client_with(token).get("/api/v1/me/")
        assert answer.status_code == 401 and answer.json()["code"] == "invalid_token"
    assert not ApiToken.objects.filter(user=alice).exists()


def test_the_profile_does_not_come_back_on_the_next_request(alice, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        player_erase(user=alice)
    player = player_for_user(user=User.objects.get(pk=alice.pk))
    assert player.display_name == f"deleted player {alice.pk}" and player.erased_at is not None
    assert Player.objects.filter(user_id=alice.pk).count() == 1


def test_the_password_and_the_old_username_no_longer_sign_in(alice, django_capture_on_commit_callbacks):
    from accounts.errors import InvalidCredentialsError

    with django_capture_on_commit_callbacks(execute=True):
        player_erase(user=alice)
    for username in ("alice", f"deleted-{alice.pk}"):
        with pytest.raises(InvalidCredentialsError):
            login_check(username=username, password="correct horse battery", client="192.0.2.1")


def test_erasing_forgets_wrong_passwords_kept_for_the_username(alice, django_capture_on_commit_callbacks):
    from accounts.errors import InvalidCredentialsError

    with pytest.raises(InvalidCredentialsError):
        login_check(username="Alice", password="not it", client="192.0.2.1")
    assert PasswordFailures.objects.count() == 1
    with django_capture_on_commit_callbacks(execute=True):
        player_erase(user=alice)
    assert PasswordFailures.objects.count() == 0


def test_erasing_deletes_the_emailed_codes(db, signups, django_capture_on_commit_callbacks):
    signups.sign_up("carol", "carol@example.com")
    signups.verify(signups.last_code("carol@example.com"), username="carol")
    carol = User.objects.get(username="carol")
    assert EmailVerification.objects.filter(user=carol).exists()
    with django_capture_on_commit_callbacks(execute=True):
        player_erase(user=carol)
    assert not EmailVerification.objects.filter(user=carol).exists()


def test_erasing_frees_the_username_and_the_address_for_a_new_sign_up(signups, alice, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        player_erase(user=alice)
    mail.outbox.clear()
    assert signups.sign_up("alice", "alice@example.com").status_code == 202


def test_erasing_tells_the_other_apps_scrub_now_and_disable_on_commit(alice, django_capture_on_commit_callbacks):
    heard: list[tuple[str, int, bool]] = []

    def erased(sender, user_id, **kwargs):  # type: ignore[no-untyped-def]
        # Inside the erasing transaction: the names are already gone.
        heard.append(("erased", user_id, User.objects.get(pk=user_id).username.startswith("deleted-")))

    def disabled(sender, user_id, **kwargs):  # type: ignore[no-untyped-def]
        heard.append(("disabled", user_id, True))

    account_erased.connect(erased, dispatch_uid="test-erased")
    account_disabled.connect(disabled, dispatch_uid="test-disabled")
    try:
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            player_erase(user=alice)
        assert heard == [("erased", alice.pk, True)]
        for callback in callbacks:
            callback()
        assert heard == [("erased", alice.pk, True), ("disabled", alice.pk, True)]
    finally:
        account_erased.disconnect(dispatch_uid="test-erased")
        account_disabled.disconnect(dispatch_uid="test-disabled")


def test_erasing_an_erased_account_does_nothing(alice, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        player_erase(user=alice)
    erased_at = Player.objects.get(user=alice).erased_at
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        player_erase(user=alice)
    assert callbacks == []
    assert Player.objects.get(user=alice).erased_at == erased_at


def test_an_account_made_without_a_player_can_be_erased(db, django_capture_on_commit_callbacks):
    root = User.objects.create_user(username="root", email="root@example.com", first_name="Ro", last_name="Ot")
    with django_capture_on_commit_callbacks(execute=True):
        player_erase(user=root)
    root.refresh_from_db()
    assert (root.username, root.email, root.first_name, root.last_name) == (f"deleted-{root.pk}", "", "", "")
    assert root.player.display_name == f"deleted player {root.pk}"


# --- the admin -------------------------------------------------------------------------


def test_the_admin_asks_before_it_erases(staff_client, alice):
    player = Player.objects.get(user=alice)
    page = staff_client.post(
        "/admin/accounts/player/", {"action": "erase_accounts", "_selected_action": [player.pk]}
    )
    assert page.status_code == 200
    text = page.content.decode()
    assert "Erase this account for good?" in text and "alice@example.com" in text
    assert User.objects.get(pk=alice.pk).username == "alice"


def test_the_admin_erases_once_confirmed(staff_client, alice, django_capture_on_commit_callbacks):
    from django.contrib.admin.models import LogEntry

    player = Player.objects.get(user=alice)
    with django_capture_on_commit_callbacks(execute=True):
        answer = staff_client.post(
            "/admin/accounts/player/",
            {"action": "erase_accounts", "_selected_action": [player.pk], "post": "yes", "reason": "Asked by email"},
            follow=True,
        )
    assert answer.status_code == 200 and "Erased 1 account." in answer.content.decode()
    assert User.objects.get(pk=alice.pk).username == f"deleted-{alice.pk}"
    assert LogEntry.objects.get().object_repr == f"deleted player {alice.pk}"


def test_the_admin_cannot_delete_a_player_whose_profile_would_come_back(staff_client, alice):
    player = Player.objects.get(user=alice)
    assert staff_client.get(f"/admin/accounts/player/{player.pk}/delete/").status_code == 403
    assert "delete_selected" not in staff_client.get("/admin/accounts/player/").content.decode()
