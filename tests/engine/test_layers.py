"""The engine's modules stand one above the other: no import circle, not even
through an import inside a function, and no module imports another's private
(underscore) names. Both are read from the source with ``ast``, so an import
that only runs on some path still counts."""

from __future__ import annotations

from pathlib import Path

import engine
from tests.import_graph import import_cycle, imports_between, write_package

ENGINE_DIR = Path(engine.__file__).resolve().parent


def test_the_engine_modules_import_one_another_without_a_circle():
    graph, _ = imports_between(ENGINE_DIR)
    assert import_cycle(graph) is None, f"import circle: {' -> '.join(import_cycle(graph) or [])}"


def test_no_engine_module_imports_a_private_name_of_another():
    _, private = imports_between(ENGINE_DIR)
    assert not private, "\n".join(private)


def test_the_layers_stand_in_the_documented_order():
    """Diagnosis above the rules, notation above diagnosis, ``apply`` (play) above
    both; the rules below all three, the typed results below everything."""
    graph, _ = imports_between(ENGINE_DIR)
    assert graph["engine.results"] == set()
    assert "engine.rules" in graph["engine.diagnosis"]
    assert {"engine.rules", "engine.diagnosis"} <= graph["engine.notation"]
    assert {"engine.rules", "engine.notation", "engine.diagnosis"} <= graph["engine.play"]
    below_rules = {"engine.errors", "engine.data", "engine.results", "engine.moves", "engine.variants",
                   "engine.state", "engine.memos"}
    assert graph["engine.rules"] <= below_rules
    assert graph["engine.memos"] <= below_rules - {"engine.memos"}


def test_the_graph_is_read_from_every_kind_of_import(tmp_path):
    root = write_package(tmp_path, {
        "a.py": "from .b import thing\nimport pkg.c\n",
        "b.py": "thing = 1\n",
        "c.py": "from . import b\n",
        "sub/__init__.py": "",
        "sub/d.py": "from ..a import thing\nfrom .. import c\n",
    })
    graph, _ = imports_between(root)
    assert graph == {
        "pkg": set(), "pkg.a": {"pkg.b", "pkg.c"}, "pkg.b": set(), "pkg.c": {"pkg.b"},
        "pkg.sub": set(), "pkg.sub.d": {"pkg.a", "pkg.c"},
    }


def test_an_import_inside_a_function_closes_a_circle(tmp_path):
    """The shape the engine had: rules imported notation lazily to parse text."""
    root = write_package(tmp_path, {
        "rules.py": "def apply(s, m):\n    from .notation import parse_move\n    return parse_move(s, m)\n",
        "notation.py": "from .rules import apply\n",
    })
    graph, _ = imports_between(root)
    assert import_cycle(graph) in (["pkg.rules", "pkg.notation", "pkg.rules"],
                                   ["pkg.notation", "pkg.rules", "pkg.notation"])


def test_importing_an_underscore_name_from_a_sibling_module_is_reported(tmp_path):
    root = write_package(tmp_path, {
        "rules.py": "def _diagnose(): ...\n__all__ = []\n",
        "notation.py": "from .rules import _diagnose, __all__\nfrom .rules import _diagnose as diagnose\n",
    })
    _, private = imports_between(root)
    assert private == ["pkg.notation imports _diagnose from pkg.rules"] * 2
