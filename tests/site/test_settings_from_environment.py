"""Settings come from the environment and fail loudly on bad values."""

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from splendor_site.environment import (
    BROKER_SCHEMES,
    env_bool,
    env_broker_url,
    env_class,
    env_fraction,
    env_int,
    env_list,
    env_rate,
    env_str,
)

PROJECT_DIR = Path(__file__).resolve().parents[2]
STRONG_KEY = "x7Qp2LrT9vWz4mKc8NbJ5hYdF3gSaE6uRtXo1iVnBlCkMwZqPj0sDfGhUyTeRwQa"


def run_manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SECURE_", "DEBUG", "SECRET_KEY"))}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=PROJECT_DIR,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_env_bool_reads_the_usual_spellings(monkeypatch):
    for text, expected in [("true", True), ("1", True), ("ON", True), ("no", False), ("0", False)]:
        monkeypatch.setenv("SOME_FLAG", text)
        assert env_bool("SOME_FLAG", not expected) is expected


def test_env_bool_rejects_maybe_naming_the_variable_and_the_value(monkeypatch):
    monkeypatch.setenv("SOME_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match=r"SOME_FLAG='maybe' is not a boolean"):
        env_bool("SOME_FLAG", False)


def test_env_int_rejects_words_and_numbers_below_the_minimum(monkeypatch):
    monkeypatch.setenv("SOME_NUMBER", "ten")
    with pytest.raises(ImproperlyConfigured, match="SOME_NUMBER='ten' is not a whole number"):
        env_int("SOME_NUMBER", 1)
    monkeypatch.setenv("SOME_NUMBER", "-1")
    with pytest.raises(ImproperlyConfigured, match="at least 0"):
        env_int("SOME_NUMBER", 1, minimum=0)


def test_unset_or_blank_variables_take_the_default(monkeypatch):
    monkeypatch.delenv("SOME_TEXT", raising=False)
    assert env_str("SOME_TEXT", "fallback") == "fallback"
    monkeypatch.setenv("SOME_TEXT", "  ")
    assert env_str("SOME_TEXT", "fallback") == "fallback"
    assert env_list("SOME_TEXT", ["a"]) == ["a"]


def test_env_list_splits_on_commas_and_drops_blanks(monkeypatch):
    monkeypatch.setenv("SOME_LIST", "a.example, b.example,,")
    assert env_list("SOME_LIST", []) == ["a.example", "b.example"]


def test_env_rate_accepts_drf_rates_and_rejects_others(monkeypatch):
    monkeypatch.setenv("SOME_RATE", "5/minute")
    assert env_rate("SOME_RATE", "1/day") == "5/minute"
    monkeypatch.setenv("SOME_RATE", "lots")
    with pytest.raises(ImproperlyConfigured, match="SOME_RATE='lots' is not a rate"):
        env_rate("SOME_RATE", "1/day")


def test_start_up_stops_with_a_clear_message_when_debug_is_maybe():
    result = run_manage("check", DEBUG="maybe")
    assert result.returncode != 0
    assert "DEBUG='maybe' is not a boolean" in result.stderr


def test_start_up_stops_when_debug_is_off_and_there_is_no_secret_key():
    result = run_manage("check", DEBUG="false")
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr


def test_start_up_stops_on_a_database_url_it_cannot_use_without_echoing_the_password():
    result = run_manage("check", DATABASE_URL="nosuchdb://user:hunter2@host/db")
    assert result.returncode != 0
    assert "DATABASE_URL=" in result.stderr
    assert "hunter2" not in result.stderr


def test_start_up_stops_on_a_broker_url_celery_cannot_use():
    result = run_manage("check", CELERY_BROKER_URL="nonsense")
    assert result.returncode != 0
    assert "CELERY_BROKER_URL='nonsense' is not a broker URL this site can use" in result.stderr
    assert "redis://" in result.stderr


def test_a_refused_broker_url_does_not_echo_its_password():
    result = run_manage("check", CELERY_BROKER_URL="redis://:hunter2@h:6379/0;kafka://u:hunter3@h/")
    assert result.returncode != 0
    assert "CELERY_BROKER_URL=" in result.stderr
    assert "hunter2" not in result.stderr and "hunter3" not in result.stderr


def test_every_documented_broker_scheme_is_accepted_and_failover_lists_too(monkeypatch):
    for scheme in BROKER_SCHEMES:
        monkeypatch.setenv("SOME_BROKER", f"{scheme}://host:1234/0")
        assert env_broker_url("SOME_BROKER", "memory://") == f"{scheme}://host:1234/0"
    monkeypatch.setenv("SOME_BROKER", "amqp://a:5672//;amqp://b:5672//")
    assert env_broker_url("SOME_BROKER", "memory://") == "amqp://a:5672//;amqp://b:5672//"
    for bad in ["redis", "redis:/host", "sqs://", "amqp://a;", "http://host"]:
        monkeypatch.setenv("SOME_BROKER", bad)
        with pytest.raises(ImproperlyConfigured, match="is not a broker URL"):
            env_broker_url("SOME_BROKER", "memory://")


def test_start_up_stops_on_an_email_backend_that_does_not_import():
    result = run_manage("check", EMAIL_BACKEND="no.such.Backend")
    assert result.returncode != 0
    assert "EMAIL_BACKEND='no.such.Backend' cannot be imported" in result.stderr


def test_env_class_refuses_something_that_imports_but_is_not_such_a_class(monkeypatch):
    monkeypatch.setenv("SOME_BACKEND", "django.core.mail.send_mail")
    with pytest.raises(ImproperlyConfigured, match="SOME_BACKEND='django.core.mail.send_mail' is not a class"):
        env_class("SOME_BACKEND", "x", must_have="send_messages")
    monkeypatch.setenv("SOME_BACKEND", "django.core.mail.backends.smtp.EmailBackend")
    assert env_class("SOME_BACKEND", "x", must_have="send_messages") == "django.core.mail.backends.smtp.EmailBackend"


def test_deploy_check_is_clean_with_production_settings():
    # The README's production list: PostgreSQL, Redis as broker and cache, email sent by SMTP.
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="false",
        SECRET_KEY=STRONG_KEY,
        ALLOWED_HOSTS="splendor.example",
        SITE_URL="https://splendor.example",
        DATABASE_URL="postgres://splendor:a-long-database-password@127.0.0.1:5432/splendor",
        CELERY_BROKER_URL="redis://127.0.0.1:6379/0",
        CACHE_URL="redis://127.0.0.1:6379/1",
        EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
        METRICS_TOKEN="a-scrape-token-long-enough-to-pass",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def settings_of(*names: str, **env: str) -> dict[str, Any]:
    """The named settings as a fresh process with ``env`` loads them."""
    code = f"import json; from django.conf import settings; print(json.dumps({{n: getattr(settings, n) for n in {names!r}}}))"
    result = run_manage("shell", "-c", code, **env)
    assert result.returncode == 0, result.stderr
    return dict(json.loads(result.stdout.strip().splitlines()[-1]))


HTTPS_SETTINGS = (
    "SECURE_SSL_REDIRECT",
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
)
OFF = {
    "SECURE_SSL_REDIRECT": False,
    "SESSION_COOKIE_SECURE": False,
    "CSRF_COOKIE_SECURE": False,
    "SECURE_HSTS_SECONDS": 0,
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": False,
    "SECURE_HSTS_PRELOAD": False,
}


def test_a_trial_over_plain_http_with_debug_off_needs_no_https_setting():
    found = settings_of(*HTTPS_SETTINGS, DEBUG="false", SECRET_KEY=STRONG_KEY, SITE_URL="http://127.0.0.1:8123")
    assert found == OFF


def test_a_site_on_https_with_debug_off_has_every_https_protection_by_default():
    found = settings_of(*HTTPS_SETTINGS, DEBUG="false", SECRET_KEY=STRONG_KEY, SITE_URL="https://splendor.example")
    assert found == {
        "SECURE_SSL_REDIRECT": True,
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "SECURE_HSTS_SECONDS": 31536000,
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": True,
        "SECURE_HSTS_PRELOAD": True,
    }


def test_with_debug_on_the_https_protections_are_off_even_for_an_https_site_url():
    assert settings_of(*HTTPS_SETTINGS, DEBUG="true", SITE_URL="https://splendor.example") == OFF


def test_each_https_protection_can_still_be_set_whatever_the_site_url_says():
    on_http = settings_of(
        *HTTPS_SETTINGS, DEBUG="false", SECRET_KEY=STRONG_KEY, SITE_URL="http://127.0.0.1:8123",
        SECURE_SSL_REDIRECT="true", SESSION_COOKIE_SECURE="true", SECURE_HSTS_SECONDS="60",
    )  # fmt: skip
    assert on_http == {**OFF, "SECURE_SSL_REDIRECT": True, "SESSION_COOKIE_SECURE": True, "SECURE_HSTS_SECONDS": 60}
    on_https = settings_of(
        *HTTPS_SETTINGS, DEBUG="false", SECRET_KEY=STRONG_KEY, SITE_URL="https://splendor.example",
        CSRF_COOKIE_SECURE="false", SECURE_HSTS_PRELOAD="no",
    )  # fmt: skip
    assert on_https["CSRF_COOKIE_SECURE"] is False and on_https["SECURE_HSTS_PRELOAD"] is False
    assert on_https["SECURE_SSL_REDIRECT"] is True


def test_the_deploy_check_says_the_https_protections_are_off_because_site_url_is_http():
    result = run_manage(
        "check", "--deploy", DEBUG="false", SECRET_KEY=STRONG_KEY, ALLOWED_HOSTS="127.0.0.1",
        SITE_URL="http://127.0.0.1:8123",
    )  # fmt: skip
    warning = next((line for line in result.stderr.splitlines() if "(splendor.W001)" in line), None)
    assert warning is not None, result.stdout + result.stderr
    assert "SITE_URL is http://127.0.0.1:8123, an http address, so the https protections are off" in warning
    assert "SECURE_SSL_REDIRECT" in warning and "SECURE_HSTS_SECONDS" in warning


def test_the_plain_check_does_not_warn_about_an_http_site_url():
    # `manage.py check` (no --deploy) runs on every start: a development server on
    # http://127.0.0.1:8000 hears nothing about https.
    result = run_manage("check", SITE_URL="http://127.0.0.1:8000")
    assert result.returncode == 0 and "splendor.W001" not in result.stdout + result.stderr


def test_with_debug_off_static_files_get_hashed_compressed_names_and_are_served_by_the_site():
    found = settings_of("STORAGES", "MIDDLEWARE", DEBUG="false", SECRET_KEY=STRONG_KEY)
    assert found["STORAGES"]["staticfiles"]["BACKEND"] == "whitenoise.storage.CompressedManifestStaticFilesStorage"
    middleware = found["MIDDLEWARE"]
    assert middleware[:2] == ["django.middleware.security.SecurityMiddleware", "whitenoise.middleware.WhiteNoiseMiddleware"]


def test_with_debug_on_static_files_keep_their_plain_names_with_no_collectstatic():
    found = settings_of("STORAGES", "WHITENOISE_USE_FINDERS", "WHITENOISE_AUTOREFRESH", DEBUG="true")
    assert found["STORAGES"]["staticfiles"]["BACKEND"] == "django.contrib.staticfiles.storage.StaticFilesStorage"
    assert found["WHITENOISE_USE_FINDERS"] is True and found["WHITENOISE_AUTOREFRESH"] is True


def test_sqlite_connections_wait_for_the_write_lock_instead_of_failing(tmp_path):
    result = run_manage(
        "shell",
        "-c",
        "from django.conf import settings; print(settings.DATABASES['default']['OPTIONS'])",
        DATABASE_URL=f"sqlite:///{tmp_path / 'site.sqlite3'}",
    )
    assert result.returncode == 0, result.stderr
    assert "'transaction_mode': 'IMMEDIATE'" in result.stdout
    assert "'timeout': 20" in result.stdout
    assert "journal_mode=WAL" in result.stdout


def test_start_up_stops_on_a_trusted_relay_that_is_no_address():
    result = run_manage("check", INBOUND_TRUSTED_RELAYS="127.0.0.1, mx.example.com")
    assert result.returncode != 0
    assert "INBOUND_TRUSTED_RELAYS: 'mx.example.com' is not an address or a network" in result.stderr


def test_env_fraction_takes_a_share_above_0_up_to_1(monkeypatch):
    monkeypatch.setenv("SHARE", "0.25")
    assert env_fraction("SHARE", 0.1) == 0.25
    monkeypatch.delenv("SHARE")
    assert env_fraction("SHARE", 0.1) == 0.1
    for bad in ("0", "-0.1", "1.5", "nan", "ten percent"):
        monkeypatch.setenv("SHARE", bad)
        with pytest.raises(ImproperlyConfigured, match=f"SHARE={bad!r}"):
            env_fraction("SHARE", 0.1)


def test_start_up_stops_on_a_mistake_drop_that_is_no_share():
    result = run_manage("check", REVIEW_MISTAKE_DROP="10%")
    assert result.returncode != 0
    assert "REVIEW_MISTAKE_DROP='10%' is not a number" in result.stderr
    result = run_manage("check", REVIEW_PLAYOUTS="0")
    assert result.returncode != 0
    assert "REVIEW_PLAYOUTS='0' must be at least 1" in result.stderr

