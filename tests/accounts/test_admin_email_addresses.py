"""The admin shows the addresses alice added to her account, beside her primary
one, and lets nobody type one in or change one there (she verifies them)."""

import pytest
from django.utils import timezone

from accounts.models import EmailAddress, Player


@pytest.fixture
def phone(alice):
    return EmailAddress.objects.create(user=alice, address="alice@phone.example", verified_at=timezone.now())


def test_the_players_page_shows_her_other_addresses_and_whether_verified(staff_client, alice, phone):
    EmailAddress.objects.create(user=alice, address="alice@work.example")
    player = Player.objects.get(user=alice)
    page = staff_client.get(f"/admin/accounts/player/{player.pk}/change/").content.decode()
    assert "alice@phone.example (verified)" in page
    assert "alice@work.example (not verified)" in page


def test_the_addresses_are_listed_and_found_by_username(staff_client, phone):
    page = staff_client.get("/admin/accounts/emailaddress/?q=alice").content.decode()
    assert "alice@phone.example" in page


def test_an_address_cannot_be_added_changed_or_deleted_in_the_admin(staff_client, phone):
    assert staff_client.get("/admin/accounts/emailaddress/add/").status_code == 403
    staff_client.post(f"/admin/accounts/emailaddress/{phone.pk}/change/", {"address": "eve@evil.example"})
    staff_client.post(f"/admin/accounts/emailaddress/{phone.pk}/delete/", {"post": "yes"})
    phone.refresh_from_db()
    assert phone.address == "alice@phone.example"
