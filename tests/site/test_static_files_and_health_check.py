"""The site's own door, as gunicorn serves it with DEBUG off: /static/ answered by
the site itself (WhiteNoise) from what collectstatic wrote, and /healthz answered
over plain http while every other page is redirected to https."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest
from django.contrib.staticfiles.storage import staticfiles_storage
from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[2]
GAME_PAGE_SCRIPT = ROOT / "games" / "static" / "games" / "game_page.js"
A_YEAR_OR_MORE = 365 * 24 * 3600

# Closing a response ends the request, which checks the database connection.
pytestmark = pytest.mark.django_db


def body_of(answer: Any) -> bytes:
    try:
        return b"".join(answer.streaming_content)
    finally:
        answer.close()


@pytest.fixture
def collected(settings: Any, tmp_path: Path) -> Path:
    """The production storage, collected into a temporary STATIC_ROOT: only the
    game page's folder, so that it takes a moment, not the admin's hundreds of files."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }
    settings.STATIC_ROOT = str(tmp_path / "static")
    settings.STATICFILES_FINDERS = ["django.contrib.staticfiles.finders.FileSystemFinder"]
    settings.STATICFILES_DIRS = [("games", str(GAME_PAGE_SCRIPT.parent))]
    # As with DEBUG off in production: only STATIC_ROOT, read once at start.
    settings.WHITENOISE_USE_FINDERS = False
    settings.WHITENOISE_AUTOREFRESH = False
    call_command("collectstatic", interactive=False, verbosity=0)
    return tmp_path / "static"


def test_a_hashed_static_file_is_served_by_the_site_and_cached_for_a_year(client, collected):
    url = staticfiles_storage.url("games/game_page.js")
    assert url.startswith("/static/games/game_page.") and url != "/static/games/game_page.js"  # a hash in the name
    answer = client.get(url)
    assert answer.status_code == 200
    cache_control = answer["Cache-Control"]
    assert "immutable" in cache_control and "public" in cache_control
    assert int(cache_control.split("max-age=")[1].split(",")[0]) >= A_YEAR_OR_MORE
    assert answer["Content-Type"].startswith("text/javascript")
    assert body_of(answer) == GAME_PAGE_SCRIPT.read_bytes()


def test_a_static_file_under_its_plain_name_is_cached_only_briefly(client, collected):
    answer = client.get("/static/games/game_page.js")
    assert answer.status_code == 200
    assert "immutable" not in answer["Cache-Control"]
    assert int(answer["Cache-Control"].split("max-age=")[1].split(",")[0]) <= 3600
    body_of(answer)


def test_a_static_file_goes_out_compressed_to_a_client_that_takes_gzip(client, collected):
    answer = client.get(staticfiles_storage.url("games/game_page.js"), HTTP_ACCEPT_ENCODING="gzip")
    assert answer.status_code == 200 and answer["Content-Encoding"] == "gzip"
    assert gzip.decompress(body_of(answer)) == GAME_PAGE_SCRIPT.read_bytes()


def test_the_health_check_answers_plain_http_while_pages_are_redirected_to_https(client, settings):
    settings.SECURE_SSL_REDIRECT = True
    health = client.get("/healthz")
    assert health.status_code == 200 and health.json()["status"] == "ok"
    page = client.get("/")
    assert page.status_code == 301 and page["Location"] == "https://testserver/"


def test_only_the_health_check_itself_is_exempt_from_the_https_redirect(client, settings):
    settings.SECURE_SSL_REDIRECT = True
    for path in ("/healthz/", "/healthzz", "/api/healthz", "/static/healthz"):
        assert client.get(path).status_code == 301, path
