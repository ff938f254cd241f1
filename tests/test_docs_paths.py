"""Every Python name the documents give (`games.services.game_create`,
`notifications.email.tasks`, ...) still names something: a module or what is in
it, a Celery task's name, a model (`games.ModerationEntry`) or a permission
(`games.moderate_game`). When code moves, the documents move with it."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
from celery import current_app
from django.apps import apps

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]


def _packages() -> tuple[str, ...]:
    """The project's packages: its installed apps (those the app registry finds in
    this repository) and the packages whose catalogs settings.LOCALE_PATHS names
    (engine, core, api), so that a new app's names are checked unnamed here."""
    from django.conf import settings

    folders = {Path(config.path).resolve() for config in apps.get_app_configs()}
    folders |= {Path(path).resolve().parent for path in settings.LOCALE_PATHS}
    found = set()
    for folder in folders:
        if folder.is_relative_to(ROOT):
            parts = folder.relative_to(ROOT).parts
            if parts and "site-packages" not in parts and not any(part.startswith(".") for part in parts):
                found.add(parts[0])
    return tuple(sorted(found))


PACKAGES = _packages()
DOTTED = re.compile(r"`((?:" + "|".join(PACKAGES) + r")(?:\.[A-Za-z_][A-Za-z0-9_]*)+)")


def _names_in_documents() -> list[tuple[str, str]]:
    found = set()
    for document in DOCUMENTS:
        for name in DOTTED.findall(document.read_text()):
            found.add((document.name, name))
    return sorted(found)


def _python_object(name: str) -> bool:
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(target, attribute):
                return False
            target = getattr(target, attribute)
        return True
    return False


def _task_names() -> set[str]:
    current_app.loader.import_default_modules()
    return set(current_app.tasks)


def _model_or_permission(name: str) -> bool:
    label, _, rest = name.partition(".")
    if "." in rest:
        return False
    try:
        config = apps.get_app_config(label)
    except LookupError:
        return False
    for model in config.get_models():
        if rest == model.__name__:
            return True
        defaults = {f"{action}_{model._meta.model_name}" for action in model._meta.default_permissions}
        if rest in defaults | {codename for codename, _ in model._meta.permissions}:
            return True
    return False


def test_the_documents_name_python_things() -> None:
    assert len(_names_in_documents()) > 30


def test_the_packages_are_read_from_the_app_registry() -> None:
    assert {"accounts", "games", "chat", "streams", "calendars", "engine", "core", "api", "splendor_site"} <= set(PACKAGES)
    assert not {"django", "rest_framework", "anymail"} & set(PACKAGES)


@pytest.mark.parametrize(("document", "name"), _names_in_documents())
def test_a_name_in_the_documents_names_something(document: str, name: str) -> None:
    tasks = _task_names()
    # A task's name, or the namespace of several (`notifications.tasks.*`).
    a_task = name in tasks or any(task.startswith(name + ".") for task in tasks)
    assert _python_object(name) or a_task or _model_or_permission(name), (
        f"{document} names {name}, which is no module, object, task, model or permission"
    )


def test_a_name_that_moved_away_is_caught() -> None:
    assert not _python_object("games.services.no_such_service")
    assert not any(task.startswith("notifications.no_such_tasks") for task in _task_names())
    assert not _model_or_permission("games.no_such_permission")
