"""The import graph of a package, read from its source with ``ast`` (imports
inside functions included, since they close circles all the same), and the
imports of another module's private (underscore) names. Used by
tests/test_layers.py for every package and tests/engine/test_layers.py for the
engine's own order."""

from __future__ import annotations

import ast
import graphlib
import textwrap
from pathlib import Path


def module_name(root: Path, path: Path) -> str:
    """``engine/bots/greedy.py`` -> ``engine.bots.greedy``; a package is its ``__init__``."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_modules(root: Path) -> dict[str, Path]:
    """Every module of the package in ``root``, by dotted name (migrations aside:
    they are written by makemigrations and import nothing of each other's)."""
    return {module_name(root, p): p for p in sorted(root.rglob("*.py")) if "migrations" not in p.parts}


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
