"""Inbound email from the email provider's webhook (django-anymail).

anymail's own views at ``/anymail/<esp>/inbound/`` check the provider's
signature or basic auth (ANYMAIL WEBHOOK_SECRET; the route exists only when it
is set, see splendor_site/urls.py) and send the ``inbound`` signal; this receiver
hands the raw message to ``inbound_message_receive``.
"""

from __future__ import annotations

from typing import Any

from anymail.signals import inbound  # type: ignore[import-untyped]  # no stubs
from django.dispatch import receiver

from notifications.inbound.receive import inbound_message_receive


def _raw_bytes(message: Any) -> bytes:
    as_bytes = getattr(message, "as_bytes", None)
    if callable(as_bytes):
        data = as_bytes()
        if isinstance(data, bytes):
            return data
    return str(message).encode("utf-8", errors="replace")


@receiver(inbound, dispatch_uid="notifications.inbound_views.anymail_inbound")
def anymail_inbound(sender: Any, event: Any, esp_name: str, **kwargs: Any) -> None:
    message = getattr(event, "message", None)
    if message is None:
        return
    envelope = getattr(message, "envelope_recipient", None)
    inbound_message_receive(
        raw=_raw_bytes(message),
        envelope_to=[str(envelope)] if envelope else None,
        source=f"webhook-{esp_name}"[:16].lower(),
    )
