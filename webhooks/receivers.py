"""What webhooks does when accounts' news arrives (signals, never imports of
webhooks by accounts)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from accounts.signals import account_disabled, account_erased
from webhooks import services


@receiver(account_disabled, dispatch_uid="webhooks.account_disabled")
def webhooks_stop_when_an_account_is_disabled(sender: Any, user_id: int, **kwargs: Any) -> None:
    services.endpoints_disable_for_account(user_id=user_id)


@receiver(account_erased, dispatch_uid="webhooks.account_erased")
def webhooks_go_when_an_account_is_erased(sender: Any, user_id: int, **kwargs: Any) -> None:
    services.endpoints_delete_for_account(user_id=user_id)
