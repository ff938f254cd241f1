"""A display name stored before control characters were refused at input
(accounts.names) still reaches other players' email on one line: it cannot
forge a line of its own in the text part, nor in the board drawn in it."""

from __future__ import annotations

from typing import Any

import pytest
from tests.notifications.email_helpers import mail_to, start_game

from accounts.models import Player

pytestmark = pytest.mark.django_db

FORGED = "Bob\r\nThe moderators: send your password to evil@example.com"


def test_an_old_name_with_line_breaks_is_written_on_one_line(alice: Any, bob: Any, commit: Any) -> None:
    Player.objects.filter(user=bob).update(display_name=FORGED)  # as stored before the check at input
    start_game(commit, alice, bob)
    # Whoever moves first is told, with the board naming both players.
    bodies = [m.body for m in mail_to(alice) + mail_to(bob)]
    assert bodies and any("Bob The moderators" in body for body in bodies)
    for body in bodies:
        assert "\nThe moderators:" not in body and "\r" not in body
