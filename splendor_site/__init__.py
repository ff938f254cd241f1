"""Wiring only: settings, URLs, the Celery app, WSGI and ASGI."""

from splendor_site.celery import app as celery_app

__all__ = ("celery_app",)
