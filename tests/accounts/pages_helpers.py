"""Helpers for the account pages' tests (tests/accounts/test_pages_*.py)."""

from __future__ import annotations

import html
import re
from typing import Any

from django.core import mail
from django.test import Client

PASSWORD = "a long and unusual passphrase"


def last_mail_to(address: str) -> Any:
    sent = [message for message in mail.outbox if message.to == [address]]
    assert sent, f"no email to {address}; sent: {[m.to for m in mail.outbox]}"
    return sent[-1]


def code_in_last_mail(address: str) -> str:
    body = last_mail_to(address).body
    match = re.search(r"^\s+([2-9A-Z]{10})$", body, re.MULTILINE)
    assert match, body
    return match.group(1)


def path_of_link_in_last_mail(address: str) -> str:
    """The path of the first web address in the latest email to ``address``."""
    match = re.search(r"https?://[^/\s]+(/\S+)", last_mail_to(address).body)
    assert match, last_mail_to(address).body
    return match.group(1)


def logged_in_client(user: Any) -> Client:
    client = Client()
    client.force_login(user, backend="accounts.backends.LockoutModelBackend")
    return client


def page_text(response: Any) -> str:
    """The page's text without tags, spaces collapsed: what a reader sees."""
    text = re.sub(r"<[^>]+>", " ", response.content.decode())
    return re.sub(r"\s+", " ", html.unescape(text)).strip()
