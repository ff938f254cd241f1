"""What the notifications preferences do when accounts' news arrives (signals,
never imports of notifications by accounts)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from accounts.signals import time_zone_changed
from notifications.preferences.services import preferences_time_zone_changed


@receiver(time_zone_changed, dispatch_uid="notifications.time_zone_changed")
def next_digest_follows_the_time_zone(sender: Any, user_id: int, **kwargs: Any) -> None:
    preferences_time_zone_changed(user_id=user_id)
