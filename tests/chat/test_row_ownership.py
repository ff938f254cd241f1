"""Nobody writes another app's rows: a table is written only by the app that owns
it, and the others ask through its services (table talk blanks a hidden line's
copies with ``games.services.redaction``, ``streams.redaction`` and
``notifications.inbound.redaction``).

Read from the source with ``ast`` (an approximation: a model fetched through a
name the scan cannot follow is missed). A module writes a watched model when it
calls a write (``update``, ``create``, ``delete``, ``bulk_*``, ``get_or_create``,
``save``...) on its manager, on a query or instance it got from that manager
(assigned, looped over, unpacked) or made with the model's constructor, on a
parameter annotated with the model, when it sets a field of such an instance, or
when a string of its SQL writes the model's table.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.apps import apps

ROOT = Path(__file__).resolve().parent.parent.parent
# The tables whose rows another app used to write, by model.
WATCHED = (
    "games.GameEvent",
    "games.ModerationEntry",
    "streams.StreamEvent",
    "notifications.InboundMessage",
    "notifications.PendingConfirmation",
)
MANAGERS = frozenset({"objects", "_default_manager", "_base_manager"})
# Methods that hand back the same model's query or instances.
QUERY_METHODS = frozenset(
    {
        "all", "filter", "exclude", "order_by", "select_for_update", "select_related", "prefetch_related",
        "only", "defer", "using", "distinct", "reverse", "none", "get", "first", "last", "earliest", "latest",
        "in_bulk", "iterator",
    }
)
WRITES = frozenset(
    {
        "update", "create", "delete", "bulk_create", "bulk_update", "get_or_create", "update_or_create",
        "save", "save_base", "acreate", "aupdate", "adelete", "abulk_create", "abulk_update",
        "aget_or_create", "aupdate_or_create", "asave",
    }
)
SQL_WRITES = ("update ", "insert ", "delete ")


@dataclass(frozen=True)
class Watched:
    name: str  # the model class's name
    owner: str  # the package that owns the table
    table: str
    accessors: frozenset[str]  # reverse managers on the models it points to (game.events)


def watched_models() -> list[Watched]:
    found = []
    for label in WATCHED:
        model = apps.get_model(label)
        owner = Path(model._meta.app_config.path).relative_to(ROOT).parts[0]
        accessors = frozenset(
            accessor
            for field in model._meta.fields
            if field.is_relation and not (accessor := field.remote_field.get_accessor_name() or "+").endswith("+")
        )
        found.append(Watched(model.__name__, owner, model._meta.db_table, accessors))
    return found


class _Scope:
    """The writes of one function (or a module's top level): which names hold a
    watched model's query or instance, then what is done with them."""

    def __init__(self, node: ast.AST, models: dict[str, str], accessors: dict[str, str]) -> None:
        self.node, self.models, self.accessors = node, models, accessors
        self.held: dict[str, str] = {}  # local name -> model

    def nodes(self) -> list[ast.AST]:
        """The scope's nodes: a function's with the functions inside it (closures);
        a module's top level without its functions (each is a scope of its own)."""
        if not isinstance(self.node, ast.Module):
            return list(ast.walk(self.node))
        found: list[ast.AST] = []
        waiting: list[ast.AST] = [self.node]
        while waiting:
            node = waiting.pop()
            found.append(node)
            waiting.extend(
                child for child in ast.iter_child_nodes(node)
                if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            )
        return found

    def model_of_class(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            return self.models.get(node.id)
        if isinstance(node, ast.Attribute):
            return self.models.get(node.attr)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):  # "GameEvent | None"
            try:
                return self.model_of_class(ast.parse(node.value, mode="eval").body)
            except SyntaxError:
                return None
        if isinstance(node, ast.BinOp):  # GameEvent | None
            return self.model_of_class(node.left) or self.model_of_class(node.right)
        if isinstance(node, ast.Subscript):  # Optional[GameEvent], list[GameEvent]
            return self.model_of_class(node.slice)
        return None

    def model_held(self, node: ast.expr) -> str | None:
        """The watched model whose query, manager or instance ``node`` is."""
        if isinstance(node, ast.Name):
            return self.held.get(node.id)
        if isinstance(node, ast.Attribute):
            if node.attr in MANAGERS:
                return self.model_of_class(node.value)
            if node.attr in self.accessors:
                return self.accessors[node.attr]
            return None
        if isinstance(node, ast.Subscript):
            return self.model_held(node.value)
        if isinstance(node, ast.Await):
            return self.model_held(node.value)
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in QUERY_METHODS | {"get_or_create", "create"}:
                return self.model_held(func.value)
            if isinstance(func, ast.Name) and func.id in ("list", "sorted", "reversed", "next", "iter"):
                return self.model_held(node.args[0]) if node.args else None
            if isinstance(func, (ast.Name, ast.Attribute)):
                return self.model_of_class(func)  # GameEvent(...)
        return None

    def hold(self, target: ast.expr, model: str) -> None:
        for name in ast.walk(target):
            if isinstance(name, ast.Name):
                self.held[name.id] = model

    def learn(self) -> None:
        """Which names hold what, until nothing new is learnt (flow-insensitive)."""
        for _ in range(5):
            before = dict(self.held)
            for node in self.nodes():
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node is self.node:
                    for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
                        if arg.annotation is not None and (model := self.model_of_class(arg.annotation)):
                            self.held[arg.arg] = model
                elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
                    if model := self.model_held(node.value):
                        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                        for target in targets:
                            self.hold(target, model)
                elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and (
                    model := self.model_held(node.iter)
                ):
                    self.hold(node.target, model)
            if self.held == before:
                return

    def writes(self) -> list[tuple[int, str, str]]:
        """(line, model, what) of each write found."""
        self.learn()
        found = []
        for node in self.nodes():
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in WRITES:
                if model := self.model_held(node.func.value):
                    found.append((node.lineno, model, f".{node.func.attr}("))
            elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    for part in ast.walk(target):
                        if isinstance(part, ast.Attribute) and (model := self.model_held(part.value)):
                            found.append((node.lineno, model, f"sets .{part.attr}"))
            elif (
                isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr"
                and node.args and (model := self.model_held(node.args[0]))
            ):
                found.append((node.lineno, model, "setattr("))
        return found


def row_writes(source: str, module: str, watched: list[Watched]) -> list[str]:
    """Each write in ``source`` to a watched model its package does not own."""
    own = module.split(".")[0]
    others = [model for model in watched if model.owner != own]
    if not others:
        return []
    tree = ast.parse(source)
    models = {model.name: model.name for model in others}
    for node in ast.walk(tree):  # from games.models import GameEvent as Event
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.asname and alias.name in models:
                    models[alias.asname] = alias.name
    accessors = {accessor: model.name for model in others for accessor in model.accessors}
    found: set[tuple[int, str, str]] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)):
            found.update(_Scope(node, models, accessors).writes())
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            sql = " ".join(node.value.lower().split())
            for model in others:
                if model.table in sql and any(word in sql for word in SQL_WRITES):
                    found.add((node.lineno, model.name, "SQL"))
    return [f"{module}:{line} writes {model} ({what})" for line, model, what in sorted(found)]


def _packages() -> list[Path]:
    return sorted(path.parent for path in ROOT.glob("*/__init__.py") if path.parent.name != "tests")


def _modules() -> list[tuple[str, Path]]:
    return [
        (".".join(path.relative_to(ROOT).with_suffix("").parts), path)
        for package in _packages()
        for path in sorted(package.rglob("*.py"))
        if "migrations" not in path.parts
    ]


def test_the_scan_reads_every_package_and_knows_each_tables_owner() -> None:
    names = {package.name for package in _packages()}
    assert {"games", "streams", "notifications", "chat"} <= names
    owners = {model.name: model.owner for model in watched_models()}
    assert owners == {
        "GameEvent": "games",
        "ModerationEntry": "games",
        "StreamEvent": "streams",
        "InboundMessage": "notifications",
        "PendingConfirmation": "notifications",
    }


def test_no_module_writes_a_table_of_another_app() -> None:
    watched = watched_models()
    broken = [found for module, path in _modules() for found in row_writes(path.read_text(), module, watched)]
    assert broken == []


# How chat.services blanked a hidden or erased line before the owning apps did it.
OLD_CHAT_SERVICES = '''
from games.models import GameEvent
from notifications.models import InboundMessage, PendingConfirmation
from streams.models import StreamEvent


def _copies_blank(message_ids: list[int], **marks: Any) -> None:
    for event in GameEvent.objects.filter(kind=GameEvent.Kind.CHAT, payload__message_id__in=message_ids):
        event.payload = {**event.payload, "text": "", **marks}
        event.save(update_fields=["payload"])
    for row in StreamEvent.objects.filter(kind=GameEvent.Kind.CHAT, data__message_id__in=message_ids):
        row.data = {**row.data, "text": "", **marks}
        row.save(update_fields=["data"])


def chat_forget_account(*, user_id: int) -> int:
    for inbound in InboundMessage.objects.filter(user_id=user_id, reply__done="say"):
        inbound.reply = {**inbound.reply, "said": ""}
        inbound.save(update_fields=["reply"])
    PendingConfirmation.objects.filter(user_id=user_id, details__kind="say").delete()
    return 0
'''


def test_the_scan_catches_how_chat_once_blanked_other_apps_rows() -> None:
    found = row_writes(OLD_CHAT_SERVICES, "chat.services", watched_models())
    assert found == [
        "chat.services:9 writes GameEvent (sets .payload)",
        "chat.services:10 writes GameEvent (.save()",
        "chat.services:12 writes StreamEvent (sets .data)",
        "chat.services:13 writes StreamEvent (.save()",
        "chat.services:18 writes InboundMessage (sets .reply)",
        "chat.services:19 writes InboundMessage (.save()",
        "chat.services:20 writes PendingConfirmation (.delete()",
    ]


@pytest.mark.parametrize(
    "source",
    [
        "GameEvent.objects.filter(game_id=1).update(payload={})",
        "StreamEvent.objects.create(user_id=1, data={})",
        "from games.models import GameEvent as Event\nEvent.objects.bulk_create([])",
        "import games.models\ngames.models.GameEvent.objects.filter(pk=1).delete()",
        "event = GameEvent.objects.get(pk=1)\nevent.save()",
        "row, _ = InboundMessage.objects.get_or_create(pk=1)",
        "events = [e for e in GameEvent.objects.all()]\nGameEvent.objects.bulk_update(events, ['payload'])",
        "entry = ModerationEntry(reason='x')\nentry.save()",
        "def f(inbound: InboundMessage) -> None:\n    inbound.command = 'say'",
        "def f(inbound: 'InboundMessage | None') -> None:\n    setattr(inbound, 'command', 'say')",
        "game.events.create(kind='chat', payload={})",
        "cursor.execute('UPDATE streams_streamevent SET data = %s')",
        "async def f():\n    await StreamEvent.objects.filter(pk=1).adelete()",
    ],
)
def test_the_scan_sees_a_write(source: str) -> None:
    assert row_writes(source, "chat.services", watched_models()) != []


@pytest.mark.parametrize(
    "source",
    [
        "GameEvent.objects.filter(game_id=1).count()",
        "for event in GameEvent.objects.filter(pk=1):\n    payload = dict(event.payload)\n    payload.update(text='')",
        "def f(event: GameEvent) -> str:\n    return event.kind",
        "ChatMessage.objects.filter(pk=1).update(text='')",
        "cursor.execute('SELECT id FROM games_gameevent')",
    ],
)
def test_the_scan_lets_reads_and_own_rows_be(source: str) -> None:
    assert row_writes(source, "chat.services", watched_models()) == []


def test_an_owner_writes_its_own_table() -> None:
    source = "GameEvent.objects.filter(pk=1).update(payload={})"
    assert row_writes(source, "games.services.redaction", watched_models()) == []
    assert row_writes(source, "streams.redaction", watched_models()) != []
