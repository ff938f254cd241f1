"""The embedded brokers (filesystem://, the default, and memory://) start without
kombu's "No hostname was supplied" warning: their URLs name no host, and the
site's Celery app writes out the one kombu would fill in. A normal run logs no
warning."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from splendor_site.celery import app, broker_url_for_kombu
from tests.site.test_settings_from_environment import run_manage

NO_HOSTNAME = "No hostname was supplied"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("filesystem://", "filesystem://localhost"),
        ("memory://", "memory://localhost"),
        ("memory:///", "memory://localhost/"),
        ("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"),
        ("filesystem://somewhere/", "filesystem://somewhere/"),
        ("redis://a:6379/0;filesystem://", "redis://a:6379/0;filesystem://localhost"),
    ],
)
def test_only_an_embedded_broker_url_without_a_host_is_given_one(url: str, expected: str) -> None:
    assert broker_url_for_kombu(url) == expected


def test_the_filesystem_broker_connects_clones_and_pools_without_a_warning(
    tmp_path: Path, caplog: Any
) -> None:
    folders = {"data_folder_in": str(tmp_path), "data_folder_out": str(tmp_path), "processed_folder": str(tmp_path)}
    caplog.set_level(logging.WARNING)
    for connection in (
        app.connection_for_write("filesystem://", transport_options=folders),
        app.connection_for_read("filesystem://", transport_options=folders),
    ):
        with connection:
            connection.ensure_connection(max_retries=1)
            connection.clone().release()
            with connection.Pool(2).acquire(block=True):
                pass
    assert NO_HOSTNAME not in caplog.text
    assert [record for record in caplog.records if record.name.startswith("kombu")] == []


def test_the_in_process_broker_connects_and_clones_without_a_warning(caplog: Any) -> None:
    caplog.set_level(logging.WARNING)
    with app.connection() as connection:  # the test settings' memory://
        connection.ensure_connection(max_retries=1)
        connection.clone().release()
    with app.pool.acquire(block=True):
        pass
    assert NO_HOSTNAME not in caplog.text


def test_the_default_broker_publishes_a_task_in_a_new_process_without_a_warning(tmp_path: Path) -> None:
    publish = (
        "from splendor_site.celery import app, broker_folders_make; broker_folders_make(); "
        "app.send_task('notifications.tasks.send_due', retry=False); "
        "print(app.conf.broker_url)"
    )
    result = run_manage(
        "shell", "-c", publish,
        CELERY_BROKER_URL="", CELERY_TASK_ALWAYS_EAGER="", VAR_DIR=str(tmp_path),
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "filesystem://"  # the setting as documented
    assert NO_HOSTNAME not in result.stderr + result.stdout
    assert any((tmp_path / "broker" / "queue").iterdir())  # the task was published
