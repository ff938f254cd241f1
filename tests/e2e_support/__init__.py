"""Helpers for the end-to-end tests: private processes (redis-server, gunicorn,
Celery workers and beat, `manage.py serve`), a private PostgreSQL database, an
API client, and the emails the file backend wrote. Every process runs in a
process group of its own and is stopped (SIGTERM, then SIGKILL) by the fixture
that started it."""
