"""Personas of the reviews tests.

- alice plays the finished games and asks for their reviews.
- bob is her opponent.
- charlie watches alice's public games: he may see them, and asks for a review
  alice already asked for (shared, free).
- dave is the third seat of a three-player game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any

import pytest

from tests.reviews.review_helpers import Sent


@pytest.fixture(autouse=True)
def _no_throttling(settings: Any) -> None:
    """Many API calls in one test; the site-wide rate limit is tested elsewhere."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "100000/minute", "user": "100000/minute"},
    }


@pytest.fixture
def commit(django_capture_on_commit_callbacks: Any) -> Callable[[], AbstractContextManager[Any]]:
    """``with commit(): ...``: what the block queues on commit (the review's tasks,
    inline in the tests, each queueing the next) runs when it ends."""

    def run() -> AbstractContextManager[Any]:
        return django_capture_on_commit_callbacks(execute=True)  # type: ignore[no-any-return]

    return run


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Iterator[Sent]:
    """The review tasks queued, kept rather than run (reviews.services queues by name)."""
    recorder = Sent()
    monkeypatch.setattr("reviews.services.task_send", recorder)
    yield recorder
