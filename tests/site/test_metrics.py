"""/metrics: who may read it, and that each metric moves when its thing happens
(a request, a move, a refusal, a start, a finish, a timeout, a sweep, a task),
with labels that never name anyone. docs/operations.md, "Metrics"."""

from __future__ import annotations

import ipaddress
import subprocess
import sys
import textwrap
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from tests.games.clock_helpers import play_a_take, seat_to_move, started_game, time_out
from tests.games.game_helpers import client_for, start_two_player_game, user_to_move
from tests.metrics_helpers import samples, value

from core import metrics
from games import services
from games.models import Game, GameEvent, PeriodicRun
from games.tasks import sweep_deadlines
from splendor_site.celery import app

pytestmark = pytest.mark.django_db

OUTSIDE = "203.0.113.9"


# --- who may read it --------------------------------------------------------------


TOKEN = "a-scrape-token-long-enough-to-pass"
LOOPBACK = [ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128")]


def test_metrics_answer_the_token_in_the_prometheus_text_format(client: Any, settings: Any) -> None:
    settings.METRICS_TOKEN = TOKEN
    client.get("/healthz")
    answer = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("text/plain; version=")
    names = {family.name for family in text_string_to_metric_families(answer.content.decode())}
    assert {"splendor_http_requests", "splendor_active_games", "splendor_outbox_unclaimed_events"} <= names


def test_with_neither_token_nor_networks_set_metrics_are_closed_to_everyone_loopback_included(
    client: Any, settings: Any
) -> None:
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_NETWORKS = []
    for address in ("127.0.0.1", "::1", "10.0.0.5", OUTSIDE):
        answer = client.get("/metrics", REMOTE_ADDR=address)
        assert answer.status_code == 404, address
        assert b"splendor_" not in answer.content


def test_the_defaults_open_metrics_to_nobody() -> None:
    from tests.site.test_settings_from_environment import run_manage

    code = "from django.conf import settings; print(repr((settings.METRICS_TOKEN, settings.METRICS_ALLOWED_NETWORKS)))"
    result = run_manage("shell", "-c", code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "('', [])"


def test_allowed_networks_open_metrics_to_their_addresses_when_no_proxy_is_trusted(client: Any, settings: Any) -> None:
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_NETWORKS = LOOPBACK
    settings.TRUSTED_PROXIES = 0
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR=OUTSIDE).status_code == 404


@pytest.mark.parametrize("trusted", [1, [ipaddress.ip_network("127.0.0.1/32")]])
def test_a_caller_that_is_a_trusted_proxy_is_opened_by_the_token_only_never_by_the_networks(
    client: Any, settings: Any, trusted: object
) -> None:
    # nginx on the same machine connects from 127.0.0.1 for everyone it serves.
    settings.METRICS_TOKEN = TOKEN
    settings.METRICS_ALLOWED_NETWORKS = LOOPBACK
    settings.TRUSTED_PROXIES = trusted
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 404
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=OUTSIDE).status_code == 404
    opened = client.get("/metrics", REMOTE_ADDR="127.0.0.1", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert opened.status_code == 200
    assert b"splendor_http_requests" in opened.content


def test_networks_still_open_metrics_to_an_address_that_is_no_trusted_proxy(client: Any, settings: Any) -> None:
    settings.METRICS_TOKEN = ""
    settings.METRICS_ALLOWED_NETWORKS = [ipaddress.ip_network("10.1.0.0/16")]
    settings.TRUSTED_PROXIES = [ipaddress.ip_network("127.0.0.1/32")]
    assert client.get("/metrics", REMOTE_ADDR="10.1.2.3").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 404


def test_metrics_are_a_404_problem_to_a_caller_from_elsewhere(client: Any) -> None:
    answer = client.get("/metrics", REMOTE_ADDR=OUTSIDE)
    assert answer.status_code == 404
    assert answer["Content-Type"] == "application/problem+json"
    assert answer.json()["code"] == "not_found"
    assert b"splendor_" not in answer.content


def test_a_forwarded_for_header_does_not_let_an_outsider_in(client: Any, settings: Any) -> None:
    settings.TRUSTED_PROXIES = 1
    answer = client.get("/metrics", REMOTE_ADDR=OUTSIDE, HTTP_X_FORWARDED_FOR="127.0.0.1")
    assert answer.status_code == 404


def test_the_bearer_token_lets_a_scraper_in_from_anywhere(client: Any, settings: Any) -> None:
    settings.METRICS_TOKEN = "s3cret-scrape-token"
    assert client.get("/metrics", REMOTE_ADDR=OUTSIDE, HTTP_AUTHORIZATION="Bearer s3cret-scrape-token").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR=OUTSIDE, HTTP_AUTHORIZATION="Bearer wrong").status_code == 404
    assert client.get("/metrics", REMOTE_ADDR=OUTSIDE, HTTP_AUTHORIZATION="s3cret-scrape-token").status_code == 404


def test_no_token_set_means_no_token_opens_it(client: Any, settings: Any) -> None:
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics", REMOTE_ADDR=OUTSIDE, HTTP_AUTHORIZATION="Bearer ").status_code == 404


def test_the_allowed_networks_are_the_operators(client: Any, settings: Any) -> None:
    settings.METRICS_ALLOWED_NETWORKS = [ipaddress.ip_network("203.0.113.0/24")]
    assert client.get("/metrics", REMOTE_ADDR=OUTSIDE).status_code == 200
    assert client.get("/metrics").status_code == 404  # 127.0.0.1 is no longer in the list


# --- HTTP ---------------------------------------------------------------------------


def test_each_answer_is_counted_by_route_name_method_and_status_class(client: Any) -> None:
    ok = value("splendor_http_requests_total", route="healthz", method="GET", status="2xx")
    timed = value("splendor_http_request_duration_seconds_count", route="healthz", method="GET")
    unmatched = value("splendor_http_requests_total", route="unmatched", method="GET", status="4xx")
    client.get("/healthz")
    client.get("/no/such/page/")
    assert value("splendor_http_requests_total", route="healthz", method="GET", status="2xx") == ok + 1
    assert value("splendor_http_request_duration_seconds_count", route="healthz", method="GET") == timed + 1
    assert value("splendor_http_requests_total", route="unmatched", method="GET", status="4xx") == unmatched + 1


# --- the game ---------------------------------------------------------------------------


def test_accepted_and_refused_moves_are_counted_by_code(
    alice: Any, bob: Any, django_capture_on_commit_callbacks: Any
) -> None:
    game = start_two_player_game(alice, bob)
    accepted = value("splendor_moves_total", outcome="accepted", code="ok")
    illegal = value("splendor_moves_total", outcome="refused", code="illegal_move")
    not_turn = value("splendor_moves_total", outcome="refused", code="not_your_turn")
    mover = user_to_move(game)
    other = bob if mover == alice else alice
    with django_capture_on_commit_callbacks(execute=True):
        refused = client_for(mover).post(
            f"/api/v1/games/{game.pk}/moves/", {"move": "buy 3-01", "expected_version": game.version}
        )
        waiting = client_for(other).post(
            f"/api/v1/games/{game.pk}/moves/", {"move": "take WUG", "expected_version": game.version}
        )
        played = client_for(mover).post(
            f"/api/v1/games/{game.pk}/moves/", {"move": "take WUG", "expected_version": game.version}
        )
    assert (refused.status_code, waiting.status_code, played.status_code) == (422, 409, 201), refused.content
    assert value("splendor_moves_total", outcome="accepted", code="ok") == accepted + 1
    assert value("splendor_moves_total", outcome="refused", code="illegal_move") == illegal + 1
    assert value("splendor_moves_total", outcome="refused", code="not_your_turn") == not_turn + 1


def test_a_change_that_rolls_back_counts_nothing(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    accepted = value("splendor_moves_total", outcome="accepted", code="ok")
    # Inside the test's transaction the commit never comes: nothing is counted.
    services.move_submit(game_id=game.pk, user=user_to_move(game), text="take WUG", expected_version=game.version)
    assert value("splendor_moves_total", outcome="accepted", code="ok") == accepted


def test_games_started_and_finished_are_counted(alice: Any, bob: Any, django_capture_on_commit_callbacks: Any) -> None:
    started = value("splendor_games_started_total", variant="marvel")
    resigned = value("splendor_games_finished_total", reason="resignation")
    forfeits = value("splendor_forfeits_total", reason="resignation")
    with django_capture_on_commit_callbacks(execute=True):
        game = start_two_player_game(alice, bob, variant="marvel")
        services.game_resign(game=game, user=alice)
    assert value("splendor_games_started_total", variant="marvel") == started + 1
    assert value("splendor_games_finished_total", reason="resignation") == resigned + 1
    assert value("splendor_forfeits_total", reason="resignation") == forfeits + 1


def test_timeouts_bot_moves_and_a_forfeit_are_counted(
    alice: Any, bob: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.VACATION_DAYS_PER_YEAR = 0
    bot = value("splendor_timeouts_total", action="bot")
    forfeit = value("splendor_timeouts_total", action="forfeit")
    bot_moves = value("splendor_bot_moves_total", reason="timeout")
    forfeits = value("splendor_forfeits_total", reason="timeout")
    finished = value("splendor_games_finished_total", reason="timeout")
    with django_capture_on_commit_callbacks(execute=True):
        game = started_game(alice, bob, move_timeout_hours=24, forfeit_after=2)
        loser = seat_to_move(game).user
        assert time_out(game)  # the bot moves for the loser
        play_a_take(game)  # the other player moves
        assert seat_to_move(game).user == loser
        assert time_out(game)  # the second in a row forfeits
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert value("splendor_timeouts_total", action="bot") == bot + 1
    assert value("splendor_timeouts_total", action="forfeit") == forfeit + 1
    assert value("splendor_bot_moves_total", reason="timeout") == bot_moves + 1
    assert value("splendor_forfeits_total", reason="timeout") == forfeits + 1
    assert value("splendor_games_finished_total", reason="timeout") == finished + 1


def test_active_and_overdue_games_are_read_from_the_database(alice: Any, bob: Any) -> None:
    game = started_game(alice, bob, move_timeout_hours=24)
    assert value("splendor_active_games", variant="base") == 1
    assert value("splendor_overdue_games") == 0
    Game.objects.filter(pk=game.pk).update(deadline_at=timezone.now() - timedelta(minutes=5))
    assert value("splendor_overdue_games") == 1


def test_the_outbox_backlog_is_shown_per_consumer(alice: Any, bob: Any, settings: Any, game_extensions: Any) -> None:
    game_extensions.hearing("email", "webhooks")
    with time_machine.travel(timezone.now() - timedelta(minutes=10), tick=False):
        start_two_player_game(alice, bob)  # its events are never consumed here (no commit)
    written = GameEvent.objects.count()
    assert written >= 3
    assert value("splendor_outbox_unclaimed_events", consumer="email") == written
    assert value("splendor_outbox_unclaimed_events", consumer="webhooks") == written
    assert 590 <= value("splendor_outbox_oldest_unclaimed_age_seconds", consumer="email") <= 3600


# --- the beat -------------------------------------------------------------------------


def test_a_sweep_records_its_run_and_healthz_reads_it(client: Any) -> None:
    assert client.get("/healthz").json()["checks"]["beat"] == {"state": "never", "required": False}
    sweep_deadlines.delay()
    last = PeriodicRun.objects.get(job="deadline_sweep").last_run_at
    assert value("splendor_beat_last_run_timestamp_seconds", beat_job="deadline_sweep") == last.timestamp()
    body = client.get("/healthz").json()
    assert body["status"] == "ok"
    assert body["checks"]["beat"]["state"] == "up"


def test_healthz_is_degraded_once_the_last_sweep_is_older_than_beat_stale_seconds(client: Any, settings: Any) -> None:
    settings.BEAT_STALE_SECONDS = 180
    services.periodic_run_mark("deadline_sweep", now=timezone.now() - timedelta(seconds=179))
    assert client.get("/healthz").json()["status"] == "ok"
    services.periodic_run_mark("deadline_sweep", now=timezone.now() - timedelta(seconds=400))
    answer = client.get("/healthz")
    assert answer.status_code == 200
    body = answer.json()
    assert body["status"] == "degraded"
    assert body["checks"]["beat"]["state"] == "late"
    assert 400 <= body["checks"]["beat"]["last_sweep_age_seconds"] <= 460


def test_the_reminders_and_the_redelivery_record_their_runs() -> None:
    from games.tasks import redeliver_events
    from notifications.reminders.tasks import send_due_reminders

    send_due_reminders.delay()
    redeliver_events.delay()
    assert set(PeriodicRun.objects.values_list("job", flat=True)) >= {"reminders", "redelivery"}
    assert value("splendor_beat_last_run_timestamp_seconds", beat_job="reminders") > 0
    assert value("splendor_beat_last_run_timestamp_seconds", beat_job="redelivery") > 0


# --- tasks ---------------------------------------------------------------------------


@app.task(name="tests.metrics.failing_task")
def _failing_task() -> None:
    raise RuntimeError("as the test wants")


def test_task_run_times_and_failures_are_counted_by_task_name() -> None:
    runs = value("splendor_task_duration_seconds_count", task="games.tasks.sweep_deadlines")
    failures = value("splendor_task_failures_total", task="tests.metrics.failing_task")
    sweep_deadlines.delay()
    # As a worker runs it: the error is recorded, not raised to the caller.
    assert _failing_task.apply(throw=False).failed()
    assert value("splendor_task_duration_seconds_count", task="games.tasks.sweep_deadlines") == runs + 1
    assert value("splendor_task_failures_total", task="tests.metrics.failing_task") == failures + 1


# --- every process of the machine, and nobody's name ----------------------------------


def test_counts_of_other_processes_in_the_folder_are_added_up() -> None:
    before = value("splendor_emails_total", kind="your_turn", outcome="sent")
    script = textwrap.dedent(f"""
        import os
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = {metrics.multiproc_dir!r}
        from prometheus_client import Counter, values
        values.ValueClass = values.MultiProcessValue()
        emails = Counter("splendor_emails", "", ["kind", "outcome"])
        emails.labels("your_turn", "sent").inc(3)
    """)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)
    assert value("splendor_emails_total", kind="your_turn", outcome="sent") == before + 3


def test_no_label_names_a_player_an_address_or_a_game(
    alice: Any, bob: Any, client: Any, settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.METRICS_TOKEN = TOKEN
    with django_capture_on_commit_callbacks(execute=True):
        game = start_two_player_game(alice, bob)
        client_for(user_to_move(game)).post(
            f"/api/v1/games/{game.pk}/moves/", {"move": "take WUG", "expected_version": game.version}
        )
        client_for(alice).get(f"/api/v1/players/{alice.username}/")
    text = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").content.decode()
    for secret in (game.pk, alice.username, bob.username, alice.email, "example.com"):
        assert secret not in text
    labels = {pair for (_, pairs) in samples(text) for pair in pairs}
    assert labels and all(name in {"route", "method", "status", "outcome", "code", "reason", "variant", "action", "kind",
                        "source", "consumer", "beat_job", "task", "format", "le"} for name, _ in labels)
