"""Reading the service's metrics as a scraper would (api.metrics.metrics_text),
for tests that check a metric moves when its thing happens."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from api.metrics import metrics_text


def samples(text: str | None = None) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a scrape: (sample name, sorted labels) -> value."""
    found: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    for family in text_string_to_metric_families(text if text is not None else metrics_text().decode()):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def value(name: str, text: str | None = None, **labels: str) -> float:
    """One sample's value (0 when it has not been counted yet)."""
    return samples(text).get((name, tuple(sorted(labels.items()))), 0.0)
