"""The layers hold: every module's imports are read with ``ast`` and checked
against the project's one-way dependencies (docs/architecture.md, "Layers").

    splendor_site      wiring on top: settings, URLs, the Celery app, WSGI/ASGI
    front              the site's own pages that combine apps (nothing but the wiring imports it)
    leagues, notifications, webhooks, streams, chat, calendars  ->  games  ->  accounts
    api                HTTP plumbing below the apps (imports no app)
    core               domain errors and database helpers (no app, no HTTP)
    engine             the rules: standard library only

The apps are read from Django's app registry (those in this repository), so a new
app is checked without naming it here: any app but accounts and games is a
consumer of games. The apps above games reach it through one declared contract,
games.extensions: each registers its extension in its AppConfig.ready(), an edge
from the app to games that is read here like any import.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.apps import apps

from tests.import_graph import import_cycle, imports_between, write_package

ROOT = Path(__file__).resolve().parent.parent
# The layers on top: the site's own pages, then the wiring.
TOP = ("front", "splendor_site")
# The project's apps, in INSTALLED_APPS order (the ones on top aside).
APPS = tuple(
    config.name
    for config in apps.get_app_configs()
    if Path(config.path).resolve().parent == ROOT and config.name not in TOP
)
# The apps built on games: every app but accounts (below it) and games itself.
CONSUMERS = tuple(app for app in APPS if app not in ("accounts", "games"))
PACKAGES = ("engine", "core", "api", *APPS, *TOP)
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
    if other == "front" and own not in ("front", "splendor_site"):
        return "front is on top: only splendor_site's wiring imports it"
    if own == "accounts" and other in ("games", *CONSUMERS):
        return "games may use accounts, never the reverse (accounts sends signals instead)"
    if own == "games" and other in CONSUMERS:
        return "games imports no app built on it: they register extensions (games.extensions)"
    leaf = module.split(".")[-1]
    if own in APPS and leaf in NO_HTTP_MODULES and other == "rest_framework":
        return f"{leaf} modules hold the domain and never speak HTTP"
    return None


def _edges() -> list[tuple[str, str]]:
    return [(module, imported) for module, path in _modules() for imported in sorted(_imports(path, module))]


def test_the_layer_check_reads_every_package() -> None:
    found = {_top(module) for module, _ in _modules()}
    assert {"engine", "core", "api", "accounts", "games", "splendor_site"} <= found
    assert {"notifications", "webhooks", "leagues", "streams", "chat", "calendars"} <= set(CONSUMERS)
    assert len(_edges()) > 100


# --- the contract between games and the apps on it (games.extensions) --------------------


def _registrations() -> dict[str, list[str]]:
    """The extensions each app's AppConfig.ready() registers: app -> the class names
    passed to ``extensions_register(...)``, read from its apps.py."""
    found: dict[str, list[str]] = {}
    for app in APPS:
        path = ROOT / app / "apps.py"
        if not path.exists():
            continue
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "extensions_register"
                and node.args
                and isinstance(node.args[0], ast.Call)
                and isinstance(node.args[0].func, ast.Name)
            ):
                found.setdefault(app, []).append(node.args[0].func.id)
    return found


def test_each_registration_is_a_declared_edge_from_its_app_to_games() -> None:
    registrations = _registrations()
    assert set(registrations) >= {"notifications", "webhooks", "leagues", "streams", "chat"}
    for app in registrations:
        module = f"{app}.apps"
        assert "games.extensions" in _imports(ROOT / app / "apps.py", module)
        assert _forbidden(module, "games.extensions") is None
        assert _forbidden("games.extensions", f"{app}.extension") is not None  # never the other way


def test_the_registered_extensions_are_the_ones_the_apps_declare() -> None:
    from games.extensions import extensions

    declared = {(app, name) for app, names in _registrations().items() for name in names}
    registered = {(_top(type(extension).__module__), type(extension).__name__) for extension in extensions()}
    assert registered == declared


def test_extensions_have_unique_names_and_follow_installed_apps() -> None:
    from django.conf import settings

    from games.extensions import extensions

    registered = extensions()
    names = [extension.name for extension in registered]
    assert len(names) == len(set(names)), names
    # The consumer names of the claims stored so far stay valid.
    assert {"email", "webhooks", "reminders", "ratings", "chat"} <= set(names)
    order = [app.split(".")[0] for app in settings.INSTALLED_APPS]
    positions = [order.index(_top(type(extension).__module__)) for extension in registered]
    assert positions == sorted(positions)


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


def _module_graph() -> dict[str, set[str]]:
    """Every module of the project -> the project's modules it imports (a name
    imported from a module counts as that module)."""
    modules = dict(_modules())

    def found(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {module: set() for module in modules}
    for module, imported in _edges():
        target = found(imported)
        if target is not None and target != module:
            graph[module].add(target)
    return graph


def test_no_modules_of_different_apps_import_one_another_in_a_circle() -> None:
    """An app may read another's selectors (notifications reads tournaments' for a
    round's email; calendars for the rounds it shows) only while nothing read
    imports it back, directly or through a third app: news the other way goes by
    events (games.extensions)."""
    graph = _module_graph()
    assert "tournaments.selectors" in graph["notifications.email.tournament_rounds"]
    assert not any(_top(imported) == "notifications" for module in graph if _top(module) == "tournaments"
                   for imported in graph[module])
    cycle = import_cycle(graph)
    assert cycle is None, f"import circle: {' -> '.join(cycle or [])}"


# --- inside each package: no circle, no borrowed private names ------------------------------


@pytest.mark.parametrize("package", PACKAGES)
def test_the_modules_of_a_package_import_one_another_without_a_circle(package: str) -> None:
    graph, _ = imports_between(ROOT / package)
    cycle = import_cycle(graph)
    assert cycle is None, f"import circle: {' -> '.join(cycle or [])}"


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_imports_a_private_name_of_another(package: str) -> None:
    _, private = imports_between(ROOT / package)
    assert private == [], "\n".join(private)


def test_no_module_imports_a_private_name_from_another_package() -> None:
    borrowed = []
    for module, path in _modules():
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.ImportFrom) and not node.level and node.module:
                if _top(node.module) in PACKAGES and _top(node.module) != _top(module):
                    borrowed += [
                        f"{module} imports {alias.name} from {node.module}"
                        for alias in node.names
                        if alias.name.startswith("_") and not alias.name.endswith("__")
                    ]
    assert borrowed == []


def test_the_circle_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    root = write_package(tmp_path, {
        "services.py": "def f():\n    from .tasks import send\n    return send\n",
        "tasks.py": "from .services import f\n",
    })
    graph, _ = imports_between(root)
    assert import_cycle(graph) is not None


def test_the_private_name_check_sees_a_borrowed_helper(tmp_path: Path) -> None:
    root = write_package(tmp_path, {
        "services.py": "def _lock_game(): ...\n",
        "moderation.py": "from .services import _lock_game\nfrom pkg.services import _lock_game as lock\n",
    })
    _, private = imports_between(root)
    assert private == ["pkg.moderation imports _lock_game from pkg.services"] * 2


MAX_MODULE_LINES = 800


def test_no_module_is_longer_than_a_person_holds_in_their_head() -> None:
    """Past this many lines a module is split along its seams (tests and migrations aside)."""
    long = {
        module: lines
        for module, path in _modules()
        if (lines := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}
