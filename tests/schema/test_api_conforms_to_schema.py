"""Property-based: every operation, called with a real player's token and real
ids, answers as the OpenAPI schema says.

Schemathesis reads /api/schema/ from the in-process WSGI app and generates
requests for every operation (the schema's own examples, boundary and negative
cases, then random fuzzing). Each response must not be a 5xx, must have a
documented status code, content type and headers, and its body must match the
documented schema.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from tests.schema.conftest import CHECKS, Seeded, load_schema

# The active Hypothesis profile bounds the run (tests/conftest.py: "ci" when CI is
# set); SCHEMA_FUZZ_EXAMPLES overrides it, e.g. for a longer run before a release.
MAX_EXAMPLES = int(os.environ.get("SCHEMA_FUZZ_EXAMPLES") or min(settings.default.max_examples, 50))

# The event stream answers with a body that never ends: its own tests read it
# (tests/streams), and its refusals are problems as everywhere else.
schema = load_schema().exclude(path="/api/v1/stream/")

# Ids from the data seeded for the current test. Generation reads them when it
# draws a case, so each operation's run uses its own committed games.
_real: dict[str, Seeded] = {}


@pytest.fixture(autouse=True)
def _real_ids(seeded: Seeded) -> Iterator[None]:
    _real["seeded"] = seeded
    yield
    _real.clear()


@schema.hook
def flatmap_path_parameters(
    context: Any, path_parameters: dict[str, Any] | None
) -> st.SearchStrategy[dict[str, Any] | None]:
    """Half the time a real game or token id instead of a generated one, so that
    requests get past the 404 into the code that matters."""
    seeded = _real.get("seeded")
    choices: dict[str, st.SearchStrategy[Any]] = {}
    if seeded is not None and path_parameters:
        for name, real in (("game_id", seeded.game_ids), ("token_id", seeded.token_ids)):
            if name in path_parameters and real:
                choices[name] = st.sampled_from(real) | st.just(path_parameters[name])
    if not choices:
        return st.just(path_parameters)
    return st.fixed_dictionaries(choices).map(lambda real_ids: {**path_parameters, **real_ids})


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    derandomize=settings.default.derandomize,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much],
)
def test_every_operation_answers_as_documented(case: schemathesis.Case, seeded: Seeded) -> None:
    case.call_and_validate(headers={"Authorization": f"Bearer {seeded.token}"}, checks=CHECKS)
