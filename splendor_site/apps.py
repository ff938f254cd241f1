"""The wiring layer as a Django app: it has no models, only management commands
(`manage.py serve`, `manage.py bench_make_games`) and the embedded broker's folders."""

from __future__ import annotations

from django.apps import AppConfig


class SiteConfig(AppConfig):
    name = "splendor_site"
    label = "splendor_site"
    verbose_name = "Site wiring"

    def ready(self) -> None:
        from splendor_site import checks  # noqa: F401  (registers the deploy checks)
        from splendor_site.celery import broker_folders_make

        # The embedded broker writes message files into these folders; a web
        # process started on its own (runserver, gunicorn) must find them too.
        broker_folders_make()
