"""Every answer that depends on its caller says so to caches: Vary: Authorization
and Cache-Control: private, no-store (a seat's view and its legal moves can name
its own blind-reserved card; a new token is shown once)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import get_resolver
from tests.games.game_helpers import client_for

from accounts.models import ApiToken
from games.models import Game

ACCOUNT_AND_GAME_CALLS = [
    ("post", "/api/v1/players/"),
    ("post", "/api/v1/players/verify/"),
    ("post", "/api/v1/players/resend/"),
    ("delete", "/api/v1/tokens/{token}/"),
    ("get", "/api/v1/me/"),
    ("get", "/api/v1/tokens/"),
    ("post", "/api/v1/tokens/"),
    ("get", "/api/v1/games/"),
    ("post", "/api/v1/games/"),
    ("get", "/api/v1/games/{id}/"),
    ("get", "/api/v1/games/{id}/legal-moves/"),
    ("get", "/api/v1/games/{id}/moves/"),
    ("post", "/api/v1/games/{id}/moves/"),
    ("post", "/api/v1/games/{id}/join/"),
    ("post", "/api/v1/games/{id}/resign/"),
    ("post", "/api/v1/games/{id}/cancel/"),
    ("post", "/api/v1/games/{id}/decline/"),
    ("get", "/api/v1/games/{id}/export/"),
    ("post", "/api/v1/games/{id}/sandbox/"),
    ("delete", "/api/v1/me/"),  # refused: the body has no confirmation
    ("post", "/api/v1/me/password/"),
    ("post", "/api/v1/me/calendar/rotate/"),
    ("get", "/api/v1/me/export/"),
    ("get", "/api/v1/me/vacation/"),
    ("post", "/api/v1/me/vacation/"),
    ("get", "/api/v1/me/notifications/"),
    ("patch", "/api/v1/me/notifications/"),
    ("get", "/api/v1/me/emails/"),
    ("post", "/api/v1/me/emails/"),
    ("post", "/api/v1/me/emails/{address}/verify/"),
    ("post", "/api/v1/me/emails/{address}/primary/"),
    ("delete", "/api/v1/me/emails/{address}/"),
    ("get", "/api/v1/games/{id}/plan/"),
    ("put", "/api/v1/games/{id}/plan/"),
    ("delete", "/api/v1/games/{id}/plan/"),
    ("get", "/api/v1/games/{id}/notes/"),
    ("put", "/api/v1/games/{id}/notes/"),  # no body: a validation problem
    ("get", "/api/v1/games/{id}/chat/"),
    ("post", "/api/v1/games/{id}/chat/"),  # no text: a validation problem
    ("get", "/api/v1/games/{id}/chat/preferences/"),
    ("patch", "/api/v1/games/{id}/chat/preferences/"),
    ("post", "/api/v1/games/{id}/chat/report/"),
    ("get", "/api/v1/games/{id}/chat/export/"),  # before the end: a 409 problem
    ("get", "/api/v1/games/{id}/review/"),  # before the end: a 409 problem
    ("post", "/api/v1/games/{id}/review/"),
    ("put", "/api/v1/games/{id}/mute/"),
    ("delete", "/api/v1/games/{id}/mute/"),
    ("post", "/api/v1/games/{id}/link/rotate/"),
    ("get", "/api/v1/webhooks/"),
    ("post", "/api/v1/webhooks/"),
    ("get", "/api/v1/webhooks/{webhook}/"),
    ("get", "/api/v1/webhooks/{webhook}/deliveries/"),
    ("post", "/api/v1/webhooks/{webhook}/rotate-secret/"),
    ("get", "/api/v1/push/key/"),
    ("get", "/api/v1/me/push-subscriptions/"),
    ("post", "/api/v1/me/push-subscriptions/"),
    ("delete", "/api/v1/me/push-subscriptions/{webhook}/"),
    ("get", "/api/v1/leagues/"),
    ("get", "/api/v1/leagues/{league}/"),
    ("post", "/api/v1/leagues/{league}/join/"),
    ("post", "/api/v1/leagues/{league}/leave/"),
    ("get", "/api/v1/leagues/{league}/next-game/"),
    ("get", "/api/v1/leagues/{league}/seasons/{season}/standings/"),
    ("get", "/api/v1/players/{username}/ratings/"),
    ("get", "/api/v1/tournaments/"),
    ("get", "/api/v1/tournaments/{tournament}/"),
    ("post", "/api/v1/tournaments/{tournament}/join/"),
    ("post", "/api/v1/tournaments/{tournament}/leave/"),
    ("post", "/api/v1/tournaments/{tournament}/decline/"),
    ("post", "/api/v1/tournaments/{tournament}/invite/"),
    ("post", "/api/v1/tournaments/{tournament}/start/"),
    ("post", "/api/v1/tournaments/{tournament}/follow/"),
    ("delete", "/api/v1/tournaments/{tournament}/follow/"),
    ("post", "/api/v1/tokens/recover/"),
    ("post", "/api/v1/tokens/recover/confirm/"),
    ("get", "/api/v1/players/{username}/"),
    ("get", "/api/v1/stream/"),  # asked for as JSON: a 406 problem
    ("get", "/api/v1/games/nope/"),  # an error answer too
    ("get", "/api/v1/nothing-here/"),
]


def test_the_list_of_calls_covers_every_api_route() -> None:
    routes = set()
    for included in get_resolver().url_patterns:
        if str(included.pattern) == "api/v1/":
            for route in included.url_patterns:
                routes.add("/api/v1/" + re.sub(r"<\w+:(\w+)>", "{}", str(route.pattern)))
    called = {re.sub(r"\{\w+\}", "{}", path) for _, path in ACCOUNT_AND_GAME_CALLS}
    assert len(routes) >= 12
    assert routes <= called, sorted(routes - called)


@pytest.mark.parametrize("method, path", ACCOUNT_AND_GAME_CALLS)
def test_every_answer_that_depends_on_the_caller_is_private(
    method: str, path: str, active_game: Game, alice: Any
) -> None:
    client = client_for(alice)
    token = ApiToken.objects.filter(user=alice).first()
    assert token is not None
    url = (
        path.replace("{id}", active_game.pk)
        .replace("{token}", str(token.pk))
        .replace("{username}", "alice")
        .replace("{webhook}", "0")
        .replace("{league}", "0")
        .replace("{tournament}", "0")
        .replace("{season}", "1")  # nobody's: the refusal must be private too
        .replace("{address}", "0")
    )
    body = {"name": "x", "move": "take WUG", "expected_version": active_game.version}
    answer = client.get(url) if method == "get" else getattr(client, method)(url, body, format="json")
    assert "Authorization" in answer.get("Vary", ""), (url, answer.status_code)
    cache_control = answer.get("Cache-Control", "")
    assert "private" in cache_control and "no-store" in cache_control, (url, answer.status_code, cache_control)


def test_a_not_modified_answer_is_private_too(active_game: Game, alice: Any) -> None:
    client = client_for(alice)
    url = f"/api/v1/games/{active_game.pk}/"
    etag = client.get(url)["ETag"]
    answer = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert answer.status_code == 304
    assert "Authorization" in answer["Vary"] and "no-store" in answer["Cache-Control"]


def test_the_public_schema_may_be_cached_by_anyone(client: Any) -> None:
    answer = client.get("/api/schema/")
    assert "Authorization" not in answer.get("Vary", "")
