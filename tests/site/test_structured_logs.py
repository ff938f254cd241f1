"""Log lines: plain text by default, one JSON object a line with LOG_FORMAT=json,
each carrying what it is about (core.log_context, core.log_format)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from api.log_redaction import RedactUsernamesInPaths
from core.log_context import LogContextFilter, log_context, log_context_current
from core.log_format import log_formatter
from splendor_site.environment import env_choice

PROJECT_DIR = Path(__file__).resolve().parents[2]

# Logs through the site's own LOGGING (settings), as any process of the site does.
SCRIPT = """
import logging
from core.log_context import log_context
log = logging.getLogger("games.services")
log.info("outside any context")
with log_context(request_id="r-1f2e", task="games.tasks.consume_events", task_id="t-9"):
    with log_context(game_id="G7K2QX", event_ids=[4, 5]):
        log.warning("a line about game %s: caf\\u00e9", "G7K2QX")
    try:
        raise ValueError("line one\\nline two")
    except ValueError:
        log.exception("it failed")
"""


def run_manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "LOG_"))}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=PROJECT_DIR, env={**clean, **env}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def run_logging(**env: str) -> subprocess.CompletedProcess[str]:
    return run_manage("shell", "-c", SCRIPT, **env)


def test_log_format_json_writes_one_json_object_a_line_with_time_level_logger_message_and_context() -> None:
    done = run_logging(LOG_FORMAT="json")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stderr.splitlines()]  # each line is a whole JSON object
    assert [line["message"] for line in lines] == ["outside any context", "a line about game G7K2QX: café", "it failed"]
    outside, about_game, failed = lines
    assert set(outside) == {"time", "level", "logger", "message"}
    assert outside["level"] == "INFO" and outside["logger"] == "games.services"
    when = datetime.fromisoformat(outside["time"])
    assert when.utcoffset() == timedelta(0)  # UTC, ISO 8601
    assert about_game == {
        "time": about_game["time"], "level": "WARNING", "logger": "games.services",
        "message": "a line about game G7K2QX: café",
        "request_id": "r-1f2e", "game_id": "G7K2QX", "event_ids": [4, 5],
        "task": "games.tasks.consume_events", "task_id": "t-9",
    }  # fmt: skip
    # The traceback is a field of the same line; the inner context has ended.
    assert "game_id" not in failed and failed["request_id"] == "r-1f2e"
    assert "ValueError: line one\nline two" in failed["exc_info"]


def test_with_log_format_json_a_python_warning_is_a_json_line_too() -> None:
    done = run_manage("shell", "-c", "import warnings; warnings.warn('the old way')", LOG_FORMAT="json")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stderr.splitlines()]  # each line is a whole JSON object
    (warned,) = [line for line in lines if line["logger"] == "py.warnings"]
    assert warned["level"] == "WARNING" and "UserWarning: the old way" in warned["message"]


def test_plain_text_is_the_default_and_ends_each_line_with_its_context() -> None:
    done = run_logging()
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0].endswith(" INFO games.services: outside any context")
    assert lines[1].endswith(
        " WARNING games.services: a line about game G7K2QX: café "
        "[request_id=r-1f2e game_id=G7K2QX event_ids=[4, 5] task=games.tasks.consume_events task_id=t-9]"
    )
    assert lines[2].endswith("ERROR games.services: it failed [request_id=r-1f2e task=games.tasks.consume_events task_id=t-9]")
    assert lines[3] == "Traceback (most recent call last):"
    with pytest.raises(json.JSONDecodeError):
        json.loads(lines[0])


def test_an_unknown_log_format_stops_start_up_naming_the_choices() -> None:
    done = run_manage("check", LOG_FORMAT="xml")
    assert done.returncode != 0
    assert "LOG_FORMAT='xml' is not one of plain, json." in done.stderr


def test_env_choice_takes_any_case_and_refuses_the_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_FORMAT", "JSON")
    assert env_choice("SOME_FORMAT", "plain", ("plain", "json")) == "json"
    monkeypatch.setenv("SOME_FORMAT", " ")
    assert env_choice("SOME_FORMAT", "plain", ("plain", "json")) == "plain"
    monkeypatch.setenv("SOME_FORMAT", "yaml")
    with pytest.raises(ImproperlyConfigured, match=r"SOME_FORMAT='yaml' is not one of plain, json\."):
        env_choice("SOME_FORMAT", "plain", ("plain", "json"))


def _handled(record: logging.LogRecord, log_format: str) -> str:
    """The record through the filters and the formatter settings.LOGGING gives it."""
    assert RedactUsernamesInPaths().filter(record) and LogContextFilter().filter(record)
    return log_formatter(log_format).format(record)


class _Request:
    """Stands for the WSGIRequest django.request attaches to its records."""

    path = "/api/v1/players/someone-secret/?seat=s3cr3t-token"

    def __repr__(self) -> str:
        return f"<WSGIRequest: GET {self.path!r}>"


@pytest.mark.parametrize("log_format", ["plain", "json"])
def test_a_request_log_line_names_no_player_and_no_seat_token_in_either_form(log_format: str) -> None:
    record = logging.LogRecord(
        "django.request", logging.WARNING, __file__, 1, "Not Found: %s", (_Request.path,), None
    )
    record.request, record.status_code = _Request(), 404  # what django.request adds (extra=)
    with log_context(request_id="abc123"):
        line = _handled(record, log_format)
    assert "someone-secret" not in line and "s3cr3t-token" not in line
    assert "/api/v1/players/{username}/?seat={token}" in line and "abc123" in line
    if log_format == "json":
        # Only the named fields: the request object Django attaches is not written.
        assert set(json.loads(line)) == {"time", "level", "logger", "message", "request_id"}


def test_a_value_given_with_extra_wins_over_the_context() -> None:
    record = logging.LogRecord("games", logging.INFO, __file__, 1, "moved", (), None)
    record.game_id = "FROM-EXTRA"
    with log_context(game_id="FROM-CONTEXT", request_id="r"):
        assert json.loads(_handled(record, "json"))["game_id"] == "FROM-EXTRA"


def test_log_context_nests_and_restores_and_refuses_unknown_fields() -> None:
    assert dict(log_context_current()) == {}
    with log_context(request_id="r1", game_id="G1"):
        with log_context(game_id=None, event_id=3):  # None: the field is left out inside
            assert dict(log_context_current()) == {"request_id": "r1", "event_id": 3}
        assert dict(log_context_current()) == {"request_id": "r1", "game_id": "G1"}
    assert dict(log_context_current()) == {}
    with pytest.raises(TypeError, match="not a log context field: email"):
        with log_context(email="alice@example.com"):
            pass


@pytest.mark.django_db
def test_lines_written_inside_game_change_name_the_game(caplog: pytest.LogCaptureFixture, log_format: str) -> None:
    from games.models import Game
    from games.services import game_change
    from tests.games.game_helpers import make_player

    game = Game.objects.create(created_by=make_player("alice"), seat_count=2)
    log = logging.getLogger("games.services.test")
    with caplog.at_level(logging.INFO), log_context(request_id="req-42"):
        with game_change(game.pk):
            log.info("inside the change")
        log.info("after the change")
    inside, after = (r for r in caplog.records if r.name == "games.services.test")
    assert (inside.game_id, inside.request_id) == (game.pk, "req-42")  # type: ignore[attr-defined]
    assert not hasattr(after, "game_id") and after.request_id == "req-42"  # type: ignore[attr-defined]
    rendered = caplog.handler.format(inside)
    if log_format == "json":
        assert json.loads(rendered)["game_id"] == game.pk
    else:
        assert rendered.endswith(f"inside the change [request_id=req-42 game_id={game.pk}]")


@pytest.mark.django_db
def test_a_consumers_lines_name_the_event_and_its_game(
    settings: Any, caplog: pytest.LogCaptureFixture, alice: Any, bob: Any, game_extensions: Any
) -> None:
    from games import services
    from games.extensions import GameExtension
    from games.models import GameEvent
    from tests.games.game_helpers import start_two_player_game

    seen: list[dict[str, object]] = []

    class Recorder(GameExtension):
        name = "recorder"

        def handle_event(self, event: GameEvent) -> None:
            seen.append(dict(log_context_current()))

    game_extensions.use(Recorder())
    game = start_two_player_game(alice, bob)  # not committed: nothing consumed yet
    events = list(GameEvent.objects.filter(game=game).order_by("pk").values_list("pk", flat=True))
    services.game_events_consume_all(event_ids=events)
    assert seen == [{"game_id": game.pk, "event_id": event_id} for event_id in events]
