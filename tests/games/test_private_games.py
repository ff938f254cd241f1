"""A private game (``"public": false``, the default) is seen only by its seat
holders (invited or joined), superusers and holders of ``games.moderate_game``
(and the admins of its league: tests/leagues/test_private_league_games.py). To
anyone else it does not exist: absent from lists, and every route under
``/api/v1/games/{id}/`` answers exactly as for an unknown id. A private game with
an open seat may still be read as a summary and joined by whoever has its id.

Personas: alice creates the games and bob is her invited opponent; charlie is a
stranger with an account; dave declined an invitation to one game, so he once
held a seat and no longer does.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from games import moderation, services
from games.models import Game
from tests.games.game_helpers import client_for, make_player, play_moves, start_two_player_game, user_to_move
from tests.games.page_helpers import without_csrf_tokens
from tests.notifications.email_helpers import headline_of

pytestmark = pytest.mark.django_db

UNKNOWN_ID = "zzzzzzzzzz"


def game_routes() -> Iterator[tuple[str, str]]:
    """(path template, method) of every API route under /api/v1/games/{id}/, read
    from the URLconf itself, so that a route added later is walked too."""

    def walk(patterns: list[Any], prefix: str) -> Iterator[tuple[str, Any]]:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                yield prefix + str(pattern.pattern), pattern.callback

    for route, callback in walk(get_resolver().url_patterns, "/"):
        if not route.startswith("/api/v1/games/<str:game_id>/"):
            continue
        view_class = getattr(callback, "cls", None)
        assert view_class is not None, f"{route} is not a REST view"
        for method in ("get", "post", "put", "patch", "delete"):
            if hasattr(view_class, method):
                yield route.replace("<str:game_id>", "{id}"), method


ROUTES = sorted(set(game_routes()))


def test_the_walk_finds_every_route_of_a_game() -> None:
    paths = {path for path, _ in ROUTES}
    assert {
        "/api/v1/games/{id}/",
        "/api/v1/games/{id}/join/",
        "/api/v1/games/{id}/legal-moves/",
        "/api/v1/games/{id}/moves/",
        "/api/v1/games/{id}/resign/",
        "/api/v1/games/{id}/cancel/",
        "/api/v1/games/{id}/decline/",
        "/api/v1/games/{id}/export/",
        "/api/v1/games/{id}/link/rotate/",
        "/api/v1/games/{id}/mute/",
        "/api/v1/games/{id}/notes/",
    } <= paths


def call(client: APIClient, method: str, path: str, game_id: str) -> Any:
    body: dict[str, Any] = {}
    if path.endswith("/moves/") and method == "post":
        body = {"move": "take WUG", "expected_version": 1}
    elif path.endswith("/plan/") and method == "put":
        body = {"lines": [], "expected_version": 1}  # well formed: a malformed body is a 400 before the lookup
    elif path.endswith("/notes/") and method == "put":
        body = {"note": "", "moves": {}}  # well formed, as for the plan
    elif path.endswith("/chat/") and method == "post":
        body = {"text": "hello"}
    elif path.endswith("/chat/report/") and method == "post":
        body = {"message_id": 1}
    elif path.endswith("/chat/preferences/") and method == "patch":
        body = {"muted": True}
    return getattr(client, method)(path.format(id=game_id), body, format="json")


def answer_of(response: Any, game_id: str) -> tuple[int, str]:
    """The status and the body with the id taken out: what tells one game from another."""
    return response.status_code, json.dumps(response.json(), sort_keys=True).replace(game_id, "ID")


@pytest.fixture
def private_game(alice: Any, bob: Any, dave: Any) -> Game:
    """Active and private, a few moves in; dave was invited to it once and declined
    (erin and frank took the open seats while it waited)."""
    game = services.game_create(creator=alice, seats=4, invited=[bob, dave], public=False)
    services.seat_decline(game_id=game.pk, user=dave)
    for user in (make_player("erin"), make_player("frank"), bob):
        services.seat_join(game=game, user=user)
    game.refresh_from_db()
    play_moves(game, 3)
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    return game


def suspended(user: Any, moderator: Any) -> Any:
    moderation.moderation_player_suspend(user=user, by_user=moderator, reason="spam")
    return user


@pytest.mark.parametrize(("path", "method"), ROUTES)
@pytest.mark.parametrize("who", ["stranger", "declined_invitee"])
def test_a_private_game_is_answered_as_an_unknown_id_on_every_route(
    path: str, method: str, who: str, private_game: Game, charlie: Any, dave: Any
) -> None:
    client = client_for({"stranger": charlie, "declined_invitee": dave}[who])
    private = call(client, method, path, private_game.pk)
    unknown = call(client, method, path, UNKNOWN_ID)
    assert private.status_code == 404, (path, method, private.content)
    assert private.json()["code"] == "game_not_found"
    assert answer_of(private, private_game.pk) == answer_of(unknown, UNKNOWN_ID)


@pytest.mark.parametrize(("path", "method"), ROUTES)
def test_a_suspended_seat_holder_reads_nothing_through_the_api(
    path: str, method: str, private_game: Game, bob: Any, charlie: Any
) -> None:
    client = client_for(bob)
    suspended(bob, charlie)
    response = call(client, method, path, private_game.pk)
    assert response.status_code == 401 and response.json()["code"] == "account_suspended"
    assert "board" not in response.json() and private_game.seed_commitment not in response.content.decode()


def test_a_private_game_is_in_nobodys_list_but_its_players(
    private_game: Game, alice: Any, bob: Any, charlie: Any, dave: Any
) -> None:
    watched = start_two_player_game(charlie, dave, public=True)
    for user, expected in ((alice, {private_game.pk, watched.pk}), (bob, {private_game.pk, watched.pk})):
        listed = client_for(user).get("/api/v1/games/?limit=100").json()["results"]
        assert {game["id"] for game in listed} == expected
    for user in (charlie, dave):
        listed = client_for(user).get("/api/v1/games/?limit=100").json()
        assert private_game.pk not in json.dumps(listed)
        assert {game["id"] for game in listed["results"]} == {watched.pk}


def test_its_seat_holders_invited_or_joined_see_it(alice: Any, bob: Any, charlie: Any) -> None:
    game = services.game_create(creator=alice, seats=3, invited=[bob, charlie], public=False)
    services.seat_join(game=game, user=bob)
    for user in (alice, bob, charlie):  # charlie is invited and has not answered
        client = client_for(user)
        assert client.get(f"/api/v1/games/{game.pk}/").status_code == 200
        assert game.pk in {g["id"] for g in client.get("/api/v1/games/").json()["results"]}
    assert client_for(charlie).post(f"/api/v1/games/{game.pk}/decline/").status_code == 200


def test_superusers_and_moderators_see_every_private_game(private_game: Game, charlie: Any, dave: Any) -> None:
    charlie.is_superuser = True
    charlie.save()
    dave.user_permissions.add(Permission.objects.get(codename="moderate_game", content_type__app_label="games"))
    for user in (charlie, dave):
        client = client_for(user)
        view = client.get(f"/api/v1/games/{private_game.pk}/")
        assert view.status_code == 200 and view.json()["your_seat"] is None
        assert view.json()["board"] is not None  # the spectator view: no seat's hidden cards
        assert client.get(f"/api/v1/games/{private_game.pk}/moves/").status_code == 200
        assert private_game.pk in {g["id"] for g in client.get("/api/v1/games/").json()["results"]}
        # Seeing is not playing.
        move = client.post(f"/api/v1/games/{private_game.pk}/moves/", {"move": "pass", "expected_version": 4})
        assert move.status_code == 403 and move.json()["code"] == "not_a_player"


def test_a_private_game_with_an_open_seat_is_read_as_a_summary_and_joined_by_whoever_has_its_id(
    alice: Any, bob: Any, charlie: Any, dave: Any
) -> None:
    game = services.game_create(creator=alice, seats=3, invited=[bob], public=False)
    stranger = client_for(charlie)
    summary = stranger.get(f"/api/v1/games/{game.pk}/")
    assert summary.status_code == 200
    assert summary.json()["open_seats"] == 1 and summary.json()["board"] is None
    # Listed to nobody else, and nothing else about it is open.
    assert game.pk not in json.dumps(stranger.get("/api/v1/games/").json())
    for suffix in ("moves/", "export/", "legal-moves/"):
        assert stranger.get(f"/api/v1/games/{game.pk}/{suffix}").status_code == 404
    joined = stranger.post(f"/api/v1/games/{game.pk}/join/", {}, format="json")
    assert joined.status_code == 200 and joined.json()["your_seat"] is None  # waits for bob
    # Its last seat is bob's: a stranger now finds no game at all.
    assert client_for(dave).get(f"/api/v1/games/{game.pk}/").status_code == 404
    assert client_for(dave).post(f"/api/v1/games/{game.pk}/join/", {}, format="json").status_code == 404


def test_a_game_of_invited_seats_only_is_not_open_to_whoever_has_its_id(alice: Any, bob: Any, charlie: Any) -> None:
    game = services.game_create(creator=alice, seats=2, invited=[bob], public=False)
    assert client_for(charlie).get(f"/api/v1/games/{game.pk}/").status_code == 404
    assert client_for(charlie).post(f"/api/v1/games/{game.pk}/join/", {}, format="json").status_code == 404


def test_a_public_game_is_listed_and_watched_by_anyone(alice: Any, bob: Any, charlie: Any) -> None:
    game = start_two_player_game(alice, bob, public=True)
    play_moves(game, 2)
    client = client_for(charlie)
    assert game.pk in {g["id"] for g in client.get("/api/v1/games/").json()["results"]}
    view = client.get(f"/api/v1/games/{game.pk}/").json()
    assert view["your_seat"] is None and view["board"]["ply"] == 2
    assert len(client.get(f"/api/v1/games/{game.pk}/moves/").json()) == 2
    assert client.get(f"/api/v1/games/{game.pk}/export/").status_code == 200


# --- the pages ---------------------------------------------------------------------------------


PAGES = ["/games/{id}/", "/games/{id}/replay/", "/games/{id}/version"]


@pytest.mark.parametrize("page", PAGES)
def test_a_visitor_is_sent_to_log_in_for_a_private_game_and_an_unknown_one_alike(
    page: str, private_game: Game
) -> None:
    private = Client().get(page.format(id=private_game.pk))
    unknown = Client().get(page.format(id=UNKNOWN_ID))
    assert private.status_code == unknown.status_code
    assert private.status_code in (302, 403)  # the version poll (JSON) cannot redirect
    if private.status_code == 302:
        assert private["Location"].replace(private_game.pk, "ID") == unknown["Location"].replace(UNKNOWN_ID, "ID")
        assert "/accounts/login/?next=" in private["Location"]
    else:
        assert private.json() == unknown.json()


@pytest.mark.parametrize("page", PAGES)
def test_a_logged_in_stranger_finds_no_such_game_page(page: str, private_game: Game, charlie: Any, dave: Any) -> None:
    for user in (charlie, dave):
        client = Client()
        client.force_login(user)
        private = client.get(page.format(id=private_game.pk))
        unknown = client.get(page.format(id=UNKNOWN_ID))
        assert private.status_code == unknown.status_code == 404
        assert without_csrf_tokens(private.content.decode()).replace(private_game.pk, "ID") == without_csrf_tokens(
            unknown.content.decode()
        ).replace(UNKNOWN_ID, "ID")


def test_a_moderator_watches_a_private_game_page_as_a_spectator(private_game: Game, charlie: Any) -> None:
    charlie.user_permissions.add(Permission.objects.get(codename="moderate_game", content_type__app_label="games"))
    client = Client()
    client.force_login(charlie)
    html = client.get(f"/games/{private_game.pk}/").content.decode()
    assert "Watching a game" in html and "(you)" not in html and 'name="move"' not in html


# --- what is sent: webhooks and email ------------------------------------------------------------


def test_nobody_without_a_seat_is_sent_a_private_games_events_or_email(
    alice: Any, bob: Any, charlie: Any, dave: Any, mailoutbox: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    from webhooks.models import Delivery, Endpoint
    from webhooks.services import event_fan_out

    endpoints = {
        user.username: Endpoint.objects.create(owner=user, url=f"https://hooks.example/{user.username}", secret="s" * 32)
        for user in (bob, charlie, dave)
    }
    with django_capture_on_commit_callbacks(execute=True):
        game = services.game_create(creator=alice, seats=4, invited=[bob, dave], public=False)
        services.seat_decline(game_id=game.pk, user=dave)
        for user in (bob, make_player("erin"), make_player("frank")):
            services.seat_join(game=game, user=user)
        play_moves(game, 2)
    declined_at = game.events.get(kind="seat_declined").pk
    for event in game.events.all():
        event_fan_out(event=event)
    delivered = {
        name: set(Delivery.objects.filter(endpoint=endpoint).values_list("event_id", flat=True))
        for name, endpoint in endpoints.items()
    }
    assert delivered["bob"] and delivered["charlie"] == set()
    # dave hears of the invitation and of his own decline, nothing after it.
    assert delivered["dave"] and max(delivered["dave"]) <= declined_at
    later = [m for m in mailoutbox if game.pk in m.subject + m.body]
    assert later and not any(
        "charlie@example.com" in message.to for message in later
    ), "a stranger was emailed about a private game"
    after_decline = [m for m in later if "dave@example.com" in m.to and "declined" not in m.body.lower()]
    assert all("invit" in headline_of(m).lower() for m in after_decline), [headline_of(m) for m in after_decline]


def test_the_move_a_stranger_cannot_see_is_not_played(private_game: Game, charlie: Any) -> None:
    version = private_game.version
    mover = user_to_move(private_game)
    assert mover != charlie
    answer = client_for(charlie).post(
        f"/api/v1/games/{private_game.pk}/moves/", {"move": "take WUG", "expected_version": version}, format="json"
    )
    assert answer.status_code == 404
    private_game.refresh_from_db()
    assert private_game.version == version
