"""What the apps' input serializers share: a request body may hold only the
fields its endpoint takes, and fields that mean a number or a text take only a
JSON number or a JSON string.

DRF drops keys it does not know and reads ``"5"``, ``5.0`` and ``true`` as the
integer 5, 5 and 1, and ``5`` as the text ``"5"``: a misspelt field
(``expected_versoin``) or a client's type bug would be carried out as if the
request had said something else. Here both are a 400 that names the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext, gettext_lazy
from rest_framework import serializers

from core.text import listed


class StrictInputSerializer(serializers.Serializer[dict[str, Any]]):
    """Base of every serializer that reads a request body: unknown fields are
    refused, each named in ``errors`` with the fields the endpoint does take.

    Unknown fields are reported with the other fields' errors, and before
    ``validate`` runs, so a request with a stray field never reaches the checks
    that cost a query.

    Every subclass says in its own docstring what its request is for: the API
    schema takes a serializer's docstring as the description of its request body,
    and would otherwise show this one, which tells a client nothing.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not (cls.__dict__.get("__doc__") or "").strip():
            raise TypeError(
                f"{cls.__qualname__} reads a request body: its docstring must say what the request is for "
                "(the API schema shows it as the request's description)."
            )

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        unknown = self._unknown_fields(data)
        try:
            value: dict[str, Any] = super().to_internal_value(data)
        except serializers.ValidationError as exc:
            if unknown and isinstance(exc.detail, dict):
                raise serializers.ValidationError({**exc.detail, **unknown}) from None
            raise
        if unknown:
            raise serializers.ValidationError(unknown)
        return value

    def _unknown_fields(self, data: Any) -> dict[str, list[str]]:
        if not isinstance(data, Mapping):
            return {}  # DRF refuses anything but an object on its own
        known = [name for name, field in self.fields.items() if not field.read_only]
        unknown = [str(name) for name in data if name not in known]
        if not unknown:
            return {}  # the message is translated and listed only for a body that needs it
        if known:
            message = gettext("This request has no such field; the fields here are %(fields)s.") % {
                "fields": listed([f"`{name}`" for name in known])
            }
        else:
            message = gettext("This request has no such field; it takes no fields.")
        return {name: [message] for name in unknown}


class JSONIntegerField(serializers.IntegerField):
    """An integer written as a JSON number: ``"5"``, ``5.0`` and ``true`` are refused."""

    default_error_messages = {
        "not_an_integer": gettext_lazy("Must be a whole number such as 7, written without quotes or a decimal point."),
    }

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("not_an_integer")
        return super().to_internal_value(data)


class JSONStringField(serializers.CharField):
    """Text written as a JSON string: a number, a boolean, a list or an object is refused."""

    default_error_messages = {"not_a_string": gettext_lazy("Must be text in double quotes.")}

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("not_a_string")
        return super().to_internal_value(data)
