"""A turn's requests and the game page cost the same number of queries however
much the site holds: a small world is measured, then each thing a player or a
game gathers grows (the player's finished and active games, players, plans,
chat lines and notes in that game, other games' plans), and the same budgets hold.

The budgets count as tests/games/test_games_queries_per_request.py does (BEGIN
and COMMIT, or SAVEPOINT and RELEASE, are queries; the API token's look-up is
one until a process keeps it). A move is one statement fewer per table on
PostgreSQL, which writes a change's seats, moves, events and game row in one
statement and the stream's cursors and events in another (data-modifying WITH
clauses); SQLite has none, so each of those is a statement there, and a seat
row the move changes (a bank, a fired plan) is one more.

Personas: alice and bob play; charlie watches; dave is a third player, whose
plan waits two seats behind the mover and so never fires during a measured move.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

import engine
from games import services, turn_reads
from games.models import Game, Seat
from tests.factories import FinishedGameFactory, StartedGameFactory
from tests.games.game_helpers import client_for, make_player
from tests.games.page_helpers import opened

pytestmark = [pytest.mark.django_db, pytest.mark.both_databases]

# The token; BEGIN; lock the game; its seats with their users and players; the
# seats' rows, the moves, their events and the game row (PostgreSQL: one statement;
# SQLite: the move, its event, the game); the stream's cursors and events
# (PostgreSQL: one; SQLite: two); COMMIT.
MOVE_QUERIES = {"postgresql": 7, "sqlite": 9}
# The token with its user and player; the game with the caller's seat.
LEGAL_MOVES_QUERIES = 2
# The token; the game with its creator; its seats with their users and players.
GAME_QUERIES = 3
# The game page (a public game): the session, the account and its language where
# there is one, the game with its creator, its seats with their users and players,
# the last moves, and the panels (chat: preferences, and each thread's lines and
# their authors' names; notes: the moves played; a seat holder's "Try this
# position": whether a league or a tournament counts the game).
PAGE_QUERIES = {"link": 10, "account": 15, "spectator": 12, "anonymous": 5}


def counted(request: Callable[[], Any]) -> tuple[int, Any]:
    with CaptureQueriesContext(connection) as captured:
        answer = request()
    return len(captured.captured_queries), answer


def warm(client: APIClient) -> APIClient:
    # A token records its last use at most once a minute: that write is made here.
    client.get("/api/v1/me/")
    return client


def a_take(game: Game) -> str:
    game.refresh_from_db()
    texts = [engine.format_move(m) for m in engine.legal_moves(engine.from_dict(game.state))]
    return next(t for t in texts if t.startswith("take ") and " return " not in t)


def seat_of(game: Game, user: Any) -> Seat:
    return Seat.objects.select_related("user").get(game=game, user=user)


def measure(game: Game, clients: dict[Any, APIClient], pages: dict[str, Client]) -> dict[str, int]:
    """Each request's queries, the move last (it changes the game)."""
    game.refresh_from_db()
    mover = Seat.objects.get(game=game, index=game.to_move).user
    api = warm(clients[mover.pk])
    base = f"/api/v1/games/{game.pk}/"
    counts: dict[str, int] = {}
    # A first read of this version is measured: nothing kept from an earlier one helps it.
    turn_reads.legal_moves_kept_clear()
    counts["legal"], answer = counted(lambda: api.get(base + "legal-moves/"))
    assert answer.status_code == 200 and answer.json()["moves"]
    counts["game"], answer = counted(lambda: api.get(base))
    assert answer.status_code == 200
    for name, page in pages.items():
        page.get(f"/games/{game.pk}/")  # a first visit may write its session
        counts[f"page {name}"], answer = counted(lambda page=page: page.get(f"/games/{game.pk}/"))  # type: ignore[misc]
        assert answer.status_code == 200, (name, answer.status_code)
    body = {"move": a_take(game), "expected_version": game.version}
    counts["move"], answer = counted(lambda: api.post(base + "moves/", body, format="json"))
    assert answer.status_code == 201, answer.content
    return counts


def within_budgets(counts: dict[str, int]) -> None:
    budgets = {
        "legal": LEGAL_MOVES_QUERIES,
        "game": GAME_QUERIES,
        "move": MOVE_QUERIES[connection.vendor],
        **{f"page {name}": most for name, most in PAGE_QUERIES.items()},
    }
    over = {name: (count, budgets[name]) for name, count in counts.items() if count > budgets[name]}
    assert over == {}, f"(queries, budget) over budget on {connection.vendor}: {over}"


def test_a_turn_and_the_game_page_cost_the_same_queries_however_much_the_site_holds(
    alice: Any, bob: Any, charlie: Any, dave: Any, settings: Any
) -> None:
    settings.CHAT_MESSAGES_PER_MINUTE = 10_000
    players = (alice, bob, dave)
    game = StartedGameFactory.create(creator=alice, invited=[bob, dave], seats=3, public=True)
    clients = {user.pk: client_for(user) for user in players}
    mover_seat = Seat.objects.get(game=game, index=game.to_move)
    pages = {
        "link": opened(mover_seat),
        "account": Client(),
        "spectator": Client(),
        "anonymous": Client(),
    }
    pages["account"].force_login(mover_seat.user)
    pages["spectator"].force_login(charlie)
    from chat import services as chat_services

    # A line in each thread: a thread's authors are read once it has lines, however many.
    chat_services.chat_message_post(game_id=game.pk, user=alice, text="good luck")
    chat_services.chat_message_post(game_id=game.pk, user=charlie, text="hello", thread="spectators")

    small = measure(game, clients, pages)
    within_budgets(small)

    # Grow everything a player, a game and the site gather.
    others = [make_player(f"grown{n}") for n in range(12)]
    for n, other in enumerate(others[:4]):
        FinishedGameFactory.create(creator=players[n % 3], invited=[other])
        StartedGameFactory.create(creator=other, invited=[players[n % 3]])
    for n in range(0, 12, 2):
        elsewhere = StartedGameFactory.create(creator=others[n], invited=[others[n + 1]], seats=2)
        elsewhere_next = Seat.objects.get(game=elsewhere, index=(elsewhere.to_move + 1) % 2)
        services.plan_store(
            game_id=elsewhere.pk, user=elsewhere_next.user, lines=[{"if": "any", "then": "pass"}],
            expected_version=elsewhere.version,
        )
    for n in range(30):
        chat_services.chat_message_post(game_id=game.pk, user=players[n % 3], text=f"line {n}")
        chat_services.chat_message_post(game_id=game.pk, user=charlie, text=f"watching {n}", thread="spectators")
    game.refresh_from_db()
    mover = Seat.objects.get(game=game, index=game.to_move)
    # The plan of the seat two behind the mover waits (it fires on the move just before its turn).
    waiting = Seat.objects.get(game=game, index=(game.to_move + 2) % 3)
    services.plan_store(
        game_id=game.pk, user=waiting.user, lines=[{"if": "any", "then": "pass"}], expected_version=game.version
    )
    for user in players:
        services.notes_store(game_id=game.pk, user=user, note="a long game " * 50, moves={"0": "opening"})
    pages["link"] = opened(seat_of(game, mover.user))
    pages["account"] = Client()
    pages["account"].force_login(mover.user)

    grown = measure(game, clients, pages)
    within_budgets(grown)
    # The pages read no token: their counts are the very same.
    assert {k: v for k, v in grown.items() if k.startswith("page")} == {
        k: v for k, v in small.items() if k.startswith("page")
    }


@pytest.mark.parametrize("bank", [False, True])
def test_a_move_that_fires_the_next_seats_plan_or_fills_a_bank_stays_in_its_budget(
    alice: Any, bob: Any, bank: bool
) -> None:
    options: dict[str, Any] = {"bank_seconds": 60, "bank_cap_seconds": 3600} if bank else {}
    game = StartedGameFactory.create(creator=alice, invited=[bob], **options)
    following = Seat.objects.get(game=game, index=(game.to_move + 1) % 2)
    services.plan_store(
        game_id=game.pk, user=following.user, lines=[{"if": "any", "then": "pass"}], expected_version=game.version
    )
    game.refresh_from_db()
    mover = Seat.objects.get(game=game, index=game.to_move).user
    client = warm(client_for(mover))
    body = {"move": a_take(game), "expected_version": game.version}
    count, answer = counted(lambda: client.post(f"/api/v1/games/{game.pk}/moves/", body, format="json"))
    assert answer.status_code == 201, answer.content
    following.refresh_from_db()
    assert following.plan_outcomes, "the plan was read on the move before its turn"
    # SQLite: one UPDATE per seat row the move changed (the plan's seat, the mover's bank).
    changed_seats = 1 + (1 if bank else 0)
    most = MOVE_QUERIES["postgresql"] if connection.vendor == "postgresql" else MOVE_QUERIES["sqlite"] + changed_seats
    assert count <= most, (connection.vendor, count)
