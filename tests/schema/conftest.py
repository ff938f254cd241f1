"""Personas, seeded games and the schema under test.

- alice holds the token the property-based run sends; she has games in every state.
- bob is her opponent, so her games can start and move; the played-through game
  sends his turns with his own token.
- charlie plays bob while alice only watches (the spectator view), and leaves
  an open seat in a game of his own that alice may take.

The games are made through the services, so their ids are real public ids that
the property-based run can put into paths. The data is committed
(transactional_db): the WSGI app reads it the way it reads any client's.
"""

from __future__ import annotations

import copy
import functools
import sqlite3
from dataclasses import dataclass, field
from typing import Any

import pytest
import schemathesis
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

import engine
from accounts.services import player_create, token_create
from games import services
from games.models import Game, Seat
from splendor_site.wsgi import application

# No 5xx; the status code, content type, headers and body are the documented ones.
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@functools.cache
def _served_schema() -> Any:
    """/api/schema/ read once per test process: building and parsing it takes seconds,
    and three modules load it at import."""
    return schemathesis.openapi.from_wsgi("/api/schema/", application)


def load_schema() -> Any:
    """The OpenAPI schema as the site serves it, bound to the in-process WSGI app.

    Each caller gets a schema object of its own (a module's hooks stay its own)
    made from a copy of the one document served."""
    served = _served_schema()
    schema = schemathesis.openapi.from_dict(copy.deepcopy(served.raw_schema))
    schema.app, schema.location = served.app, served.location
    return schema


@dataclass
class Seeded:
    token: str
    opponent_token: str
    game_ids: list[str] = field(default_factory=list)
    token_ids: list[int] = field(default_factory=list)


def _player(username: str) -> Any:
    return player_create(username=username, email=f"{username}@example.com", display_name=username.title())


def _two_player_game(creator: Any, opponent: Any, *, variant: str = "base") -> Game:
    game = services.game_create(creator=creator, variant=variant, seats=2, invited=[opponent])
    services.seat_join(game=game, user=opponent)
    game.refresh_from_db()
    return game


def quick_move(texts: list[str]) -> str:
    """Buy when possible (the dearest first), else take gems: games end in well under 200 plies."""
    buys = [t for t in texts if t.startswith("buy ")]
    if buys:
        return buys[-1]
    takes = [t for t in texts if t.startswith("take ") and " return " not in t]
    return takes[len(takes) // 2] if takes else texts[0]


def _play(game: Game, *, plies: int) -> None:
    for _ in range(plies):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return
        texts = [engine.format_move(m) for m in engine.legal_moves(engine.from_dict(game.state))]
        player = Seat.objects.get(game=game, index=game.to_move).user
        services.move_submit(game_id=game.pk, user=player, text=quick_move(texts), expected_version=game.version)


@pytest.fixture
def _no_throttling(settings: Any) -> None:
    """Hundreds of requests per test from one player; rate limits are tested in tests/site."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"anon": "1000000/minute", "user": "1000000/minute"},
    }


# The seeded database is made once per test process, the first time a test asks for
# it, and put back for each later test: playing the games through the services,
# emails and all, took most of each test's time (16 s a test on PostgreSQL).
# - SQLite: copied aside whole and copied back with sqlite3's backup API (whole
#   pages, ids, sequences and all, in milliseconds).
# - PostgreSQL: each table copied into a schema of its own (SNAPSHOT_SCHEMA, outside
#   the search path: nothing else sees it), and put back by emptying the tables and
#   inserting the copies' rows in one transaction (foreign keys are checked at its
#   commit). The sequences only ever go forward, so rows made later never reuse an id.
# The flush at the end of each test (transactional_db) empties the tables again.
_sqlite_snapshot: dict[str, tuple[Any, Seeded]] = {}
_postgres_snapshot: dict[str, Seeded] = {}
SNAPSHOT_SCHEMA = "splendor_seed_snapshot"


@pytest.fixture
def seeded(transactional_db: None, _no_throttling: None) -> Seeded:
    """The seeded games and tokens, committed. Each test starts from the same state,
    whatever the test before it did: made afresh by the first test of each process,
    copied back for each later one."""
    from django.contrib.contenttypes.models import ContentType
    from django.db import connection

    if connection.vendor == "postgresql":
        data = _postgres_seeded(connection)
    else:
        data = _sqlite_seeded(connection)
    # Content types are cached by id; the seed's ids are back, the cache is not.
    ContentType.objects.clear_cache()
    assert Game.objects.filter(pk__in=data.game_ids).count() == len(data.game_ids), "the seed came back"
    return data


def _sqlite_seeded(connection: Any) -> Seeded:
    connection.ensure_connection()
    alias = connection.settings_dict["NAME"]
    if alias in _sqlite_snapshot:
        snapshot, data = _sqlite_snapshot[alias]
        snapshot.backup(connection.connection)
        return data
    data = _seed()
    snapshot = sqlite3.connect(":memory:", check_same_thread=False)
    connection.connection.backup(snapshot)
    _sqlite_snapshot[alias] = (snapshot, data)
    return data


def _postgres_seeded(connection: Any) -> Seeded:
    from django.db import transaction

    name = connection.settings_dict["NAME"]
    tables = sorted(connection.introspection.django_table_names(only_existing=True, include_views=False))
    quote = connection.ops.quote_name
    if name in _postgres_snapshot:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("TRUNCATE " + ", ".join(quote(table) for table in tables))
            for table in tables:
                cursor.execute(f"INSERT INTO {quote(table)} SELECT * FROM {SNAPSHOT_SCHEMA}.{quote(table)}")
        return _postgres_snapshot[name]
    data = _seed()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"DROP SCHEMA IF EXISTS {SNAPSHOT_SCHEMA} CASCADE")
        cursor.execute(f"CREATE SCHEMA {SNAPSHOT_SCHEMA}")
        for table in tables:
            cursor.execute(f"CREATE TABLE {SNAPSHOT_SCHEMA}.{quote(table)} AS TABLE public.{quote(table)}")
    _postgres_snapshot[name] = data
    return data


def _seed() -> Seeded:
    alice, bob, charlie = _player("alice"), _player("bob"), _player("charlie")
    _, alice_token = token_create(user=alice, name="schema tests", scopes=["read", "play"])
    _, bob_token = token_create(user=bob, name="schema tests", scopes=["read", "play"])
    read_only, _ = token_create(user=alice, name="dashboard", scopes=["read"])
    bobs_laptop, _ = token_create(user=bob, name="laptop", scopes=["play"])

    open_by_alice = services.game_create(creator=alice, seats=3, invited=[bob])
    open_by_charlie = services.game_create(creator=charlie, seats=2)
    active = _two_player_game(alice, bob)
    _play(active, plies=6)
    active_marvel = _two_player_game(bob, alice, variant="marvel")
    _play(active_marvel, plies=3)
    watched = _two_player_game(bob, charlie)
    _play(watched, plies=2)
    finished = _two_player_game(alice, bob)
    _play(finished, plies=400)
    resigned = _two_player_game(alice, charlie)
    services.game_resign(game=resigned, user=alice)

    finished.refresh_from_db()
    assert finished.status == Game.Status.FINISHED, "quick_move should end a game within 400 plies"
    games = (open_by_alice, open_by_charlie, active, active_marvel, watched, finished, resigned)
    return Seeded(
        token=alice_token,
        opponent_token=bob_token,
        game_ids=[game.pk for game in games],
        # Not the token the requests carry: revoking it would turn the rest of the run into 401s.
        token_ids=[read_only.pk, bobs_laptop.pk],
    )
