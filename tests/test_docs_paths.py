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
PACKAGES = ("accounts", "api", "core", "engine", "games", "leagues", "notifications", "splendor_site", "webhooks")
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
