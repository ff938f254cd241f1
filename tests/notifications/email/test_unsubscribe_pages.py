"""The pages behind the email links: GET only asks, POST acts."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from tests.notifications.email_helpers import mail_to, start_game, user_to_move

from notifications.addresses import address_digest
from notifications.models import InvitationOptOut, Preferences
from notifications.email.links import opt_out_url, unsubscribe_url

pytestmark = pytest.mark.usefixtures("clock")


def _path(url: str) -> str:
    return url.removeprefix("https://splendor.test")


def _mode(user: Any) -> str:
    found = Preferences.objects.filter(user=user).values_list("mode", flat=True).first()
    return found or "every_turn"


def test_opening_the_unsubscribe_link_only_asks(bob: Any) -> None:
    response = Client().get(_path(unsubscribe_url(user_id=bob.pk)))
    assert response.status_code == 200
    assert b'<form method="post"' in response.content
    assert _mode(bob) == "every_turn"


def test_the_one_click_post_turns_email_off_without_a_csrf_token(alice: Any, bob: Any, commit: Any) -> None:
    game = start_game(commit, alice, bob)
    header = mail_to(user_to_move(game))[-1].extra_headers["List-Unsubscribe"]
    client = Client(enforce_csrf_checks=True)
    response = client.post(_path(header.strip("<>")), {"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200
    assert b"no more game email" in response.content
    assert _mode(user_to_move(game)) == "off"


def test_an_altered_unsubscribe_link_is_refused_and_changes_nothing(bob: Any) -> None:
    url = _path(unsubscribe_url(user_id=bob.pk))
    response = Client().post(url.replace("/unsubscribe/", "/unsubscribe/x"))
    assert response.status_code == 404
    assert b"This link is not valid" in response.content
    assert _mode(bob) == "every_turn"


def test_the_invitation_opt_out_asks_on_get_and_records_the_address_digest_on_post(bob: Any) -> None:
    url = _path(opt_out_url(address_digest=address_digest(bob.email)))
    assert Client().get(url).status_code == 200
    assert not InvitationOptOut.objects.exists()
    assert Client(enforce_csrf_checks=True).post(url).status_code == 200
    assert Client().post(url).status_code == 200  # twice is fine
    assert list(InvitationOptOut.objects.values_list("address_digest", flat=True)) == [address_digest(bob.email)]
    assert "bob" not in url.lower()


def test_the_opt_out_link_in_an_invitation_stops_further_invitations(alice: Any, bob: Any, commit: Any) -> None:
    from games import services

    with commit():
        services.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    body = mail_to(bob)[0].body
    link = next(line for line in body.splitlines() if "/notifications/opt-out/" in line).strip()
    Client().post(_path(link))
    with commit():
        services.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    assert len(mail_to(bob)) == 1
