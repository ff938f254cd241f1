"""The JSON of a hot response, built without instantiating its DRF serializer.

A DRF serializer deep-copies every declared field each time it is made, nested
ones included; for the answers every turn returns (the game after a move, the
legal moves) that was a sixth of the request's CPU. ``representation_for`` reads
a serializer class once and returns a function that turns the same data into the
same JSON: every field in declared order, None kept where the field allows it,
datetimes as DRF writes them, plain values through the field's own conversion.
The serializer stays the schema's description; a test holds the two outputs equal
over real games (tests/games/test_fast_representation.py).

Only the field types the hot responses use are known here; a serializer with any
other (a source path, a method field, ...) is refused when its plan is made, so a
change to it cannot silently render differently.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from rest_framework import fields as drf_fields
from rest_framework import serializers

Convert = Callable[[Any], Any]
Render = Callable[[Any], dict[str, Any]]


def _datetime_field(field: drf_fields.DateTimeField) -> Convert:
    # DRF's own conversion (the current time zone, ISO 8601, "Z" for UTC), per value:
    # cheap once the field exists; the field is made once, here.
    def convert(value: Any) -> Any:
        return field.to_representation(value) if isinstance(value, datetime) else value

    return convert


def _plain(kind: type) -> Convert:
    def convert(value: Any) -> Any:
        return value if type(value) is kind else kind(value)

    return convert


def _field_plan(field: drf_fields.Field[Any, Any, Any, Any]) -> Convert:
    if field.source not in (field.field_name, None, "") and field.source != "*":
        raise TypeError(f"{field.field_name}: a source of its own ({field.source}) is not known here")
    if isinstance(field, serializers.ListSerializer):
        child = field.child
        if not isinstance(child, serializers.Serializer):
            raise TypeError(f"{field.field_name}: a list of {type(child).__name__} is not known here")
        item = _serializer_plan(type(child), child)
        return lambda values: [item(value) for value in values]
    if isinstance(field, serializers.Serializer):
        return _serializer_plan(type(field), field)
    if isinstance(field, drf_fields.JSONField):
        return lambda value: value
    if isinstance(field, drf_fields.DateTimeField):
        return _datetime_field(field)
    if isinstance(field, drf_fields.ChoiceField):
        lookup = field.choice_strings_to_values
        return lambda value: lookup.get(str(value), value)
    if isinstance(field, drf_fields.BooleanField):
        return lambda value: value if type(value) is bool else field.to_representation(value)
    for kind, plain in ((drf_fields.CharField, str), (drf_fields.IntegerField, int), (drf_fields.FloatField, float)):
        if isinstance(field, kind):
            return _plain(plain)
    if isinstance(field, drf_fields.ListField):
        each = _field_plan(field.child)
        return lambda values: [None if value is None else each(value) for value in values]
    if isinstance(field, drf_fields.DictField):
        each_value = _field_plan(field.child)
        return lambda values: {str(key): None if value is None else each_value(value) for key, value in values.items()}
    raise TypeError(f"{field.field_name}: {type(field).__name__} is not known here")


def _serializer_plan(serializer_class: type[serializers.Serializer[Any]], instance: Any = None) -> Render:
    serializer = instance if instance is not None else serializer_class()
    steps = [(name, _field_plan(field)) for name, field in serializer.fields.items() if not field.write_only]

    def convert(data: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, step in steps:
            value = data[name]
            out[name] = None if value is None else step(value)
        return out

    return convert


def representation_for(serializer_class: type[serializers.Serializer[Any]]) -> Render:
    """A function giving what ``serializer_class(data).data`` gives, for ``data``
    shaped as the serializer expects (a dict with every field)."""
    return _serializer_plan(serializer_class)
