"""The engine's modules stand one above the other: no import circle, not even
through an import inside a function, and no module imports another's private
(underscore) names. Both are read from the source with ``ast``, so an import
that only runs on some path still counts."""

from __future__ import annotations

import ast
import graphlib
import textwrap
from pathlib import Path

import engine

ENGINE_DIR = Path(engine.__file__).resolve().parent


def module_name(root: Path, path: Path) -> str:
    """``engine/bots/greedy.py`` -> ``engine.bots.greedy``; a package is its ``__init__``."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_modules(root: Path) -> dict[str, Path]:
    """Every module of the package in ``root``, by dotted name."""
    return {module_name(root, p): p for p in sorted(root.rglob("*.py"))}


def imports_between(root: Path) -> tuple[dict[str, set[str]], list[str]]:
    """The import graph among the package's modules (module -> modules it imports)
    and every import of an underscore name from another module of the package."""
    modules = package_modules(root)
    top = root.name
    graph: dict[str, set[str]] = {name: set() for name in modules}
    private: list[str] = []
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        here = name.split(".") if is_package else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == top or alias.name.startswith(top + "."):
                        graph[name].add(alias.name)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here[: len(here) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if target != top and not target.startswith(top + "."):
                    continue
                for alias in node.names:
                    submodule = f"{target}.{alias.name}"
                    if submodule in modules:
                        graph[name].add(submodule)
                        continue
                    graph[name].add(target)
                    if alias.name.startswith("_") and not alias.name.endswith("__") and target != name:
                        private.append(f"{name} imports {alias.name} from {target}")
    return graph, private


def import_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of imports, as module names (first = last), or None."""
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as exc:
        return list(exc.args[1])
    return None


def write_package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for rel, text in {"__init__.py": "", **files}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


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
                   "engine.state"}
    assert graph["engine.rules"] <= below_rules


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
