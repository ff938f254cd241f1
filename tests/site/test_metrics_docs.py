"""What the operator is given to watch the service agrees with the metrics it
exports: the Grafana dashboard (docs/grafana-dashboard.json) and the alerting
rules (docs/prometheus-alerts.yml) name only metrics core.metrics defines, with
the suffixes Prometheus gives them, the rules have the shape Prometheus loads
(and pass `promtool check rules` where promtool is installed), and
docs/operations.md's table lists every metric."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client.metrics import MetricWrapperBase

from core import metrics

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "docs" / "grafana-dashboard.json"
ALERTS = ROOT / "docs" / "prometheus-alerts.yml"
OPERATIONS = ROOT / "docs" / "operations.md"

REQUIRED_ALERTS = {
    "SplendorBeatSilent",
    "SplendorOutboxBacklog",
    "SplendorBounceRateHigh",
    "SplendorHttp5xxRate",
    "SplendorInboundRefusalsSpiking",
    "SplendorOverdueGames",
}

METRIC_NAME = re.compile(r"\bsplendor_[A-Za-z0-9_:]*")


def _defined() -> dict[str, str]:
    """Every metric core.metrics defines, by its name before Prometheus's suffixes:
    its type (counter, histogram, or gauge for those read when scraped)."""
    found: dict[str, str] = {}
    for attribute in vars(metrics).values():
        if isinstance(attribute, MetricWrapperBase):
            found[attribute._name] = str(attribute._type)
        elif isinstance(attribute, str) and attribute.startswith(metrics.PREFIX) and attribute != metrics.PREFIX:
            found[attribute] = "gauge"
    return found


def _exported() -> set[str]:
    """The names of the series Prometheus stores for them."""
    names = set()
    for name, kind in _defined().items():
        if kind == "counter":
            names.add(f"{name}_total")
        elif kind == "histogram":
            names.update(f"{name}{suffix}" for suffix in ("_bucket", "_sum", "_count"))
        else:
            names.add(name)
    return names


def _dashboard() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DASHBOARD.read_text())
    return loaded


def _panels(panels: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every panel, those inside collapsed rows too."""
    found = []
    for panel in panels:
        found.append(panel)
        found.extend(_panels(panel.get("panels", [])))
    return found


def _dashboard_exprs() -> list[str]:
    return [target["expr"] for panel in _panels(_dashboard()["panels"]) for target in panel.get("targets", [])]


def _rules() -> list[dict[str, Any]]:
    loaded = yaml.safe_load(ALERTS.read_text())
    return [rule for group in loaded["groups"] for rule in group["rules"]]


def _unknown_names(exprs: list[str]) -> set[str]:
    exported = _exported()
    return {name for expr in exprs for name in METRIC_NAME.findall(expr)} - exported


def test_the_metrics_are_found_in_core_metrics() -> None:
    defined = _defined()
    assert defined["splendor_moves"] == "counter"
    assert defined["splendor_task_duration_seconds"] == "histogram"
    assert defined["splendor_beat_last_run_timestamp_seconds"] == "gauge"
    assert "splendor_" not in defined


# --- the dashboard ----------------------------------------------------------------


def test_the_dashboard_loads_and_every_panel_has_queries() -> None:
    dashboard = _dashboard()
    assert 36 <= dashboard["schemaVersion"] <= 41
    assert [item["name"] for item in dashboard["__inputs"]] == ["DS_PROMETHEUS"]
    assert any(variable["name"] == "DS_PROMETHEUS" for variable in dashboard["templating"]["list"])
    graphs = [panel for panel in _panels(dashboard["panels"]) if panel["type"] != "row"]
    assert len(graphs) >= 15
    for panel in graphs:
        assert panel["targets"], panel["title"]
        assert panel["datasource"]["uid"] == "${DS_PROMETHEUS}", panel["title"]
        for target in panel["targets"]:
            assert target["expr"].strip() and target["datasource"]["uid"] == "${DS_PROMETHEUS}", panel["title"]
    assert len({panel["id"] for panel in _panels(dashboard["panels"])}) == len(_panels(dashboard["panels"]))


def test_the_dashboard_names_only_metrics_the_service_exports() -> None:
    assert not _unknown_names(_dashboard_exprs())


def test_the_dashboard_shows_every_metric() -> None:
    used = {name for expr in _dashboard_exprs() for name in METRIC_NAME.findall(expr)}
    shown = {re.sub(r"_(total|bucket|sum|count)$", "", name) for name in used}
    assert not set(_defined()) - shown


def test_a_misnamed_metric_would_be_found() -> None:
    assert _unknown_names(['rate(splendor_moves[5m])', "splendor_task_duration_seconds_total"]) == {
        "splendor_moves", "splendor_task_duration_seconds_total",
    }
    assert not _unknown_names(['histogram_quantile(0.95, rate(splendor_task_duration_seconds_bucket[5m]))'])


# --- the alerting rules -----------------------------------------------------------------


def test_the_alerts_have_the_shape_prometheus_loads() -> None:
    loaded = yaml.safe_load(ALERTS.read_text())
    assert set(loaded) == {"groups"}
    for group in loaded["groups"]:
        assert set(group) == {"name", "rules"} and group["name"] and group["rules"]
        for rule in group["rules"]:
            assert set(rule) == {"alert", "expr", "for", "labels", "annotations"}, rule.get("alert")
            assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", rule["alert"])
            assert isinstance(rule["expr"], str) and rule["expr"].strip()
            assert re.fullmatch(r"\d+[smh]", rule["for"]), rule["alert"]
            assert rule["labels"]["severity"] in {"critical", "warning"}, rule["alert"]
            assert set(rule["annotations"]) == {"summary", "description"}, rule["alert"]
            assert all(text.strip() for text in rule["annotations"].values())
    names = [rule["alert"] for rule in _rules()]
    assert len(names) == len(set(names))


def test_the_required_alerts_are_there() -> None:
    assert REQUIRED_ALERTS <= {rule["alert"] for rule in _rules()}


def test_the_alerts_name_only_metrics_the_service_exports() -> None:
    assert not _unknown_names([rule["expr"] for rule in _rules()])


def _promtool() -> str:
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool is not installed (Debian: apt-get install prometheus); the shape of the rules is "
                    "checked by test_the_alerts_have_the_shape_prometheus_loads")
    return promtool


def test_promtool_accepts_the_alerting_rules() -> None:
    checked = subprocess.run(
        [_promtool(), "check", "rules", str(ALERTS)], capture_output=True, text=True, timeout=60, check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_promtool_accepts_the_dashboards_queries(tmp_path: Path) -> None:
    """Each panel's query is valid PromQL: given to promtool as a recording rule,
    with Grafana's $__rate_interval made a plain range."""
    rules = [
        {"record": f"splendor_dashboard:query_{number}", "expr": expr.replace("$__rate_interval", "5m")}
        for number, expr in enumerate(_dashboard_exprs())
    ]
    path = tmp_path / "dashboard-queries.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    checked = subprocess.run(
        [_promtool(), "check", "rules", str(path)], capture_output=True, text=True, timeout=60, check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


# --- docs/operations.md -------------------------------------------------------------------


def _metrics_section() -> str:
    text = OPERATIONS.read_text()
    start = text.index("\n## Metrics\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_operations_lists_every_metric_in_its_table() -> None:
    """A row per metric, by the name a query uses: counters with `_total`,
    histograms by their base name (`_bucket`, `_sum`, `_count` follow from it)."""
    rows = [line for line in _metrics_section().splitlines() if line.startswith("| `splendor_")]
    listed = [METRIC_NAME.findall(row)[0] for row in rows]
    expected = {f"{name}_total" if kind == "counter" else name for name, kind in _defined().items()}
    assert not expected - set(listed), "docs/operations.md's table of metrics has no row for these"
    assert not set(listed) - expected, "docs/operations.md's table lists metrics the service does not export"
    assert len(listed) == len(set(listed))


def test_operations_says_no_label_names_anyone() -> None:
    section = _metrics_section()
    for word in ("username", "address", "token", "game id"):
        assert word in section
