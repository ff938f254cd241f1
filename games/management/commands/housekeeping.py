"""The hourly housekeeping, for those who run no Celery beat: abort open games
nobody joined in time, delete Idempotency-Key records past their time, forget
day-old counts of wrong passwords and old records of account emails. The same
services as the beat tasks (games.tasks.housekeeping, accounts.tasks.housekeeping);
safe to run twice."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from accounts import services as accounts_services
from games import services


class Command(BaseCommand):
    help = (
        "Expire open games, delete old Idempotency-Key records, forget old wrong-password counts and account "
        "email records."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        expired = services.game_expire_open()
        deleted = services.idempotency_records_delete_expired()
        forgotten = accounts_services.password_failures_forget_old()
        emails = accounts_services.account_emails_forget_old()
        self.stdout.write(
            f"{expired} open game(s) expired; {deleted} Idempotency-Key record(s), "
            f"{forgotten} wrong-password count(s) and {emails} account email record(s) deleted."
        )
