"""Celery tasks of the accounts app: thin adapters that call services.

`send_code_email` sends the email with a one-time code (sign-up verification,
token recovery) outside the request that made the code, so that answers which
must say the same whether or not an address has an account also take as long.
It takes only the code's id: the code is derived again from a salt in its row
and SECRET_KEY, so no secret travels in a task message. It sends nothing for a
code that has since been used, replaced or has expired, so running it late does
no harm.
"""

from __future__ import annotations

from celery import shared_task

from accounts import services


@shared_task(name="accounts.tasks.send_code_email", ignore_result=True)
def send_code_email(verification_id: int) -> bool:
    return services.code_email_send(verification_id=verification_id)


@shared_task(name="accounts.tasks.housekeeping", ignore_result=True)
def housekeeping() -> int:
    """Hourly: forget day-old counts of wrong passwords that hold no lock, and the
    records of account emails older than their limits' windows."""
    return services.password_failures_forget_old() + services.account_emails_forget_old()
