"""Errors name their rule: `grep B-TAKE-2` finds the rule, the code and its tests.

Every rule id in the rules documents is named by an engine test, and every rule
id the engine cites in an error exists in the documents.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import engine

RULES = Path(__file__).resolve().parents[3] / "shared" / "rules"
TESTS = Path(__file__).resolve().parent
ENGINE = Path(engine.__file__).resolve().parent
RULE_ID = re.compile(r"\b[BM]-[A-Z]+-\d+\b")


def rules_text() -> str:
    if not RULES.is_dir():
        pytest.skip("the shared rules folder (../shared/rules) is not beside the repository")
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(RULES.glob("*.md")))


def test_every_rule_id_in_the_rules_is_named_by_a_test():
    documented = set(RULE_ID.findall(rules_text()))
    assert len(documented) > 40
    tests = "\n".join(p.read_text(encoding="utf-8") for p in TESTS.glob("test_*.py"))
    untested = sorted(i for i in documented if not re.search(rf"\b{re.escape(i)}\b", tests))
    assert not untested, f"rule ids no test names: {untested}"


def test_every_rule_id_the_engine_cites_is_in_the_rules():
    text = rules_text()
    cited = set()
    for path in ENGINE.rglob("*.py"):
        cited.update(re.findall(r"\b([BM]-[A-Z]+(?:-\d+)?)\b", path.read_text(encoding="utf-8")))
    unknown = sorted(i for i in cited if not re.search(rf"\b{re.escape(i)}\b", text))
    assert not unknown, f"the engine cites rule ids the rules do not define: {unknown}"
