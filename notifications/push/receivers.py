"""What push does when accounts' news arrives (signals, never imports of
notifications by accounts): an account disabled or erased keeps no push
subscriptions (a browser signed in to it again subscribes again)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from accounts.signals import account_disabled, account_erased
from notifications.push.services import push_subscriptions_delete_for_account


@receiver(account_disabled, dispatch_uid="notifications.push.account_disabled")
def subscriptions_go_with_a_disabled_account(sender: Any, user_id: int, **kwargs: Any) -> None:
    push_subscriptions_delete_for_account(user_id=user_id)


@receiver(account_erased, dispatch_uid="notifications.push.account_erased")
def subscriptions_go_with_an_erased_account(sender: Any, user_id: int, **kwargs: Any) -> None:
    push_subscriptions_delete_for_account(user_id=user_id)
