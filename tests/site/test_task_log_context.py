"""A request's id travels with the tasks it queues (splendor_site.celery): a header
of the message, written when it is published and read back by the worker.

These tests publish for real, to the in-process broker (memory://), and run what
they read back as a worker does (celery.worker.request.Request, which builds the
task's request from the message and runs it through Celery's tracer, signals and
all): eager tasks never make a message, so they would prove nothing about it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
from celery import shared_task
from celery.worker.request import Request

from core.log_context import log_context, log_context_current
from core.queue import task_send
from splendor_site.celery import REQUEST_ID_HEADER, app

SEEN: list[dict[str, object]] = []


@shared_task(name="tests.logs.probe")
def probe(*args: Any) -> None:
    SEEN.append(dict(log_context_current()))
    logging.getLogger("tests.logs.probe").info("probe ran with %s", args)


@pytest.fixture
def published() -> Iterator[Any]:
    """Tasks published to the in-process broker instead of run inline; yields
    a function that reads back the messages of the default queue."""
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = False
    SEEN.clear()
    try:
        with app.connection_for_write() as connection:
            queue = app.amqp.queues[app.conf.task_default_queue](connection.default_channel)
            queue.declare()
            queue.purge()

            def messages() -> list[Any]:
                read = []
                while (message := queue.get(no_ack=False)) is not None:
                    read.append(message)
                return read

            yield messages
            queue.purge()
    finally:
        app.conf.task_always_eager = eager


def run_as_a_worker(message: Any) -> None:
    Request(message, app=app, hostname="test-worker").execute()


def test_a_task_queued_during_a_request_carries_its_id_in_the_message(published: Any) -> None:
    with log_context(request_id="req-5a6b"):
        task_send("tests.logs.probe", 1)
    task_send("tests.logs.probe", 2)  # outside any request: no header
    first, second = published()
    assert first.headers[REQUEST_ID_HEADER] == "req-5a6b"
    assert first.headers["task"] == "tests.logs.probe"
    assert REQUEST_ID_HEADER not in second.headers


def test_the_worker_runs_the_task_with_the_id_the_task_name_and_its_id(
    published: Any, caplog: pytest.LogCaptureFixture, log_format: str
) -> None:
    with log_context(request_id="req-5a6b", game_id="G1"):
        task_send("tests.logs.probe", 1)
    (message,) = published()
    assert log_context_current() == {}  # the worker starts with nothing of the request
    with caplog.at_level(logging.INFO, logger="tests.logs.probe"):
        run_as_a_worker(message)
    task_id = message.headers["id"]
    # The request id came back from the header; the game did not travel (only the request id does).
    assert SEEN == [{"request_id": "req-5a6b", "task": "tests.logs.probe", "task_id": task_id}]
    (line,) = [r for r in caplog.records if r.name == "tests.logs.probe"]
    assert (line.request_id, line.task, line.task_id) == ("req-5a6b", "tests.logs.probe", task_id)  # type: ignore[attr-defined]
    assert "req-5a6b" in caplog.text and task_id in caplog.text
    assert log_context_current() == {}  # task_postrun put it back


def test_a_task_queued_by_a_task_carries_the_same_id(published: Any) -> None:
    @shared_task(name="tests.logs.queues_another")
    def queues_another() -> None:
        task_send("tests.logs.probe", 3)

    with log_context(request_id="req-chain"):
        task_send("tests.logs.queues_another")
    (outer,) = published()
    run_as_a_worker(outer)
    (inner,) = published()
    assert inner.headers[REQUEST_ID_HEADER] == "req-chain"
    run_as_a_worker(inner)
    assert SEEN[-1]["request_id"] == "req-chain" and SEEN[-1]["task_id"] == inner.headers["id"]


def test_a_header_that_is_no_request_id_is_not_taken(published: Any) -> None:
    app.send_task("tests.logs.probe", args=(4,), headers={REQUEST_ID_HEADER: "two words\n"})
    (message,) = published()
    run_as_a_worker(message)
    assert "request_id" not in SEEN[-1]


def test_a_task_run_inline_keeps_the_id_of_the_request_that_runs_it() -> None:
    # Inline whatever an earlier test in this process left the app set to, and
    # through the site's app (task_send uses celery's current app, which a Celery
    # app made by an earlier test would otherwise have become).
    from celery._state import get_current_app

    previous = get_current_app()
    app.set_current()
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    SEEN.clear()
    try:
        with log_context(request_id="req-inline"):
            task_send("tests.logs.probe", 5)  # eager, as in the tests: no message
            assert log_context_current() == {"request_id": "req-inline"}  # the task's fields are gone again
    finally:
        app.conf.task_always_eager = eager
        previous.set_current()
    assert SEEN[0]["request_id"] == "req-inline" and SEEN[0]["task"] == "tests.logs.probe"


# Committed for real (transaction=True): the outbox queues its message when the
# move's transaction commits, inside the request, as in production.
@pytest.mark.django_db(transaction=True)
def test_a_move_through_the_api_reaches_the_outbox_consumers_with_the_requests_id(
    published: Any, settings: Any, alice: Any, bob: Any, game_extensions: Any
) -> None:
    """The request id of a move, through the outbox's message queued on commit
    (games.tasks.consume_events), to a consumer's log context on the worker."""
    import engine
    from games.extensions import GameExtension
    from games.models import GameEvent
    from tests.games.game_helpers import client_for, start_two_player_game, state_of, user_to_move

    seen: list[dict[str, object]] = []

    class Recorder(GameExtension):
        name = "recorder"

        def handle_event(self, event: GameEvent) -> None:
            seen.append(dict(log_context_current()))

    game_extensions.use(Recorder())
    settings.TRUSTED_PROXIES = 1
    game = start_two_player_game(alice, bob)
    published()  # the start's own messages, queued outside any request
    take = next(m for m in map(engine.format_move, engine.legal_moves(state_of(game))) if m.startswith("take "))
    response = client_for(user_to_move(game)).post(
        f"/api/v1/games/{game.pk}/moves/", {"move": take, "expected_version": game.version}, format="json",
        HTTP_X_REQUEST_ID="lb-move-1", REMOTE_ADDR="10.0.0.7",
    )  # fmt: skip
    assert response.status_code == 201, response.content
    assert response["X-Request-ID"] == "lb-move-1"
    (message,) = published()
    assert message.headers["task"] == "games.tasks.consume_events"
    assert message.headers[REQUEST_ID_HEADER] == "lb-move-1"
    run_as_a_worker(message)
    assert seen and all(
        context["request_id"] == "lb-move-1" and context["game_id"] == game.pk
        and context["task"] == "games.tasks.consume_events" and "event_id" in context
        for context in seen
    ), seen  # fmt: skip
