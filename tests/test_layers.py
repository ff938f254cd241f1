"""The layers hold: every module's imports are read with ``ast`` and checked
against the project's one-way dependencies (docs/architecture.md, "Layers").

    splendor_site      wiring on top: settings, URLs, the Celery app, WSGI/ASGI
    leagues, notifications, webhooks  ->  games  ->  accounts
    api                HTTP plumbing below the apps (imports no app)
    core               domain errors and database helpers (no app, no HTTP)
    engine             the rules: standard library only
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "core", "api", "accounts", "games", "notifications", "webhooks", "leagues", "splendor_site")
APPS = ("accounts", "games", "notifications", "webhooks", "leagues")
# Modules that hold the domain: they never speak HTTP.
NO_HTTP_MODULES = ("models", "services", "selectors", "tasks", "errors", "results", "receivers", "signals")


def _modules() -> Iterator[tuple[str, Path]]:
    for package in PACKAGES:
        base = ROOT / package
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*.py")):
            if "migrations" in path.parts:
                continue
            yield ".".join(path.relative_to(ROOT).with_suffix("").parts), path


def _imports(path: Path, module: str) -> set[str]:
    """Every module named by an import anywhere in the file, inside functions too."""
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    package_parts = module.split(".")[:-1] if path.name != "__init__.py" else module.split(".")
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package_parts[: len(package_parts) - node.level + 1]
                names.add(".".join([*base, node.module] if node.module else base))
            elif node.module:
                names.add(node.module)
    return names


def _top(name: str) -> str:
    return name.split(".")[0]


def _forbidden(module: str, imported: str) -> str | None:
    """Why ``module`` may not import ``imported``, or None when it may."""
    own, other = _top(module), _top(imported)
    if own == "engine" and other != "engine" and other in {*PACKAGES, "django", "rest_framework", "celery"}:
        return "the engine imports nothing of the project or of Django"
    if own == "core" and other in {*PACKAGES, "rest_framework"} - {"core"}:
        return "core imports no app and no HTTP"
    if own == "api" and other in {*APPS, "splendor_site"}:
        return "api is below the apps: it imports none of them"
    if own in APPS or own in ("engine", "core", "api"):
        if other == "splendor_site":
            return "nothing imports splendor_site: it is the wiring on top"
    if own == "accounts" and other in ("games", "notifications", "webhooks", "leagues"):
        return "games may use accounts, never the reverse (accounts sends signals instead)"
    if own == "games" and other in ("notifications", "webhooks", "leagues"):
        return "news leaves games only as GameEvent rows: games imports no consumer"
    leaf = module.split(".")[-1]
    if own in APPS and leaf in NO_HTTP_MODULES and other == "rest_framework":
        return f"{leaf} modules hold the domain and never speak HTTP"
    return None


def _edges() -> list[tuple[str, str]]:
    return [(module, imported) for module, path in _modules() for imported in sorted(_imports(path, module))]


def test_the_layer_check_reads_every_package() -> None:
    found = {_top(module) for module, _ in _modules()}
    assert {"engine", "core", "api", "accounts", "games", "splendor_site"} <= found
    assert len(_edges()) > 100


@pytest.mark.parametrize(
    "module, imported",
    [
        ("engine.rules", "django.db"),
        ("games.services", "splendor_site.settings"),
        ("games.services", "rest_framework.exceptions"),
        ("games.selectors", "notifications.tasks"),
        ("accounts.services", "games.services"),
        ("api.problems", "games.errors"),
        ("core.errors", "rest_framework"),
    ],
)
def test_the_layer_check_refuses_a_forbidden_edge(module: str, imported: str) -> None:
    assert _forbidden(module, imported) is not None


def test_no_module_imports_against_the_layers() -> None:
    broken = [
        f"{module} imports {imported}: {reason}"
        for module, imported in _edges()
        if (reason := _forbidden(module, imported)) is not None
    ]
    assert broken == []
