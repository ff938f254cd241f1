"""When a plan fires: on the move before its seat's turn, whoever played it (a
player, the takeover bot, the service's quiet move for a seat that left), and only
then; how its `if` matches; and whose seat it plays for."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from games import moderation, services
from games.models import Game, Move, PlayedBy, Seat
from games.plans.lines import line_matches
from tests.games.game_helpers import make_player

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "pattern, move, matches",
    [
        ("any", "pass", True),
        ("buy 1-05", "buy 1-05 J:R noble N03", True),
        ("buy 1-05 J:R", "buy 1-05", False),
        ("buy 1-05 J:R", "buy 1-05 J:R return K", True),
        ("take WUG", "take WUG return K", True),
        ("take WUG return K", "take WUG return R", False),
        ("take WUG", "take WUR", False),
        ("reserve deck2", "reserve deck2", True),
        ("reserve deck2", "reserve 2-13", False),
        ("pass noble N02", "pass noble N03", False),
    ],
)
def test_an_if_without_suffixes_matches_any_and_each_written_suffix_must_be_the_moves(
    pattern: str, move: str, matches: bool
) -> None:
    assert line_matches(pattern, move) is matches


def _three(*names: str) -> tuple[Game, list[Seat]]:
    users = [make_player(name) for name in names]
    game = services.game_create(creator=users[0], variant="base", seats=3, invited=users[1:])
    for user in users[1:]:
        services.seat_join(game=game, user=user)
    game.refresh_from_db()
    return game, list(Seat.objects.filter(game=game).select_related("user").order_by("index"))


def _store(game: Game, seat: Seat, lines: list[dict[str, Any]]) -> None:
    game.refresh_from_db()
    services.plan_store(game_id=game.pk, user=seat.user, lines=lines, expected_version=game.version)


def _play(game: Game, seat: Seat, text: str) -> None:
    game.refresh_from_db()
    services.move_submit(game_id=game.pk, user=seat.user, text=text, expected_version=game.version)


def test_in_a_three_player_game_only_the_previous_players_move_fires_the_plan() -> None:
    game, seats = _three("ann", "ben", "cat")
    _store(game, seats[2], [{"if": "take WUG", "then": "take RKW"}])
    _play(game, seats[0], "take WUG")  # two seats before: the plan waits
    assert Seat.objects.get(pk=seats[2].pk).plan != []
    _play(game, seats[1], "take WUG")
    planned = Move.objects.get(game=game, ply=2)
    assert planned.text == "take WRK" and planned.seat == 2 and planned.from_plan


def test_a_quiet_move_of_a_seat_that_left_fires_the_next_seats_plan() -> None:
    """Service moves count as the move before: a resigned seat's quiet move."""
    game, seats = _three("ann", "ben", "cat")
    _store(game, seats[2], [{"if": "any", "then": "reserve deck1"}])
    services.game_resign(game=game, user=seats[1].user)
    _play(game, seats[0], "take RKW")
    quiet, planned = Move.objects.get(game=game, ply=1), Move.objects.get(game=game, ply=2)
    assert quiet.played_by == PlayedBy.SERVICE
    assert planned.text == "reserve deck1" and planned.from_plan and planned.played_by == PlayedBy.PLAYER


def test_the_takeover_bots_move_on_a_timeout_fires_the_plan(alice: Any, bob: Any, settings: Any) -> None:
    settings.VACATION_DAYS_PER_YEAR = 0
    settings.TAKEOVER_BOT = "greedy"
    game = services.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    services.seat_join(game=game, user=bob)
    game.refresh_from_db()
    waiting = Seat.objects.exclude(index=game.to_move).get(game=game)
    _store(game, waiting, [{"if": "any", "then": "reserve deck3"}])
    game.refresh_from_db()
    assert game.deadline_at is not None
    assert services.game_time_out(game_id=game.pk, now=game.deadline_at + timedelta(seconds=1))
    assert Move.objects.get(game=game, ply=0).played_by == PlayedBy.BOT
    assert Move.objects.get(game=game, ply=1).text == "reserve deck3"


def test_a_plan_move_settles_its_seats_clock_as_an_instant_move(alice: Any, bob: Any) -> None:
    game = services.game_create(
        creator=alice, variant="base", seats=2, invited=[bob], move_timeout_hours=24, bank_seconds=2 * 3600,
        bank_cap_seconds=30 * 3600,
    )
    services.seat_join(game=game, user=bob)
    game.refresh_from_db()
    waiting = Seat.objects.exclude(index=game.to_move).get(game=game)
    mover = Seat.objects.get(game=game, index=game.to_move)
    _store(game, waiting, [{"if": "any", "then": "take WUG"}])
    _play(game, mover, "take RKW")
    waiting.refresh_from_db()
    assert waiting.bank_seconds == 26 * 3600  # its 2 hours and the whole 24-hour turn, under the cap


def test_a_seat_handed_to_someone_else_loses_its_plan(alice: Any, bob: Any, charlie: Any) -> None:
    game = services.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    services.seat_join(game=game, user=bob)
    game.refresh_from_db()
    waiting = Seat.objects.exclude(index=game.to_move).get(game=game)
    _store(game, waiting, [{"if": "any", "then": "take WUG"}])
    mo = get_user_model().objects.create_user("mo", "mo@example.com", "a long moderator password", is_staff=True)
    moderation.moderation_seat_replace(
        game_id=game.pk, seat_index=waiting.index, by_user=mo, reason="left for good", new_user=charlie
    )
    waiting.refresh_from_db()
    assert waiting.user == charlie and waiting.plan == [] and waiting.plan_outcomes == []


def test_each_move_of_a_plan_is_a_version_of_its_own_and_its_next_lines_wait_for_the_next_move(
    alice: Any, bob: Any
) -> None:
    game = services.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    services.seat_join(game=game, user=bob)
    game.refresh_from_db()
    mover = Seat.objects.get(game=game, index=game.to_move)
    waiting = Seat.objects.exclude(pk=mover.pk).get(game=game)
    _store(game, waiting, [{"if": "take WUG", "then": "take RKW", "next": [{"if": "reserve deck1", "then": "reserve deck2"}]}])
    version = game.version
    _play(game, mover, "take WUG")
    waiting.refresh_from_db()
    assert waiting.plan == [{"if": "reserve deck1", "then": "reserve deck2", "next": []}]
    _play(game, mover, "reserve deck1")
    game.refresh_from_db()
    assert [m.text for m in Move.objects.filter(game=game).order_by("ply")] == [
        "take WUG", "take WRK", "reserve deck1", "reserve deck2"
    ]
    assert game.version == version + 4 and game.to_move == mover.index


def test_a_suspended_players_plan_is_cleared_at_its_turn_instead_of_playing(alice: Any, bob: Any) -> None:
    game = services.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    services.seat_join(game=game, user=bob)
    game.refresh_from_db()
    mover = Seat.objects.get(game=game, index=game.to_move)
    waiting = Seat.objects.exclude(pk=mover.pk).get(game=game)
    _store(game, waiting, [{"if": "any", "then": "take WUG"}])
    mo = get_user_model().objects.create_user("mo", "mo@example.com", "a long moderator password", is_staff=True)
    moderation.moderation_player_suspend(user=waiting.user, by_user=mo, reason="spam")
    _play(game, mover, "take RKW")
    waiting.refresh_from_db()
    assert not Move.objects.filter(game=game, ply=1).exists()
    assert waiting.plan == [] and waiting.plan_outcomes[-1]["cleared"] == "suspended"


def test_a_line_naming_a_move_no_turn_can_be_never_fails_the_move_before(alice: Any, bob: Any) -> None:
    """take WUGR is read (four colours) and stored as written; as an `if` it matches
    nothing, as a `then` it is refused when it fires, naming B-TAKE-3, and the
    opponent's move that fired it is played all the same."""
    game = services.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    services.seat_join(game=game, user=bob)
    game.refresh_from_db()
    mover = Seat.objects.get(game=game, index=game.to_move)
    waiting = Seat.objects.exclude(pk=mover.pk).get(game=game)
    _store(game, waiting, [
        {"if": "take white blue green red", "then": "take WUG"},
        {"if": "any", "then": "take white blue green red"},
    ])
    assert Seat.objects.get(pk=waiting.pk).plan[0]["if"] == "take WUGR"
    _play(game, mover, "take WUG")
    waiting.refresh_from_db()
    assert Move.objects.filter(game=game).count() == 1
    assert waiting.plan == [] and waiting.plan_outcomes[-1]["rule"] == "B-TAKE-3"
