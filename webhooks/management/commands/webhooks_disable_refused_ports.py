"""Disable the webhooks registered on a port that WEBHOOKS_ALLOWED_PORTS no longer
allows, and email each owner why and how to register another URL. Part of a
release (docs/deploy.md, step 5); running it again disables nothing more."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from webhooks import services


class Command(BaseCommand):
    help = "Disable (and tell the owners of) the webhooks whose URL's port is not among WEBHOOKS_ALLOWED_PORTS."

    def handle(self, *args: Any, **options: Any) -> None:
        disabled = services.endpoints_disable_refused_ports()
        ids = ", ".join(str(endpoint_id) for endpoint_id in disabled)
        self.stdout.write(f"{len(disabled)} webhook(s) disabled" + (f": {ids}." if disabled else "."))
