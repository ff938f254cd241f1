"""The Celery app, configured from Django settings (every CELERY_* setting)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "splendor_site.settings")

app = Celery("splendor_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
