"""`manage.py check --deploy` warns about each setting that suits one machine and
not a site that serves people, each under its own id and saying what to set
instead; a production environment gets none of them
(tests/site/test_settings_from_environment.py, tests/site/test_deploy_doc.py)."""

from __future__ import annotations

from typing import Any

import pytest

from splendor_site.checks import settings_for_one_machine
from tests.site.test_settings_from_environment import STRONG_KEY, run_manage

# What a production environment sets; each test below changes one thing.
PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": STRONG_KEY,
    "ALLOWED_HOSTS": "splendor.example",
    "SITE_URL": "https://splendor.example",
    "DATABASE_URL": "postgres://splendor:a-long-database-password@127.0.0.1:5432/splendor",
    "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
    "CACHE_URL": "redis://127.0.0.1:6379/1",
    "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
    "METRICS_TOKEN": "a-scrape-token-long-enough-to-pass",
}

# One environment with every such setting, as a trial on one machine might have.
TRIAL = {
    **PRODUCTION,
    "WEBHOOKS_ALLOW_LOOPBACK": "true",
    "GAME_CLOCK_SECONDS": "true",
    "DATABASE_URL": "sqlite:///trial.sqlite3",
    "CELERY_BROKER_URL": "filesystem://",
    "CACHE_URL": "locmem://",
    "EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend",
    "ALLOWED_HOSTS": "*",
    "INBOUND_REQUIRE_AUTHENTICATION": "false",
    "METRICS_ALLOWED_NETWORKS": "0.0.0.0/0",
    "TRUSTED_PROXIES": "1",
}

# Each id, with words of its message and of its hint (what to set instead).
EXPECTED = {
    "splendor.W010": ("WEBHOOKS_ALLOW_LOOPBACK is on", "Unset WEBHOOKS_ALLOW_LOOPBACK"),
    "splendor.W011": ("GAME_CLOCK_SECONDS is on", "Unset GAME_CLOCK_SECONDS"),
    "splendor.W012": ("DATABASE_URL names SQLite", "Set DATABASE_URL to a PostgreSQL database"),
    "splendor.W013": ("CELERY_BROKER_URL is filesystem://", "Set CELERY_BROKER_URL to a Redis"),
    "splendor.W014": ("CACHE_URL is locmem://", "Set CACHE_URL to a Redis"),
    "splendor.W015": (
        "EMAIL_BACKEND is django.core.mail.backends.console.EmailBackend",
        "Set EMAIL_BACKEND=django.core.mail.backends.smtp.EmailBackend",
    ),
    "splendor.W016": ("ALLOWED_HOSTS holds '*'", "Set ALLOWED_HOSTS to the site's own host names"),
    "splendor.W020": ("INBOUND_REQUIRE_AUTHENTICATION is off", "Unset INBOUND_REQUIRE_AUTHENTICATION"),
    "splendor.W021": ("METRICS_ALLOWED_NETWORKS lets public addresses read /metrics (0.0.0.0/0)",
                      "Allow only your scraper's private networks"),
    "splendor.W022": ("METRICS_ALLOWED_NETWORKS holds this machine's loopback (0.0.0.0/0) while TRUSTED_PROXIES",
                      "Take loopback out of METRICS_ALLOWED_NETWORKS"),
}


def warnings_by_id(output: str) -> dict[str, str]:
    """Each splendor warning's line with the HINT line after it."""
    lines = output.splitlines()
    found = {}
    for number, line in enumerate(lines):
        for check_id in EXPECTED:
            if f"({check_id})" in line:
                hint = lines[number + 1] if number + 1 < len(lines) else ""
                found[check_id] = line + "\n" + hint
    return found


def test_the_deploy_check_warns_about_each_setting_for_one_machine_with_its_own_id_and_what_to_set() -> None:
    result = run_manage("check", "--deploy", **TRIAL)
    found = warnings_by_id(result.stderr)
    assert set(found) == set(EXPECTED), result.stdout + result.stderr
    for check_id, (message, hint) in EXPECTED.items():
        assert message in found[check_id] and "HINT: " + hint in found[check_id], found[check_id]


def test_the_plain_check_run_at_every_start_says_nothing_of_them() -> None:
    result = run_manage("check", **TRIAL)
    output = result.stdout + result.stderr
    assert result.returncode == 0 and "splendor.W01" not in output and "splendor.W02" not in output


def ids(settings: Any, **changes: Any) -> set[str]:
    """The ids the check gives with ``changes`` made to the test's settings."""
    for name, value in changes.items():
        setattr(settings, name, value)
    return {warning.id for warning in settings_for_one_machine(None)}


@pytest.mark.parametrize("broker", ["memory://", "filesystem://", "redis://a:6379/0;filesystem://"])
def test_a_broker_that_reaches_no_other_machine_is_warned_about(settings: Any, broker: str) -> None:
    assert "splendor.W013" in ids(settings, CELERY_BROKER_URL=broker)
    assert "splendor.W013" not in ids(settings, CELERY_BROKER_URL="redis://a:6379/0;redis://b:6379/0")


@pytest.mark.parametrize(
    "backend",
    [
        "django.core.mail.backends.console.EmailBackend",
        "django.core.mail.backends.filebased.EmailBackend",
        "django.core.mail.backends.locmem.EmailBackend",
        "django.core.mail.backends.dummy.EmailBackend",
    ],
)
def test_an_email_backend_that_sends_nothing_is_warned_about(settings: Any, backend: str) -> None:
    assert "splendor.W015" in ids(settings, EMAIL_BACKEND=backend)
    assert "splendor.W015" not in ids(settings, EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend")


def test_a_star_among_other_allowed_hosts_is_still_warned_about(settings: Any) -> None:
    assert "splendor.W016" in ids(settings, ALLOWED_HOSTS=["splendor.example", "*"])
    assert "splendor.W016" not in ids(settings, ALLOWED_HOSTS=["splendor.example", ".splendor.example"])


def test_email_commands_acting_on_the_from_header_alone_are_warned_about(settings: Any) -> None:
    assert "splendor.W020" in ids(settings, INBOUND_REQUIRE_AUTHENTICATION=False)
    assert "splendor.W020" not in ids(settings, INBOUND_REQUIRE_AUTHENTICATION=True)


def test_metrics_readable_from_public_addresses_or_with_a_short_token_are_warned_about(settings: Any) -> None:
    import ipaddress

    private = [ipaddress.ip_network("10.0.0.0/8"), ipaddress.ip_network("127.0.0.1/32")]
    assert "splendor.W021" not in ids(settings, METRICS_ALLOWED_NETWORKS=private, METRICS_TOKEN="")
    assert "splendor.W021" in ids(settings, METRICS_ALLOWED_NETWORKS=[ipaddress.ip_network("52.0.0.0/8")])
    assert "splendor.W021" in ids(settings, METRICS_ALLOWED_NETWORKS=private, METRICS_TOKEN="short")
    assert "splendor.W021" not in ids(settings, METRICS_ALLOWED_NETWORKS=private, METRICS_TOKEN="x" * 32)


def test_metrics_that_nobody_may_read_are_warned_about(settings: Any) -> None:
    import ipaddress

    assert "splendor.W022" in ids(settings, METRICS_TOKEN="", METRICS_ALLOWED_NETWORKS=[])
    assert "splendor.W022" not in ids(settings, METRICS_TOKEN="x" * 32, METRICS_ALLOWED_NETWORKS=[])
    assert "splendor.W022" not in ids(
        settings, METRICS_TOKEN="", METRICS_ALLOWED_NETWORKS=[ipaddress.ip_network("10.0.0.0/8")], TRUSTED_PROXIES=1
    )


@pytest.mark.parametrize("loopback", ["127.0.0.1/32", "127.0.0.0/8", "::1/128", "0.0.0.0/0"])
def test_metrics_networks_holding_loopback_behind_a_proxy_are_warned_about(settings: Any, loopback: str) -> None:
    import ipaddress

    networks = [ipaddress.ip_network("10.0.0.0/8"), ipaddress.ip_network(loopback)]
    assert "splendor.W022" in ids(settings, METRICS_TOKEN="", METRICS_ALLOWED_NETWORKS=networks, TRUSTED_PROXIES=1)
    assert "splendor.W022" in ids(
        settings, METRICS_ALLOWED_NETWORKS=networks, TRUSTED_PROXIES=[ipaddress.ip_network("192.168.0.0/16")]
    )
    assert "splendor.W022" not in ids(settings, METRICS_ALLOWED_NETWORKS=networks, TRUSTED_PROXIES=0)
