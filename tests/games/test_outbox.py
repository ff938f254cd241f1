"""The outbox: GameEvent rows are the one way news leaves the games app.

Each consumer claims each event for itself (a GameEventClaim row), is run on
the events of a change once it commits, and gets what it missed from the
periodic redelivery. Recording extensions stand in for the real consumers
(email, webhooks, ratings), which register themselves the same way.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from tests.games.game_helpers import make_player, play_moves, start_two_player_game, user_to_move

from games import selectors, services
from games.extensions import GameExtension
from games.services import outbox
from games.models import Game, GameEvent, GameEventClaim

RECEIVED: list[tuple[str, int]] = []


class Recording(GameExtension):
    """A consumer that records each event it is given, by its own name."""

    name = "recording"

    def __init__(self, name: str, received: list[tuple[str, int]]) -> None:
        self.name = name  # type: ignore[misc]
        self.received = received

    def handle_event(self, event: GameEvent) -> None:
        self.received.append((self.name, event.pk))


class Broken(Recording):
    def handle_event(self, event: GameEvent) -> None:
        raise ConnectionError("the consumer's own mail server")


@pytest.fixture
def two_consumers(game_extensions: Any) -> list[tuple[str, int]]:
    RECEIVED.clear()
    game_extensions.use(Recording("first", RECEIVED), Recording("second", RECEIVED))
    return RECEIVED


def test_a_committed_change_reaches_every_consumer_once_per_event(
    two_consumers: list[tuple[str, int]], alice: Any, bob: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        game = start_two_player_game(alice, bob)
    events = list(GameEvent.objects.filter(game=game).values_list("pk", flat=True))
    assert len(events) == 3
    assert sorted(two_consumers) == sorted([("first", e) for e in events] + [("second", e) for e in events])
    assert GameEventClaim.objects.filter(done_at__isnull=False).count() == 6


def test_a_rolled_back_change_queues_nothing(
    two_consumers: list[tuple[str, int]], alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(RuntimeError):
            with transaction.atomic():
                services.game_create(creator=alice, seats=2)
                raise RuntimeError("roll back")
    assert callbacks == [] and two_consumers == []
    assert not GameEvent.objects.exists()


def test_an_event_is_claimed_by_exactly_one_worker_per_consumer(active_game: Game) -> None:
    event = GameEvent.objects.filter(game=active_game).first()
    assert event is not None
    assert services.game_event_claim(event_id=event.pk, consumer="email") is True
    assert services.game_event_claim(event_id=event.pk, consumer="email") is False
    # Another consumer's claim is its own.
    assert services.game_event_claim(event_id=event.pk, consumer="ratings") is True


def test_a_claim_left_unfinished_past_its_lease_is_taken_again(active_game: Game) -> None:
    event = GameEvent.objects.filter(game=active_game).first()
    assert event is not None
    assert services.game_event_claim(event_id=event.pk, consumer="email") is True
    later = timezone.now() + timedelta(seconds=settings.OUTBOX_CLAIM_LEASE_SECONDS) + timedelta(seconds=1)
    assert services.game_event_claim(event_id=event.pk, consumer="email", now=later) is True
    assert GameEventClaim.objects.get(event=event, consumer="email").attempts == 2
    # A finished claim is never taken again, however late.
    services.game_event_done(event_id=event.pk, consumer="email")
    assert services.game_event_claim(event_id=event.pk, consumer="email", now=later + timedelta(days=1)) is False


def test_a_consumer_that_fails_leaves_the_event_to_be_offered_again(active_game: Game) -> None:
    event = GameEvent.objects.filter(game=active_game).first()
    assert event is not None

    def crash(_: GameEvent) -> None:
        raise ConnectionError("SMTP server went away")

    with pytest.raises(ConnectionError):
        services.game_event_consume(event_id=event.pk, consumer="email", handle=crash)
    claim = GameEventClaim.objects.get(event=event, consumer="email")
    assert claim.done_at is None
    later = timezone.now() + timedelta(seconds=settings.OUTBOX_CLAIM_LEASE_SECONDS) + timedelta(minutes=1)
    pending = selectors.game_events_pending(
        consumer="email", created_before=later, claimed_before=later - timedelta(seconds=settings.OUTBOX_CLAIM_LEASE_SECONDS)
    )
    assert event.pk in pending


def test_redelivery_queues_only_what_each_consumer_has_not_finished(
    two_consumers: list[tuple[str, int]], active_game: Game, time_machine: Any
) -> None:
    # The events were written while no consumer was configured: nobody was told.
    assert two_consumers == []
    first_event = GameEvent.objects.filter(game=active_game).first()
    assert first_event is not None
    services.game_event_claim(event_id=first_event.pk, consumer="first")
    services.game_event_done(event_id=first_event.pk, consumer="first")
    time_machine.move_to(timezone.now() + timedelta(minutes=2))

    queued = services.game_events_redeliver()

    # The three events each go once to the task that runs both consumers; the one
    # "first" finished is skipped by "first" there.
    assert queued == 3
    assert ("first", first_event.pk) not in two_consumers
    assert ("second", first_event.pk) in two_consumers
    assert services.game_events_redeliver() == 0


def test_a_broker_that_refuses_the_message_never_fails_the_move(
    settings: Any, active_game: Game, django_capture_on_commit_callbacks: Any, caplog: Any, game_extensions: Any
) -> None:
    game_extensions.use(Broken("email", []))  # it queues work of its own on the broker

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise ConnectionError("broker down")

    from celery import current_app

    original = current_app.send_task
    current_app.send_task = refuse  # type: ignore[method-assign]
    try:
        with django_capture_on_commit_callbacks(execute=True):
            played = services.move_submit(
                game_id=active_game.pk, user=user_to_move(active_game), text="take WUG", expected_version=3
            )
    finally:
        current_app.send_task = original  # type: ignore[method-assign]
    assert played.version == 4
    assert "will be redelivered" in caplog.text


def test_payloads_name_people_by_id_never_by_name_or_address(alice: Any, bob: Any) -> None:
    dave = make_player("dave")
    game = services.game_create(creator=alice, seats=3, invited=[bob])
    services.seat_join(game=game, user=bob)
    services.seat_join(game=game, user=dave)
    game.refresh_from_db()
    play_moves(game, 4)
    services.game_resign(game=game, user=bob)
    payloads = " ".join(str(e.payload) for e in GameEvent.objects.filter(game=game))
    for person in (alice, bob, dave):
        assert person.username not in payloads
        assert person.email not in payloads
        assert person.player.display_name not in payloads
    kinds = set(GameEvent.objects.filter(game=game).values_list("kind", flat=True))
    assert kinds == {"game_created", "seat_joined", "game_started", "move_played", "seat_resigned"}


def test_redelivery_leaves_events_older_than_its_window_alone(
    two_consumers: list[tuple[str, int]], active_game: Game, settings: Any, time_machine: Any
) -> None:
    settings.OUTBOX_REDELIVER_MAX_HOURS = 24
    time_machine.move_to(timezone.now() + timedelta(hours=25))
    # A consumer configured today is not sent yesterday's history.
    assert services.game_events_redeliver() == 0
    assert two_consumers == []


@pytest.fixture
def broker_that_does_not_answer(
    settings: Any, monkeypatch: pytest.MonkeyPatch, game_extensions: Any
) -> list[str]:
    """Four consumers, a broker that takes nothing (as kombu reports a hung or
    stopped Redis), and tasks that really go to it (not eager)."""
    from celery import current_app
    from kombu.exceptions import OperationalError

    game_extensions.use(*(Recording(name, []) for name in ("email", "webhooks", "reminders", "ratings")))
    tried: list[str] = []

    def refuse(name: str, *args: Any, **kwargs: Any) -> None:
        tried.append(name)
        raise OperationalError("Timeout reading from socket")

    app = current_app._get_current_object()
    monkeypatch.setattr(app, "send_task", refuse)
    monkeypatch.setitem(app.conf, "task_always_eager", False)
    monkeypatch.setattr(outbox, "_publish_failed_at", None)
    return tried


def test_a_broker_that_does_not_answer_costs_a_change_one_publish_and_the_outbox_keeps_the_rest(
    broker_that_does_not_answer: list[str], alice: Any, bob: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        game = start_two_player_game(alice, bob)  # three events, four consumers: one message

    assert broker_that_does_not_answer == ["games.tasks.consume_events"]
    assert GameEvent.objects.filter(game=game).count() == 3
    assert not GameEventClaim.objects.exists()  # all left to redelivery


def test_after_a_failed_publish_the_next_changes_do_not_try_the_broker_for_a_while(
    broker_that_does_not_answer: list[str], alice: Any, bob: Any, django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        game = start_two_player_game(alice, bob)
    with django_capture_on_commit_callbacks(execute=True):
        play_moves(game, 2)
    assert broker_that_does_not_answer == ["games.tasks.consume_events"]  # the moves did not wait on it

    # Once the pause is over, the next change tries again.
    monkeypatch.setattr(outbox, "_publish_failed_at", outbox._publish_failed_at - outbox.PUBLISH_PAUSE_SECONDS)
    with django_capture_on_commit_callbacks(execute=True):
        play_moves(game, 1)
    assert broker_that_does_not_answer == ["games.tasks.consume_events", "games.tasks.consume_events"]


def test_a_failing_consumer_run_inline_does_not_keep_the_others_from_their_events(
    settings: Any, alice: Any, bob: Any, django_capture_on_commit_callbacks: Any, two_consumers: list[tuple[str, int]],
    game_extensions: Any,
) -> None:
    # Eager tasks have no broker: an error there is the consumer's, and the next consumer still runs.
    game_extensions.use(Broken("broken", two_consumers), *game_extensions_now())
    with django_capture_on_commit_callbacks(execute=True):
        start_two_player_game(alice, bob)

    assert len([name for name, _ in two_consumers if name == "first"]) == 3


def game_extensions_now() -> tuple[GameExtension, ...]:
    from games.extensions import extensions

    return extensions()


def test_one_task_reads_the_events_of_a_change_once_for_all_its_consumers(
    two_consumers: list[tuple[str, int]], alice: Any, bob: Any
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    game = start_two_player_game(alice, bob)  # written with the consumers not told (no commit here)
    events = list(GameEvent.objects.filter(game=game).values_list("pk", flat=True))
    with CaptureQueriesContext(connection) as queries:
        services.game_events_consume_all(event_ids=events)
    reads = [q["sql"] for q in queries.captured_queries if q["sql"].startswith('SELECT "games_gameevent"')]
    assert len(reads) == 1 and len(events) == 3
    assert sorted(two_consumers) == sorted([("first", e) for e in events] + [("second", e) for e in events])


# --- the consumers' claims taken and done together -------------------------------------------

HANDLED: list[tuple[str, int]] = []


@pytest.fixture
def handled_consumers(game_extensions: Any) -> list[tuple[str, int]]:
    HANDLED.clear()
    game_extensions.use(Recording("first", HANDLED), Broken("broken", HANDLED))
    return HANDLED


def test_registered_handlers_claim_every_event_of_a_change_in_a_few_statements(
    handled_consumers: list[tuple[str, int]], alice: Any, bob: Any
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    game = start_two_player_game(alice, bob)
    events = list(GameEvent.objects.filter(game=game).values_list("pk", flat=True))
    with CaptureQueriesContext(connection) as queries:
        services.game_events_consume_all(event_ids=events)
    claim_statements = [q for q in queries.captured_queries if "games_gameeventclaim" in q["sql"]]
    # insert, retake, read what is held, record done: whatever the number of events.
    assert len(claim_statements) == 4
    assert handled_consumers == [("first", e) for e in events]
    # The failing consumer's claims stay open, to expire and be redelivered; the other's are done.
    assert set(GameEventClaim.objects.filter(done_at__isnull=False).values_list("consumer", flat=True)) == {"first"}
    assert GameEventClaim.objects.filter(consumer="broken", done_at__isnull=True).count() == 3
    # Run again at once: nothing is held by anybody else's lease, nothing is done twice.
    services.game_events_consume_all(event_ids=events)
    assert handled_consumers == [("first", e) for e in events]


def test_a_claim_another_worker_holds_is_left_to_it_until_its_lease_runs_out(
    handled_consumers: list[tuple[str, int]], alice: Any, bob: Any, time_machine: Any
) -> None:
    game = start_two_player_game(alice, bob)
    event = GameEvent.objects.filter(game=game).first()
    assert event is not None
    assert services.game_event_claim(event_id=event.pk, consumer="first")  # another worker's
    services.game_events_consume_all(event_ids=[event.pk])
    assert handled_consumers == []
    time_machine.move_to(timezone.now() + timedelta(seconds=settings.OUTBOX_CLAIM_LEASE_SECONDS + 1))
    services.game_events_consume_all(event_ids=[event.pk])
    assert handled_consumers == [("first", event.pk)]
    assert GameEventClaim.objects.get(event=event, consumer="first").attempts == 2
