"""What table talk does when accounts' news arrives (signals, never imports of
chat by accounts)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from accounts.signals import account_erased
from chat import services


@receiver(account_erased, dispatch_uid="chat.account_erased")
def an_erased_authors_lines_lose_their_text(sender: Any, user_id: int, **kwargs: Any) -> None:
    services.chat_forget_account(user_id=user_id)
