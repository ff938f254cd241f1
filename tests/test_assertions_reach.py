"""No test can pass on nothing: every test function that asserts has at least one
assertion that always runs.

The scan reads every ``tests/**/test_*.py`` with ``ast``. In a test function
(``def test_*`` or ``async def test_*``, at module level or in a class) these
count as assertions:

- an ``assert`` statement;
- a ``with pytest.raises(...)`` block (or ``with raises(...)``);
- a call to a function or method whose name starts with ``assert``, ``check_``
  or ``expect`` (``assert_hidden(...)``, ``self.assertEqual(...)``,
  ``expect(page).to_have_text(...)``).

An assertion is *reached* when it always runs: directly in the function's body,
inside ``with`` / ``async with`` blocks, in the body or ``finally`` of a ``try``
(an exception there fails the test anyway), in an ``if``'s test or a loop's
iterable. It is not reached inside a ``for`` / ``while`` loop's body or ``else``,
an ``if`` / ``match`` branch, a ``try``'s ``except`` or ``else``, or a lambda: a
loop may see nothing and a branch may not be taken. Two loops cannot see nothing
and count as running: one over a written-out, non-empty tuple, list, set or dict
(``for path in ("/a/", "/b/")``) or a non-empty ``range`` of written-out numbers
(``for k in range(20)``), and ``while True``. A function defined inside
the test counts as running when the test names it where it always runs
(``run(scenario)``, ``play_random_game(..., on_ply)``).

A test function with assertions, none of them reached, fails the scan, named by
file:line:function. The cure is to assert what the loop goes over, or that the
branch runs, before or after it: ``assert events`` before ``for event in events:
assert ...``; a leak test asserts that the hidden card exists before it asserts
that the card is not shown.

A test function without any assertion (one that passes when nothing raises) is
not this scan's business.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

ASSERTING_PREFIXES = ("assert", "check_", "expect")
# Where a statement's parts may run zero times or not at all: the fields not named
# here (an if's test, a loop's iterable, a match's subject) always run.
SKIPPABLE = {
    ast.If: ("body", "orelse"),
    ast.For: ("body", "orelse"),
    ast.AsyncFor: ("body", "orelse"),
    ast.While: ("body", "orelse"),
    ast.Try: ("handlers", "orelse"),
    ast.Match: ("cases",),
}
SKIPPABLE.update({getattr(ast, "TryStar"): ("handlers", "orelse")} if hasattr(ast, "TryStar") else {})

def _called_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _is_assertion(node: ast.AST) -> bool:
    if isinstance(node, ast.Assert):
        return True
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return any(
            isinstance(item.context_expr, ast.Call) and _called_name(item.context_expr) == "raises"
            for item in node.items
        )
    if isinstance(node, ast.Call):
        return _called_name(node).startswith(ASSERTING_PREFIXES)
    return False


def _runs_once_at_least(node: ast.AST) -> bool:
    """A loop over a written-out, non-empty tuple, list, set or dict, or over
    ``range`` of written-out numbers that is not empty; or ``while True``."""
    if isinstance(node, (ast.For, ast.AsyncFor)):
        if isinstance(node.iter, ast.Call) and _called_name(node.iter) == "range":
            try:
                return len(range(*(ast.literal_eval(arg) for arg in node.iter.args))) > 0
            except (ValueError, TypeError, SyntaxError):
                return False
        items = node.iter.keys if isinstance(node.iter, ast.Dict) else getattr(node.iter, "elts", [])
        return isinstance(node.iter, (ast.Tuple, ast.List, ast.Set, ast.Dict)) and any(
            item is not None and not isinstance(item, ast.Starred) for item in items
        )
    return isinstance(node, ast.While) and isinstance(node.test, ast.Constant) and bool(node.test.value)


def _walk(node: ast.AST, reached: bool, called: frozenset[str]) -> list[tuple[ast.AST, bool]]:
    """Every node under ``node`` with whether it always runs. The body of a function
    defined in the test runs when the test names it where it always runs (``run(scenario)``)."""
    found = [(node, reached)]
    if isinstance(node, ast.Lambda) or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
        node.name not in called
    ):
        reached = False
    skipped = set(SKIPPABLE.get(type(node), ()))
    if _runs_once_at_least(node):
        skipped.discard("body")
    for field, value in ast.iter_fields(node):
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, ast.AST):
                found.extend(_walk(child, reached and field not in skipped, called))
    return found


def _assertions(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[bool]:
    """One entry per assertion in a test function: True when it always runs."""
    walked = [pair for statement in function.body for pair in _walk(statement, True, frozenset())]
    called = frozenset(node.id for node, reached in walked if reached and isinstance(node, ast.Name))
    walked = [pair for statement in function.body for pair in _walk(statement, True, called)]
    return [reached for node, reached in walked if _is_assertion(node)]


def _test_functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    found: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    for node in tree.body:
        bodies = node.body if isinstance(node, ast.ClassDef) else [node]
        for item in bodies:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name.startswith("test"):
                found.append(item)
    return found


def unreached(source: str, filename: str = "<source>") -> list[str]:
    """file:line:function for each test function whose assertions may all be skipped."""
    tree = ast.parse(source, filename)
    flagged = []
    for function in _test_functions(tree):
        reached = _assertions(function)
        if reached and not any(reached):
            flagged.append(f"{filename}:{function.lineno}:{function.name}")
    return flagged


def test_every_test_has_an_assertion_that_always_runs() -> None:
    files = sorted(TESTS.rglob("test_*.py"))
    assert len(files) > 100  # the scan reads the suite, not an empty folder
    flagged = [
        name
        for path in files
        for name in unreached(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    ]
    assert not flagged, "assertions only inside a loop or a branch:\n" + "\n".join(flagged)


PLANTED = '''
import pytest

def test_passes_on_nothing(events):
    for event in events:
        assert event.kind
    with open("x"):
        if events:
            check_order(events)
    try:
        parse("")
    except OSError:
        with pytest.raises(ValueError):
            parse("")
    for path in (*paths,):
        assert path
    for k in range(0):
        assert k

class TestInAClass:
    async def test_also_on_nothing(self, rows):
        while rows:
            self.assertTrue(rows.pop())

def test_only_a_helper_defined_inside():
    def inner():
        assert False
    if False:
        inner()

def test_no_assertion_at_all():
    run()
'''

FIXED = '''
import pytest

def test_passes_on_nothing(events):
    assert events
    for event in events:
        assert event.kind

class TestInAClass:
    async def test_also_on_nothing(self, rows):
        with lock():
            self.assertTrue(rows)
        while rows:
            self.assertTrue(rows.pop())

def test_raises_always_runs():
    with pytest.raises(ValueError):
        for item in parse(""):
            assert item

def test_a_written_out_loop_and_a_try_always_run(client):
    for k in range(1, 3):
        assert k
    try:
        for path in ("/a/", "/b/"):
            assert client.get(path).status_code == 302
    finally:
        client.logout()

def test_a_function_defined_inside_and_run(game):
    def scenario():
        assert game
    run(scenario)

def test_a_helper_called_at_the_top(game):
    assert_hidden(game, "1-01")
    if game.over:
        assert game.winner
'''


def test_the_scan_catches_a_planted_example() -> None:
    assert unreached(PLANTED, "planted.py") == [
        "planted.py:4:test_passes_on_nothing",
        "planted.py:21:test_also_on_nothing",
        "planted.py:25:test_only_a_helper_defined_inside",
    ]


def test_the_fixed_example_passes() -> None:
    assert unreached(FIXED, "fixed.py") == []
