"""A review's tasks (reviews.tasks, reviews.services): one position per task, stored
once however often a task runs, the next queued by the run that stored it, a lost
task queued again by the beat's sweep, a failing search failing the review; and
the metrics of the reviews that end."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone

from reviews import errors, services, tasks
from reviews.models import GameReview, ReviewPosition, ReviewStart
from tests.metrics_helpers import value
from tests.reviews.review_helpers import Sent, finished_game
from tests.site.test_task_queues import queue_of

pytestmark = pytest.mark.django_db

TASK = "reviews.tasks.bot_review_position"


@pytest.fixture
def asked(alice: Any, bob: Any, commit: Any, sent: Sent) -> GameReview:
    """A finished game's review alice asked for, its first task queued and not yet run."""
    game = finished_game(alice, [bob])
    with commit():
        services.review_request(game_id=game.pk, user=alice)
    return GameReview.objects.get(game=game)


def test_the_task_takes_the_reviews_id_and_the_ply_and_nothing_of_the_game(asked: GameReview, sent: Sent) -> None:
    assert sent.messages == [(TASK, (asked.pk, 0))]
    assert all(isinstance(arg, int) for _, args in sent.messages for arg in args)


def test_running_a_positions_task_twice_stores_it_once_and_queues_the_next_once(
    asked: GameReview, commit: Any, sent: Sent
) -> None:
    sent.messages.clear()
    with commit():
        assert tasks.bot_review_position(asked.pk, 0) is True
    with commit():
        assert tasks.bot_review_position(asked.pk, 0) is False
    assert ReviewPosition.objects.filter(review=asked).count() == 1
    assert sent.messages == [(TASK, (asked.pk, 1))]


def test_a_task_that_lost_the_race_to_store_its_position_queues_nothing(
    asked: GameReview, commit: Any, sent: Sent, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent.messages.clear()
    search = services._search

    def stored_meanwhile(review: GameReview, ply: int) -> Any:
        found = search(review, ply)
        # Another run of the same task stores the position while this one searches.
        ReviewPosition.objects.create(review=review, ply=ply, seat=0, move="x", before=[1, 0], after=[1, 0], drop=0)
        return found

    monkeypatch.setattr(services, "_search", stored_meanwhile)
    with commit():
        assert services.review_position_search(review_id=asked.pk, ply=0) is False
    assert ReviewPosition.objects.filter(review=asked, ply=0).count() == 1
    assert sent.messages == []  # the other run queues the next; this one queues nothing


def test_the_last_position_ends_the_review_and_counts_it_with_its_run_time(
    asked: GameReview, commit: Any, sent: Sent
) -> None:
    done_before = value("splendor_reviews_total", outcome="done")
    timed_before = value("splendor_review_duration_seconds_count", outcome="done")
    while sent.messages:
        with commit():
            sent.run_next()
    asked.refresh_from_db()
    assert asked.status == GameReview.Status.DONE and asked.finished_at is not None
    assert ReviewPosition.objects.filter(review=asked).count() == asked.positions_total
    assert value("splendor_reviews_total", outcome="done") == done_before + 1
    assert value("splendor_review_duration_seconds_count", outcome="done") == timed_before + 1
    assert value("splendor_review_search_seconds_sum", outcome="done") > 0


def test_the_sweep_queues_again_a_review_whose_task_was_lost(asked: GameReview, commit: Any, sent: Sent) -> None:
    with commit():
        sent.run_next()
    sent.messages.clear()  # the task of ply 1 never reached a worker
    assert services.reviews_requeue() == 0  # not stale yet
    later = timezone.now() + timedelta(seconds=601)
    with commit():
        assert services.reviews_requeue(now=later) == 1
    assert sent.messages == [(TASK, (asked.pk, 1))]
    with commit():
        assert services.reviews_requeue(now=later + timedelta(seconds=1)) == 0  # claimed: queued once
    assert len(sent.messages) == 1


def test_the_sweep_ends_a_review_whose_positions_are_all_stored(asked: GameReview, commit: Any, sent: Sent) -> None:
    while sent.messages:
        with commit():
            sent.run_next()
    GameReview.objects.filter(pk=asked.pk).update(status=GameReview.Status.PENDING, finished_at=None)
    with commit():
        assert services.reviews_requeue(now=timezone.now() + timedelta(hours=1)) == 1
    assert sent.messages == []
    assert GameReview.objects.get(pk=asked.pk).status == GameReview.Status.DONE


def test_a_search_that_raises_fails_the_review_and_counts_it(
    asked: GameReview, commit: Any, sent: Sent, monkeypatch: pytest.MonkeyPatch, alice: Any
) -> None:
    failed_before = value("splendor_reviews_total", outcome="failed")

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the search broke")

    monkeypatch.setattr(services, "review_position", broken)
    with commit():
        assert sent.run_next()
    asked.refresh_from_db()
    assert asked.status == GameReview.Status.FAILED
    assert asked.failure == "RuntimeError at ply 0"
    assert sent.messages == []
    assert value("splendor_reviews_total", outcome="failed") == failed_before + 1

    monkeypatch.undo()
    monkeypatch.setattr("reviews.services.task_send", sent)
    with commit():
        services.review_request(game_id=asked.game_id, user=alice)  # asked again: started again
    asked.refresh_from_db()
    assert asked.status == GameReview.Status.PENDING and asked.failure == ""
    assert sent.messages == [(TASK, (asked.pk, 0))]


def test_a_task_for_a_review_that_is_gone_does_nothing(asked: GameReview, commit: Any, sent: Sent) -> None:
    sent.messages.clear()
    GameReview.objects.filter(pk=asked.pk).delete()
    with commit():
        assert tasks.bot_review_position(asked.pk, 0) is False
    assert sent.messages == [] and not ReviewPosition.objects.exists()


def test_the_seed_of_a_position_is_made_from_the_games_id_and_the_ply_not_from_the_deal(asked: GameReview) -> None:
    game = asked.game
    seed = services.review_seed(game_id=game.pk, ply=3)
    assert seed == services.review_seed(game_id=game.pk, ply=3)
    assert seed != services.review_seed(game_id=game.pk, ply=4)
    assert str(seed) != game.seed and str(seed) not in game.seed


def test_a_reviews_positions_go_to_the_bots_queue_and_its_sweep_to_beats() -> None:
    assert queue_of("reviews.tasks.bot_review_position") == "bots"
    sweep = settings.CELERY_BEAT_SCHEDULE["reviews-requeue"]
    assert sweep["task"] == "reviews.tasks.requeue_reviews"
    assert queue_of(sweep["task"], sweep["options"]) == "beat"


def test_each_start_of_a_failed_review_counts_against_reviews_per_day(
    asked: GameReview, commit: Any, sent: Sent, monkeypatch: pytest.MonkeyPatch, alice: Any, bob: Any, settings: Any
) -> None:
    settings.REVIEWS_PER_DAY = 3  # the fixture's first start is one of them

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the search broke")

    monkeypatch.setattr(services, "review_position", broken)
    for _ in range(2):  # fails, started again: the second and the third start
        with commit():
            assert sent.run_next()
        assert GameReview.objects.get(pk=asked.pk).status == GameReview.Status.FAILED
        with commit():
            services.review_request(game_id=asked.game_id, user=alice)
    with commit():
        assert sent.run_next()
    assert GameReview.objects.get(pk=asked.pk).status == GameReview.Status.FAILED
    # A fourth start, of this review or of another game's, is refused.
    with pytest.raises(errors.TooManyReviews):
        services.review_request(game_id=asked.game_id, user=alice)
    with pytest.raises(errors.TooManyReviews):
        services.review_request(game_id=finished_game(alice, [bob]).pk, user=alice)
    assert GameReview.objects.get(pk=asked.pk).status == GameReview.Status.FAILED
    assert ReviewStart.objects.filter(user=alice).count() == 3
