"""Rows read by a statement written by hand, made into model instances as the ORM
would make them: each column goes through the converters the ORM applies (the
backend's and the field's), then ``Model.from_db``.

For the few reads on every request whose queryset the ORM would otherwise build
anew each time (games.game_rows, accounts.token_rows): the statement is written
once per connection from the models' own fields, so it follows the models.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model

Converter = Callable[[Any, Any, BaseDatabaseWrapper], Any]
Plan = TypeVar("Plan")


class PerConnection(Generic[Plan]):
    """What ``build`` makes of a database connection (its statements, written for
    its backend), made once per connection object and forgotten with it."""

    def __init__(self, build: Callable[[BaseDatabaseWrapper], Plan]) -> None:
        self._build = build
        self._made: weakref.WeakKeyDictionary[BaseDatabaseWrapper, Plan] = weakref.WeakKeyDictionary()

    def __call__(self, db: BaseDatabaseWrapper) -> Plan:
        made = self._made.get(db)
        if made is None:
            made = self._made[db] = self._build(db)
        return made


def column(field: Any) -> str:
    """A concrete field's column."""
    assert isinstance(field, Field) and field.column is not None
    return field.column


def column_of(model: type[Model], name: str) -> str:
    """The column of ``model``'s field ``name`` (``pk``: its primary key)."""
    return column(model._meta.pk if name == "pk" else model._meta.get_field(name))


@dataclass(frozen=True)
class ModelColumns:
    """One model's columns in a statement, under a table name or alias: what to
    select and how to read them back."""

    model: type[Model]
    alias: str
    attnames: list[str]
    converters: list[tuple[int, Any, list[Converter]]]  # (position, column expression, converters) where there are any

    @classmethod
    def of(cls, model: type[Model], alias: str, db: BaseDatabaseWrapper) -> ModelColumns:
        fields: Sequence[Field[Any, Any]] = model._meta.concrete_fields
        converters = []
        for position, field in enumerate(fields):
            expression = field.get_col(alias)
            found = db.ops.get_db_converters(expression) + field.get_db_converters(db)
            if found:
                converters.append((position, expression, found))
        return cls(model=model, alias=alias, attnames=[f.attname for f in fields], converters=converters)

    def select(self, quote: Callable[[str], str]) -> str:
        return ", ".join(
            f"{quote(self.alias)}.{quote(column(field))}" for field in self.model._meta.concrete_fields
        )

    def read(self, row: Sequence[Any], start: int, db: BaseDatabaseWrapper) -> Model | None:
        """The instance in ``row`` from ``start`` (None when an outer join found none)."""
        values = list(row[start : start + len(self.attnames)])
        if values[0] is None:  # the primary key, first of the concrete fields
            return None
        for position, expression, converters in self.converters:
            for convert in converters:
                values[position] = convert(values[position], expression, db)
        return self.model.from_db(db.alias, self.attnames, values)
