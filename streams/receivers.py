"""What the stream does when accounts' news arrives (signals, never imports of
streams by accounts)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from accounts.signals import account_erased
from streams import services


@receiver(account_erased, dispatch_uid="streams.account_erased")
def stream_goes_when_an_account_is_erased(sender: Any, user_id: int, **kwargs: Any) -> None:
    services.stream_forget_account(user_id=user_id)
