"""A new site's first scrape already has a series for every metric the dashboard
(docs/grafana-dashboard.json) names: every counter and histogram of a fixed set of
labels is exported at 0 before its first count (core.metrics.FIXED_SERIES and the
apps' declarations), so no panel of a new site reads "No data", and the label
values are those docs/operations.md's table of metrics lists."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.metrics_helpers import samples, value
from tests.site.test_metrics_docs import METRIC_NAME, _dashboard_exprs, _metrics_section

from api.metrics import metrics_text
from core import metrics
from engine import VARIANTS
from notifications.email.render import registered_kinds

pytestmark = pytest.mark.django_db


@pytest.fixture
def fresh_site() -> Iterator[Path]:
    """This process counting in an empty folder of its own, as a site's web process
    does on its first start; then back to the tests' folder and its counts."""
    before = metrics.multiproc_dir
    with tempfile.TemporaryDirectory(prefix="splendor-fresh-metrics-") as folder:
        metrics.configure(folder)
        try:
            yield Path(folder)
        finally:
            metrics.configure(before)


def _series_names(text: str) -> set[str]:
    return {name for (name, _) in samples(text)}


def test_a_fresh_sites_first_scrape_has_every_metric_the_dashboard_names(fresh_site: Path) -> None:
    named = {name for expr in _dashboard_exprs() for name in METRIC_NAME.findall(expr)}
    assert len(named) >= 20  # the dashboard's queries were read
    exported = _series_names(metrics_text().decode())
    assert not named - exported, "the dashboard names these, and a new site has no series of them yet"


def test_the_zeros_are_made_by_the_first_scrape_not_before(fresh_site: Path) -> None:
    assert not list(fresh_site.glob("*.db"))  # nothing counted, nothing scraped: no file
    text = metrics_text().decode()
    assert list(fresh_site.glob("*.db"))
    assert value("splendor_timeouts_total", text, action="forfeit") == 0
    assert ("splendor_timeouts_total", (("action", "forfeit"),)) in samples(text)


def test_every_fixed_series_and_every_declared_one_is_there_at_zero(fresh_site: Path) -> None:
    found = samples(metrics_text().decode())
    for metric, fixed in metrics.FIXED_SERIES.items():
        suffix = "_total" if metric._type == "counter" else "_count"
        for labels in fixed:
            key = (metric._name + suffix, tuple(sorted(zip(metric._labelnames, labels, strict=True))))
            assert found.get(key) == 0, key
    kinds = registered_kinds()
    assert {"your_turn", "invitation", "game_over"} <= set(kinds)
    for kind in kinds:
        for outcome in metrics.EMAIL_OUTCOMES:
            assert found.get(("splendor_emails_total", (("kind", kind), ("outcome", outcome)))) == 0
    for variant in VARIANTS:
        assert found.get(("splendor_games_started_total", (("variant", variant),))) == 0
    for task in ("games.tasks.sweep_deadlines", "notifications.reminder_tasks.send_due_reminders"):
        assert found.get(("splendor_task_failures_total", (("task", task),))) == 0
        assert found.get(("splendor_task_duration_seconds_count", (("task", task),))) == 0
    assert not any(label == ("task", "celery.backend_cleanup") for (_, labels) in found for label in labels)
    assert found.get(("splendor_inbound_replies_total", (("outcome", "applied"), ("reason", "")))) == 0
    beat_jobs = {dict(labels)["beat_job"]: v for (name, labels), v in found.items() if name == metrics.BEAT_LAST_RUN}
    assert beat_jobs == dict.fromkeys(metrics.BEAT_JOBS, 0.0)  # never ran: 0, not missing


def test_a_scrape_does_not_reset_what_was_counted(fresh_site: Path) -> None:
    metrics.TIMEOUTS.labels("bot").inc()
    metrics.series_start()
    metrics.TIMEOUTS.labels("bot").inc()
    assert value("splendor_timeouts_total", action="bot") == 2
    assert value("splendor_timeouts_total", action="vacation") == 0


def test_the_tests_counts_are_still_read_after_a_fresh_folder_was_used() -> None:
    metrics.TIMEOUTS.labels("vacation").inc()
    counted = value("splendor_timeouts_total", action="vacation")
    assert counted >= 1
    before = metrics.multiproc_dir
    with tempfile.TemporaryDirectory() as folder:
        metrics.configure(folder)
        assert value("splendor_timeouts_total", action="vacation") == 0
        metrics.configure(before)
    assert value("splendor_timeouts_total", action="vacation") == counted


def _documented_values(metric_name: str) -> set[str]:
    """The words in backticks of the labels cell of the metric's row, less the labels' names."""
    row = next(line for line in _metrics_section().splitlines() if line.startswith(f"| `{metric_name}`"))
    labels_cell = row.split(" | ")[2]
    return set(re.findall(r"`([^`]*)`", labels_cell))


ONE_LABEL_COUNTERS = [m for m in metrics.FIXED_SERIES if len(m._labelnames) == 1 and m._type == "counter"]


@pytest.mark.parametrize("metric", ONE_LABEL_COUNTERS, ids=lambda m: m._name)
def test_the_fixed_label_values_are_those_operations_lists(metric: object) -> None:
    assert isinstance(metric, metrics.MetricWrapperBase)
    documented = _documented_values(metric._name + "_total") - set(metric._labelnames)
    assert documented, metric._name
    assert {labels[0] for labels in metrics.FIXED_SERIES[metric]} == documented


def test_every_counter_with_one_label_is_checked_against_operations() -> None:
    assert len(ONE_LABEL_COUNTERS) >= 8
    # The attempts' histogram has the deliveries' outcomes ("as splendor_webhook_deliveries_total").
    assert metrics.FIXED_SERIES[metrics.WEBHOOK_DURATION] == metrics.FIXED_SERIES[metrics.WEBHOOK_DELIVERIES]


def test_the_move_refusals_and_email_outcomes_are_those_operations_lists() -> None:
    moves = _documented_values("splendor_moves_total") - {"outcome", "code"}
    assert moves == {"accepted", "refused", "ok", *metrics.MOVE_REFUSALS}
    emails = _documented_values("splendor_emails_total") - {"kind", "outcome"}
    assert emails == set(metrics.EMAIL_OUTCOMES)
    http = _documented_values("splendor_http_requests_total")
    assert {"2xx", "4xx", "5xx"} <= http and set(metrics.STATUS_CLASSES) - http == {"3xx"}


def test_a_process_that_never_scrapes_writes_no_file_of_zeros(tmp_path: Path) -> None:
    import subprocess
    import sys

    folder = tmp_path / "metrics"
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(folder), "DJANGO_SETTINGS_MODULE": "splendor_site.settings"}
    subprocess.run([sys.executable, "manage.py", "check"], cwd=Path(__file__).resolve().parents[2], env=env,
                   check=True, capture_output=True, timeout=120)  # fmt: skip
    assert folder.is_dir() and not list(folder.iterdir())
