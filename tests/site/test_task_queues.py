"""Each class of work runs on a queue of its own (docs/deploy.md, "Queues"): game
email, the outbox and the stream on ``celery``; webhook attempts on ``webhooks``;
every move a bot makes on ``bots``; the periodic tasks beat sends on ``beat``.

The router is asked as a worker's publisher asks it, with the options beat sends
(its ``expires``), so what is checked is where the message really goes.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from splendor_site.celery import app
from tests.site.test_settings_from_environment import run_manage

# Periodic tasks that are themselves a class's work, and so keep its queue.
# Their attempts wait on receivers: webhook endpoints, and browsers' push services.
PERIODIC_WORK_OF_A_CLASS = {"webhooks.tasks.deliver_due": "webhooks", "notifications.push.tasks.send_due": "webhooks"}


def queue_of(task_name: str, options: dict[str, Any] | None = None) -> str:
    return str(app.amqp.router.route(dict(options or {}), task_name)["queue"].name)


def test_the_four_queues_are_settings_with_their_documented_names() -> None:
    assert (settings.DEFAULT_QUEUE, settings.WEBHOOKS_QUEUE, settings.BOTS_QUEUE, settings.BEAT_QUEUE) == (
        "celery", "webhooks", "bots", "beat",
    )  # fmt: skip
    assert app.conf.task_default_queue == settings.DEFAULT_QUEUE


def test_every_periodic_task_on_the_beat_schedule_runs_on_beats_queue() -> None:
    entries = list(settings.CELERY_BEAT_SCHEDULE.values())
    assert any(entry["task"] == "games.tasks.sweep_deadlines" for entry in entries)
    on_queues = {entry["task"]: queue_of(entry["task"], entry.get("options")) for entry in entries}

    elsewhere = {task: queue for task, queue in on_queues.items() if queue != settings.BEAT_QUEUE}

    assert elsewhere == {t: q for t, q in PERIODIC_WORK_OF_A_CLASS.items() if t in on_queues}
    assert on_queues["games.tasks.sweep_deadlines"] == "beat"
    assert on_queues["notifications.tasks.send_due"] == "beat"
    assert on_queues["games.tasks.redeliver_events"] == "beat"


def test_the_periodic_tasks_keep_their_expiry_on_beats_queue() -> None:
    sweep = settings.CELERY_BEAT_SCHEDULE["games-sweep-deadlines"]
    assert sweep["options"]["expires"] == settings.DEADLINE_SWEEP_SECONDS
    assert queue_of(sweep["task"], sweep["options"]) == "beat"


def test_a_periodic_task_added_by_the_environment_runs_on_beats_queue_too() -> None:
    # The IMAP poll is on the schedule only when a mailbox is set.
    code = (
        "from splendor_site.celery import app; "
        "print(app.amqp.router.route({}, 'notifications.inbound_tasks.poll_imap')['queue'].name)"
    )
    result = run_manage("shell", "-c", code, INBOUND_IMAP_HOST="imap.example.com")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "beat"


def test_every_bot_move_runs_on_the_bots_queue() -> None:
    for task_name in (
        "games.tasks.play_bots",  # a practice game's or a sandbox's bots
        "games.tasks.time_out_game",  # the takeover bot of a missed deadline
        "games.tasks.bot_turns_dispatch",  # the fair dispatcher of due bot turns
        "games.tasks.bot_seat_play",  # any bot task, by its name
    ):
        assert queue_of(task_name) == "bots", task_name


def test_game_email_the_outbox_and_the_stream_stay_on_the_default_queue() -> None:
    for task_name in (
        "games.tasks.consume_events",
        "notifications.tasks.consume_event",
        "notifications.tasks.send_notification",
        "notifications.reminder_tasks.schedule_for_event",
        "notifications.inbound_tasks.process_inbound",
        "chat.tasks.consume_event",
        "leagues.tasks.consume_event",
        "webhooks.tasks.consume_event",
        "accounts.tasks.send_code_email",
    ):
        assert queue_of(task_name) == "celery", task_name


def test_webhook_deliveries_stay_on_the_webhooks_queue() -> None:
    assert queue_of("webhooks.tasks.deliver") == "webhooks"
    assert queue_of("webhooks.tasks.deliver_due") == "webhooks"
