"""Print a new VAPID key pair for Web Push, in the form the settings take."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from notifications.push.keys import vapid_keys_new


class Command(BaseCommand):
    help = (
        "Print a new VAPID key pair (VAPID_PRIVATE_KEY, VAPID_PUBLIC_KEY) for Web Push, as environment lines. "
        "Keep the private key secret; a new pair makes every browser subscribe again."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        private, public = vapid_keys_new()
        self.stdout.write(f"VAPID_PRIVATE_KEY={private}\nVAPID_PUBLIC_KEY={public}\n")
