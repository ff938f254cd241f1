"""manage.py player_create NAME --email E [--display-name D] [--scopes read,play]

Creates a verified player and a token, and prints one line of JSON:
{"username": ..., "email": ..., "token": "spl_..."}
"""

from __future__ import annotations

import json
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from accounts.errors import InvalidInput
from accounts.services import player_create, token_create


class Command(BaseCommand):
    help = "Create a verified player with an API token; print them as one line of JSON."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--email", required=True)
        parser.add_argument("--display-name", default=None)
        parser.add_argument("--scopes", default="read,play", help="comma-separated: read, play (default read,play)")

    def handle(self, *args: Any, **options: Any) -> None:
        scopes = [s.strip() for s in options["scopes"].split(",") if s.strip()]
        try:
            with transaction.atomic():
                user = player_create(
                    username=options["username"], email=options["email"], display_name=options["display_name"]
                )
                _, plaintext = token_create(user=user, name="created by player_create", scopes=scopes)
        except InvalidInput as exc:
            messages = "; ".join(f"{field}: {' '.join(errs)}" for field, errs in exc.errors.items())
            raise CommandError(messages) from None
        self.stdout.write(json.dumps({"username": user.username, "email": user.email, "token": plaintext}))
