"""Wiring only: settings, URLs, the Celery app and the API error handler."""

from splendor_site.celery import app as celery_app

__all__ = ("celery_app",)
