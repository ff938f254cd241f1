"""Content negotiation: the API speaks JSON, and says so to a client that asks
for anything else.

DRF answers an Accept it cannot meet (a browser's address bar without ``*/*``, a
script's ``Accept: text/html``) with "Could not satisfy the request Accept
header.", which tells a person neither what the API does speak nor where to
read about it. A client that asks for the error format alone
(``application/problem+json``) is answered in JSON, which is what it means.
"""

from __future__ import annotations

from collections.abc import Iterable

from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request

# Not imported from api.problems: DRF loads this class while rest_framework.views,
# which api.problems imports, is still being defined.
PROBLEM_CONTENT_TYPE = "application/problem+json"

SPEAKS_JSON = (
    "This API answers only in JSON (application/json; errors as application/problem+json). Send "
    "`Accept: application/json`, or no Accept header; the documentation for people is at /api/docs/."
)


class JSONContentNegotiation(DefaultContentNegotiation):
    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        renderers = list(renderers)
        try:
            chosen: tuple[BaseRenderer, str] = super().select_renderer(request, renderers, format_suffix)
            return chosen
        except NotAcceptable:
            json_renderer = next((renderer for renderer in renderers if renderer.format == "json"), None)
            if json_renderer is not None and _asks_for_problem_json(self.get_accept_list(request)):
                return json_renderer, str(json_renderer.media_type)
            raise NotAcceptable(SPEAKS_JSON) from None


def _asks_for_problem_json(accepted: list[str]) -> bool:
    return any(token.split(";")[0].strip().lower() == PROBLEM_CONTENT_TYPE for token in accepted)
