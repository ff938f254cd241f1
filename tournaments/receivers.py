"""After every migrate: the "League admins" group holds tournaments' permissions
for their leagues' tournaments (Tournament.league_admin_permissions). Run again
here because this app's permissions are made after leagues' receiver has run."""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _league_admins_group(sender: AppConfig, **kwargs: Any) -> None:
    from leagues.services import league_admins_group

    league_admins_group()


def connect(app: AppConfig) -> None:
    post_migrate.connect(_league_admins_group, sender=app, dispatch_uid="tournaments.league_admins_group")
