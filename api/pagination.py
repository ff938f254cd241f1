"""Pagination of the API's lists: DRF's limit/offset, with a ceiling on the page
and the parameters checked rather than guessed at."""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext
from rest_framework import pagination
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request

_DIGITS = re.compile(r"[0-9]+")


class LimitOffsetPagination(pagination.LimitOffsetPagination):
    # Without a ceiling one request could read every row, and a limit beyond
    # 2**63 reached PostgreSQL as a LIMIT it refuses (a server error).
    max_limit = 100

    # DRF serves `limit=-5`, `limit=abc` and `limit=500` as the default page or
    # the ceiling, so a client's mistake reads as a short list: they are a 400
    # that names the parameter instead. A limit of 0 is refused too: its `next`
    # would point at the same page for ever.
    def get_limit(self, request: Request) -> int:
        text = request.query_params.get(self.limit_query_param)
        if text is None:
            return int(self.default_limit or self.max_limit)
        limit = _whole_number(text)
        if limit is None or not 1 <= limit <= self.max_limit:
            raise ValidationError(
                {self.limit_query_param: [gettext("Give a whole number from 1 to %(most)d.") % {"most": self.max_limit}]}
            )
        return limit

    def get_offset(self, request: Request) -> int:
        text = request.query_params.get(self.offset_query_param)
        if text is None:
            return 0
        offset = _whole_number(text)
        if offset is None:
            raise ValidationError({self.offset_query_param: [gettext("Give a whole number, 0 or more.")]})
        return offset  # past the end is an empty page, and never reaches the database

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters: list[dict[str, Any]] = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.limit_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 1, "maximum": self.max_limit}
            elif parameter["name"] == self.offset_query_param:
                parameter["schema"] = {"type": "integer", "minimum": 0}
        return parameters


def _whole_number(text: str) -> int | None:
    """The number ``text`` writes in ASCII digits alone (no sign, space or ``_``,
    which ``int`` would take), or None."""
    if not _DIGITS.fullmatch(text):
        return None
    try:
        return int(text)
    except ValueError:  # more digits than int() converts
        return None
