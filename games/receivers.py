"""What games does when another app's news arrives (signals, never imports of
games by them)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from accounts.signals import account_disabled
from games import services


@receiver(account_disabled, dispatch_uid="games.account_disabled")
def seats_move_on_when_an_account_is_disabled(sender: Any, user_id: int, **kwargs: Any) -> None:
    services.seats_leave_for_disabled_account(user_id=user_id)
