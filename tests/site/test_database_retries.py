"""A service's transaction that the database ends for a lock (SQLite busy, a
PostgreSQL deadlock or serialization failure) is run again whole
(core.db.retry_when_database_locked), so that no caller sees a 500 for it."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import OperationalError, connection, transaction

from core.db import _worth_retrying, retry_when_database_locked


class _Cause(Exception):
    def __init__(self, sqlstate: str) -> None:
        super().__init__(sqlstate)
        self.sqlstate = sqlstate


def _wrapped(message: str, sqlstate: str | None = None) -> OperationalError:
    error = OperationalError(message)
    if sqlstate is not None:
        error.__cause__ = _Cause(sqlstate)
    return error


def test_which_errors_are_run_again() -> None:
    assert _worth_retrying("sqlite", _wrapped("database is locked"))
    assert not _worth_retrying("sqlite", _wrapped("no such table: games_game"))
    assert _worth_retrying("postgresql", _wrapped("deadlock detected", "40P01"))
    assert _worth_retrying("postgresql", _wrapped("could not serialize access", "40001"))
    assert not _worth_retrying("postgresql", _wrapped("server closed the connection", "08006"))
    assert not _worth_retrying("postgresql", _wrapped("deadlock detected"))


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_transactions_that_deadlock_on_postgresql_both_end_done() -> None:
    assert connection.vendor == "postgresql"
    users = [get_user_model().objects.create(username=name) for name in ("first", "second")]
    both_hold_one = threading.Barrier(2, timeout=10)
    attempts: dict[str, int] = {"forward": 0, "backward": 0}
    done: dict[str, bool] = {}
    failures: list[BaseException] = []

    @retry_when_database_locked
    def lock_both(name: str, order: list[Any]) -> None:
        attempts[name] += 1
        with transaction.atomic():
            get_user_model().objects.select_for_update().get(pk=order[0].pk)
            if attempts[name] == 1:
                both_hold_one.wait()  # each holds its first row and asks for the other's
            get_user_model().objects.select_for_update().get(pk=order[1].pk)
        done[name] = True

    def run(name: str, order: list[Any]) -> None:
        try:
            lock_both(name, order)
        except BaseException as exc:  # reported below, in the test's thread
            failures.append(exc)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=run, args=("forward", users)),
        threading.Thread(target=run, args=("backward", users[::-1])),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert failures == []
    assert done == {"forward": True, "backward": True}
    # PostgreSQL ended one of the two as a deadlock; it ran again and finished.
    assert sorted(attempts.values()) == [1, 2]
