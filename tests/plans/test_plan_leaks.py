"""A plan is its holder's alone until the game is over: nobody else reads it or
learns that a move came from one (the other player, a spectator, a moderator, an
admin), through the API, the pages, email, the event stream, webhooks, the admin
or the export. After the end the export says which moves a plan played."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client

from games.models import Game, GameEvent, Move, Seat
from streams.models import StreamEvent
from tests.games.game_helpers import client_for, make_player
from tests.plans.plan_helpers import Table, two_player_table
from webhooks.selectors import delivery_payload

pytestmark = pytest.mark.django_db

# Words that appear in a plan and nowhere else in a game that never saw them played.
# The plan in notation and in the words pages and emails write it in.
NEEDLES = ("J:W", "noble N07", "deck3 return K", "paying gold for white", "from deck 3, return black")


def _plan(table: Table) -> list[dict[str, Any]]:
    game = table.game
    game.refresh_from_db()
    card = next(cid for cid in game.state["market"][0] if cid)
    return [
        {"if": "reserve deck3 return K", "then": f"buy {card} J:W noble N07"},
        # The line that fires: its move is played, and nobody may learn that a plan played it.
        {"if": "take WUG", "then": "take RKW"},
    ]


def _stored_and_fired(table: Table) -> Table:
    game = table.game
    answer = client_for(table.planner).put(
        f"/api/v1/games/{game.pk}/plan/", {"lines": _plan(table), "expected_version": game.version}, format="json"
    )
    assert answer.status_code == 200, answer.content
    moved = client_for(table.mover).post(
        f"/api/v1/games/{game.pk}/moves/", {"move": "take WUG", "expected_version": game.version}
    )
    assert moved.status_code == 201
    game.refresh_from_db()
    assert Move.objects.get(game=game, ply=1).from_plan
    # The plan is stored again, so that something is left to find while the mover thinks.
    again = client_for(table.planner).put(
        f"/api/v1/games/{game.pk}/plan/", {"lines": _plan(table), "expected_version": game.version}, format="json"
    )
    assert again.status_code == 200, again.content
    return table


@pytest.fixture
def public_table(alice: Any, bob: Any) -> Table:
    return _stored_and_fired(two_player_table(alice, bob, public=True))


@pytest.fixture
def private_table(alice: Any, bob: Any) -> Table:
    return _stored_and_fired(two_player_table(alice, bob))


@pytest.fixture
def moderator(db: None) -> Any:
    user = make_player("mona")
    user.user_permissions.add(Permission.objects.get(codename="moderate_game"))
    return user


def _clean(text: str) -> None:
    for needle in NEEDLES:
        assert needle not in text
    assert "from_plan" not in text or '"from_plan": null' in text or '"from_plan":null' in text


def test_only_the_holder_reads_the_plan_through_the_api(public_table: Table, charlie: Any, moderator: Any) -> None:
    game = public_table.game
    url = f"/api/v1/games/{game.pk}/plan/"
    own = client_for(public_table.planner, scopes=("read",)).get(url)
    assert own.status_code == 200 and "J:W" in json.dumps(own.json())
    for other in (charlie, moderator):
        answer = client_for(other, scopes=("read",)).get(url)
        assert answer.status_code == 403 and answer.json()["code"] == "not_a_player"
        _clean(answer.content.decode())
    # The other player reads its own plan (none), never this one.
    theirs = client_for(public_table.mover, scopes=("read",)).get(url)
    assert theirs.status_code == 200 and theirs.json()["lines"] == [] and theirs.json()["outcomes"] == []
    _clean(theirs.content.decode())


def test_a_stranger_to_a_private_game_gets_404_for_its_plan(private_table: Table, charlie: Any) -> None:
    answer = client_for(charlie).put(
        f"/api/v1/games/{private_table.game.pk}/plan/", {"lines": [], "expected_version": 1}, format="json"
    )
    assert answer.status_code == 404 and answer.json()["code"] == "game_not_found"


def test_no_other_reader_of_the_game_learns_of_the_plan_through_the_api(
    public_table: Table, charlie: Any, moderator: Any
) -> None:
    game = public_table.game
    for reader in (public_table.mover, charlie, moderator, public_table.planner):
        client = client_for(reader, scopes=("read",))
        for path in ("", "moves/", "export/", "legal-moves/"):
            answer = client.get(f"/api/v1/games/{game.pk}/{path}")
            assert answer.status_code == 200, (path, answer.content)
            _clean(answer.content.decode())
        assert client.get(f"/api/v1/games/{game.pk}/export/").json()["from_plan"] is None
    export = client_for(public_table.planner, scopes=("read",)).get("/api/v1/me/export/").content.decode()
    _clean(export)


def test_no_page_but_the_holders_shows_the_plan(public_table: Table, charlie: Any, moderator: Any) -> None:
    game = public_table.game
    for reader in (public_table.mover, charlie, moderator):
        client = Client()
        client.force_login(reader)
        html = client.get(f"/games/{game.pk}/").content.decode()
        if reader != public_table.mover:  # the mover's page has its own editor, empty
            assert 'id="plan"' not in html and "Your plan" not in html
        _clean(html)
        _clean(client.get(f"/games/{game.pk}/replay/?ply=2").content.decode())
    own = Client()
    own.force_login(public_table.planner)
    assert "paying gold for white, noble N07" in own.get(f"/games/{game.pk}/").content.decode()


def test_the_admin_shows_no_plan_and_refuses_to_filter_by_one(public_table: Table) -> None:
    staff = Client()
    staff.force_login(get_user_model().objects.create_superuser("root", "root@example.com", "a long admin password"))
    game = public_table.game
    seat = Seat.objects.get(game=game, user=public_table.planner)
    for path in (
        "/admin/games/game/", f"/admin/games/game/{game.pk}/change/", "/admin/games/seat/",
        f"/admin/games/seat/{seat.pk}/change/", "/admin/games/move/", "/admin/games/gameevent/",
        # A moderator's look at the board as the planner's seat sees it.
        f"/admin/games/game/{game.pk}/board/{seat.index}/",
    ):
        answer = staff.get(path)
        assert answer.status_code == 200, path
        _clean(answer.content.decode())
        assert "from plan" not in answer.content.decode().lower()
    assert staff.get("/admin/games/move/", {"from_plan__exact": "1"}).status_code == 400
    assert staff.get("/admin/games/seat/", {"plan__icontains": "J:W"}).status_code == 400


def test_events_webhooks_and_the_stream_say_nothing_of_the_plan(public_table: Table) -> None:
    game = public_table.game
    events = GameEvent.objects.filter(game=game)
    # The move the plan played went out as an event, and the seats have a stream to read.
    assert events.filter(kind=GameEvent.Kind.MOVE_PLAYED).exists()
    assert StreamEvent.objects.filter(user__in=[seat.user for seat in Seat.objects.filter(game=game)]).exists()
    for event in events:
        shown = json.dumps(delivery_payload(event=event))
        _clean(shown)
        assert "plan" not in shown
    for seat in Seat.objects.filter(game=game):
        streamed = json.dumps(list(StreamEvent.objects.filter(user=seat.user).values_list("kind", "data")))
        _clean(streamed)
        assert "plan" not in streamed


def test_the_export_shows_the_plans_moves_once_the_game_is_over(private_table: Table) -> None:
    game = private_table.game
    assert client_for(private_table.mover).post(f"/api/v1/games/{game.pk}/resign/").status_code == 200
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    export = client_for(private_table.mover, scopes=("read",)).get(f"/api/v1/games/{game.pk}/export/").json()
    assert export["from_plan"] == [1]
