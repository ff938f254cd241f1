"""Names other players see: display names hold no control characters (a line
break in one forged lines in others' plain-text mail), and a new username that
looks like an existing one (Unicode confusables, after NFKC case folding) is
refused, whichever door it comes through. Existing accounts keep their names.

- alice has an account; the look-alikes below would pass for her.
- carol signs up through the API, the page or `player_create`.
"""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from accounts.errors import InvalidInput
from accounts.models import Player, UsernameSkeleton
from accounts.names import name_for_plain_text, username_skeleton
from accounts.services import player_create, player_erase, token_recovery_start
from tests.accounts.conftest import client_with
from tests.accounts.pages_helpers import PASSWORD, page_text

User = get_user_model()

CYRILLIC_ALICE = "\u0430lice"  # а, CYRILLIC SMALL LETTER A
# Cyrillic а; full width; a digit one; Cyrillic а, і and е; Latin alpha.
LOOK_ALIKES = [CYRILLIC_ALICE, "\uff41\uff4c\uff49\uff43\uff45", "a1ice", "\u0430l\u0456c\u0435", "\u0251lice"]
FORGED = "Carol\r\nSubject: your account is closed"


def sign_up(capture: Any, **fields: str) -> Any:
    body = {"username": "carol", "email": "carol@example.com", "password": PASSWORD, **fields}
    with capture(execute=True):
        return client_with().post("/api/v1/players/", body, format="json")


def page_sign_up(capture: Any, **fields: str) -> Any:
    body = {"username": "carol", "email": "carol@example.com", "display_name": "Carol", "password": PASSWORD, **fields}
    with capture(execute=True):
        return Client().post("/accounts/signup/", body)


# --- display names ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        FORGED, "Carol\nBcc: everyone", "Carol\tC", "Carol\x1b[2J", "Carol\u2028Subject: x", "lorac\u202eCarol",
        "Carol\x85Subject: x",
    ],
)
def test_a_display_name_with_control_characters_is_a_400_validation_error_naming_them(
    db: None, django_capture_on_commit_callbacks: Any, name: str
) -> None:
    answer = sign_up(django_capture_on_commit_callbacks, display_name=name)
    assert answer.status_code == 400, answer.content
    body = answer.json()
    assert body["code"] == "validation_error" and set(body["errors"]) == {"display_name"}
    assert "control characters" in body["errors"]["display_name"][0]
    assert "U+" in body["errors"]["display_name"][0]
    assert not User.objects.filter(username="carol").exists() and mail.outbox == []


@pytest.mark.parametrize(
    "name",
    # Persian with its zero-width non-joiner; a family emoji joined by zero-width joiners.
    ["Zoë", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", "\U0001f468\u200d\U0001f469\u200d\U0001f467", "Ana María"],
)
def test_display_names_in_any_script_and_with_emoji_sequences_are_taken(
    db: None, django_capture_on_commit_callbacks: Any, name: str
) -> None:
    assert sign_up(django_capture_on_commit_callbacks, display_name=name).status_code == 202
    assert Player.objects.get(user__username="carol").display_name == name


def test_the_sign_up_page_refuses_it_and_says_why(db: None, django_capture_on_commit_callbacks: Any) -> None:
    answer = page_sign_up(django_capture_on_commit_callbacks, display_name=FORGED)
    assert answer.status_code == 200
    assert "may not hold line breaks" in page_text(answer)
    assert not User.objects.filter(username="carol").exists()


def test_player_create_refuses_it(db: None) -> None:
    with pytest.raises(InvalidInput) as refused:
        player_create(username="carol", email="carol@example.com", display_name=FORGED)
    assert set(refused.value.errors) == {"display_name"}
    with pytest.raises(CommandError, match="display_name"):
        call_command(
            "player_create", "carol", "--email", "carol@example.com", "--display-name", FORGED, stdout=StringIO()
        )


def test_the_admin_s_player_form_refuses_it_too(alice: Any) -> None:
    player = alice.player
    player.display_name = FORGED
    with pytest.raises(ValidationError) as refused:
        player.full_clean()
    assert "display_name" in refused.value.message_dict


def test_a_name_stored_before_is_shown_on_one_line_in_mail(
    alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    Player.objects.filter(user=alice).update(display_name="Alice\r\nReply-To: eve@example.com")
    with django_capture_on_commit_callbacks(execute=True):
        token_recovery_start(email="alice@example.com", client="192.0.2.1")
    body = mail.outbox[-1].body
    assert "Hello Alice Reply-To: eve@example.com," in body
    assert not any(line.startswith("Reply-To:") for line in body.splitlines())


def test_plain_text_names_turn_each_run_of_control_characters_into_one_space() -> None:
    assert name_for_plain_text("Eve\r\n\tBcc: x\u2029") == "Eve Bcc: x"
    assert name_for_plain_text("Zoë \U0001f468\u200d\U0001f469") == "Zoë \U0001f468\u200d\U0001f469"


# --- usernames that look like another ---------------------------------------------------------


@pytest.mark.parametrize("look_alike", LOOK_ALIKES)
def test_a_username_that_looks_like_an_existing_one_is_a_400_validation_error(
    alice: Any, django_capture_on_commit_callbacks: Any, look_alike: str
) -> None:
    answer = sign_up(django_capture_on_commit_callbacks, username=look_alike)
    assert answer.status_code == 400, answer.content
    body = answer.json()
    assert body["code"] == "validation_error" and set(body["errors"]) == {"username"}
    assert "looks too much like the username of another account" in body["errors"]["username"][0]
    assert not User.objects.filter(username=look_alike).exists() and mail.outbox == []


def test_the_skeletons_are_those_of_unicode_technical_standard_39() -> None:
    assert {username_skeleton(name) for name in ["alice", *LOOK_ALIKES]} == {"alice"}
    assert username_skeleton("alicia") != username_skeleton("alice")
    assert username_skeleton("\u0440\u0430\u0443\u0440\u0430l") == username_skeleton("paypal")  # all Cyrillic but l


def test_the_sign_up_page_refuses_a_look_alike(alice: Any, django_capture_on_commit_callbacks: Any) -> None:
    answer = page_sign_up(django_capture_on_commit_callbacks, username=CYRILLIC_ALICE)
    assert answer.status_code == 200 and "looks too much like" in page_text(answer)
    assert not User.objects.filter(username=CYRILLIC_ALICE).exists()


def test_player_create_refuses_a_look_alike(alice: Any) -> None:
    with pytest.raises(InvalidInput) as refused:
        player_create(username=CYRILLIC_ALICE, email="eve@example.com")
    assert set(refused.value.errors) == {"username"}
    with pytest.raises(CommandError, match="looks too much like"):
        call_command("player_create", "a1ice", "--email", "eve@example.com", stdout=StringIO())


def test_a_look_alike_of_a_reserved_name_is_reserved_too(db: None, django_capture_on_commit_callbacks: Any) -> None:
    answer = sign_up(django_capture_on_commit_callbacks, username="\uff41dmin")  # full-width a
    assert answer.status_code == 400 and "is reserved" in answer.json()["errors"]["username"][0]


def test_a_username_with_a_control_character_is_refused_at_every_door(
    db: None, django_capture_on_commit_callbacks: Any
) -> None:
    answer = page_sign_up(django_capture_on_commit_callbacks, username="carol\r\nx")
    assert answer.status_code == 200 and not User.objects.filter(email="carol@example.com").exists()
    with pytest.raises(InvalidInput):
        player_create(username="carol\nx", email="carol@example.com")


def test_existing_look_alike_accounts_keep_their_names_and_work(alice: Any) -> None:
    # Made before look-alikes were refused (here: straight in the database).
    User.objects.create_user(username=CYRILLIC_ALICE, email="other@example.com", password=PASSWORD)
    for username, password in [("alice", "correct horse battery"), (CYRILLIC_ALICE, PASSWORD)]:
        body = {"name": "x", "username": username, "password": password}
        answer = client_with().post("/api/v1/tokens/", body, format="json")
        assert answer.status_code == 201, (username, answer.content)
    assert User.objects.filter(username__in=["alice", CYRILLIC_ALICE]).count() == 2


def test_a_sign_up_that_gives_way_holds_no_look_alike_either(db: None, signups: Any) -> None:
    assert signups.sign_up(CYRILLIC_ALICE, "eve@example.com").status_code == 202
    # Its code still works: it holds the name and its look-alikes.
    assert signups.sign_up("alice", "alice@example.com").status_code == 400
    signups.burn_the_code(username=CYRILLIC_ALICE)
    # Its code is dead: it holds nothing.
    assert signups.sign_up("alice", "alice@example.com").status_code == 202


def test_signing_up_again_with_the_same_address_may_change_the_name_to_a_look_alike_of_its_own(
    db: None, signups: Any
) -> None:
    assert signups.sign_up("carol", "carol@example.com").status_code == 202
    assert signups.sign_up("car0l", "carol@example.com").status_code == 202  # the same sign-up, reused
    assert User.objects.get(email="carol@example.com").username == "car0l"


def test_an_erased_account_s_name_no_longer_holds_its_look_alikes(
    alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        player_erase(user=alice)
    assert sign_up(django_capture_on_commit_callbacks, username=CYRILLIC_ALICE).status_code == 202


def test_a_username_changed_in_the_admin_gets_its_skeleton(alice: Any) -> None:
    alice.username = "alicia"
    alice.save()
    assert UsernameSkeleton.objects.filter(user=alice).count() == 1
    assert player_create(username="\u0430lice", email="eve@example.com").username == CYRILLIC_ALICE


# --- what the migration does to what is already stored -------------------------------------------

BEFORE = [("accounts", "0009_account_emails_sent")]
AFTER = [("accounts", "0010_username_skeletons_and_plain_display_names")]


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_look_alikes_gives_each_a_skeleton_and_makes_display_names_plain() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    apps = executor.loader.project_state(BEFORE).apps
    OldUser, OldPlayer = apps.get_model("auth", "User"), apps.get_model("accounts", "Player")
    alice = OldUser.objects.create(username="alice")
    twin = OldUser.objects.create(username=CYRILLIC_ALICE)
    OldPlayer.objects.create(user=alice, display_name="Alice\r\nSubject: forged")
    OldPlayer.objects.create(user=twin, display_name="\r\n")

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    apps = executor.loader.project_state(AFTER).apps
    NewPlayer, NewSkeleton = apps.get_model("accounts", "Player"), apps.get_model("accounts", "UsernameSkeleton")
    assert NewPlayer.objects.get(user_id=alice.pk).display_name == "Alice Subject: forged"
    assert NewPlayer.objects.get(user_id=twin.pk).display_name == CYRILLIC_ALICE  # nothing left: the username
    digests = set(NewSkeleton.objects.filter(user_id__in=[alice.pk, twin.pk]).values_list("digest", flat=True))
    assert len(digests) == 1 and NewSkeleton.objects.count() == 2
    call_command("migrate", verbosity=0)  # leave the database at the latest state for the next test
