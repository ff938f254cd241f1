"""The Celery app, configured from Django settings (every CELERY_* setting)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "splendor_site.settings")

app = Celery("splendor_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def broker_folders_make() -> None:
    """Make the embedded broker's folders under VAR_DIR when it is the broker
    (kombu's filesystem transport does not make them); nothing otherwise."""
    from django.conf import settings

    if not str(settings.CELERY_BROKER_URL).startswith("filesystem://"):
        return
    for folder in settings.BROKER_FOLDERS.values():
        folder.mkdir(parents=True, exist_ok=True)
