"""After every migrate: the "League admins" group exists with its permissions
(permissions are made by Django's own post_migrate, so not in a migration)."""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _league_admins_group(sender: AppConfig, **kwargs: Any) -> None:
    from leagues.services import league_admins_group

    league_admins_group()


def connect(app: AppConfig) -> None:
    post_migrate.connect(_league_admins_group, sender=app, dispatch_uid="leagues.league_admins_group")
