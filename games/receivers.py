"""What games does when another app's news arrives (signals, never imports of
games by them)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from accounts.signals import account_disabled, account_erased
from games import services


@receiver(account_disabled, dispatch_uid="games.account_disabled")
def seats_move_on_when_an_account_is_disabled(sender: Any, user_id: int, **kwargs: Any) -> None:
    services.seats_leave_for_disabled_account(user_id=user_id)


@receiver(account_erased, dispatch_uid="games.account_erased")
def forget_an_erased_accounts_names(sender: Any, user_id: int, **kwargs: Any) -> None:
    # Seats, moves, events and results name players by id and stay as they are;
    # only the stored Idempotency-Key answers hold names.
    services.idempotency_records_forget_account(user_id=user_id)


@receiver(account_erased, dispatch_uid="games.account_erased.notes")
def clear_an_erased_accounts_notes(sender: Any, user_id: int, **kwargs: Any) -> None:
    # Its private notes on its games (games.notes) go with the account.
    services.notes_forget_account(user_id=user_id)
