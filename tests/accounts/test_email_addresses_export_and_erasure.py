"""Every address of an account is in its owner's export and gone when it is erased.

- alice has her primary address, a verified phone address and one still waiting
  for its code, so each kind is seen in the export and looked for after erasing.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core import serializers as model_serializers
from django.apps import apps
from django.utils import timezone
from tests.games.game_helpers import client_for

from accounts.models import AccountEmailSent, EmailAddress, EmailVerification
from accounts.services import email_address_add, player_erase

pytestmark = pytest.mark.django_db

PHONE, WAITING = "alice.phone@quillmail.example", "alice.work@quillmail.example"


@pytest.fixture
def alice_with_addresses(alice: Any) -> Any:
    EmailAddress.objects.create(user=alice, address=PHONE, verified_at=timezone.now())
    email_address_add(user=alice, address=WAITING, client="203.0.113.9")
    return alice


def test_the_export_lists_every_address_primary_first(alice_with_addresses: Any) -> None:
    body = client_for(alice_with_addresses, scopes=("read",)).get("/api/v1/me/export/").json()
    listed = [(entry["address"], entry["verified"], entry["primary"]) for entry in body["account"]["addresses"]]
    assert listed == [(alice_with_addresses.email, True, True), (PHONE, True, False), (WAITING, False, False)]


def test_erasing_the_account_deletes_every_added_address_and_its_codes(alice_with_addresses: Any) -> None:
    assert AccountEmailSent.objects.exists()
    player_erase(user=alice_with_addresses)
    assert not EmailAddress.objects.exists()
    assert not EmailVerification.objects.exists()
    # The count of code emails sent to the added address named it (as a digest): it goes too.
    assert not AccountEmailSent.objects.exists()
    found = [
        f"{model._meta.label}: {text}"
        for model in apps.get_models(include_auto_created=True)
        for row in model._default_manager.all()
        if "quillmail" in (text := model_serializers.serialize("json", [row]))
    ]
    assert found == []


def test_an_erased_accounts_address_can_be_added_by_another(alice_with_addresses: Any, bob: Any) -> None:
    player_erase(user=alice_with_addresses)
    assert email_address_add(user=bob, address=PHONE, client="203.0.113.9").user_id == bob.pk
