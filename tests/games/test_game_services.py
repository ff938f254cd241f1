from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

import engine
import pytest
from django.utils import timezone

from games import errors, selectors, services
from games.models import Game, GameEvent, Move, Seat
from tests.games.game_helpers import make_player, play_moves, play_to_end, start_two_player_game, user_to_move

pytestmark = pytest.mark.django_db


def versions_of(game: Game) -> list[int]:
    return [event.payload["version"] for event in GameEvent.objects.filter(game=game).order_by("id")]


def assert_versions_without_gaps(game: Game) -> None:
    game.refresh_from_db()
    assert versions_of(game) == list(range(1, game.version + 1))


# --- create and join ---------------------------------------------------------------


def test_the_creator_takes_the_first_seat_and_the_game_waits_for_players(alice: Any) -> None:
    game = services.game_create(creator=alice, variant="base", seats=3, open_seats=2)

    assert game.status == Game.Status.OPEN
    assert game.version == 1
    seat = Seat.objects.get(game=game)
    assert seat.user == alice and seat.joined_at is not None and seat.index is None
    assert game.seed == "" and game.seed_commitment == "" and game.state is None
    assert [e.kind for e in game.events.all()] == [GameEvent.Kind.GAME_CREATED]


def test_an_invited_player_has_a_reserved_seat_until_they_join(alice: Any, bob: Any, charlie: Any) -> None:
    game = services.game_create(creator=alice, seats=2, invited=[bob])

    with pytest.raises(errors.SeatUnavailable):
        services.seat_join(game=game, user=charlie)
    services.seat_join(game=game, user=bob)

    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE


def test_the_join_that_fills_the_last_seat_starts_the_game(alice: Any, bob: Any) -> None:
    game = services.game_create(creator=alice, seats=2)
    services.seat_join(game=game, user=bob)

    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert game.started_at is not None and game.deadline_at is not None
    assert game.to_move == 0
    assert sorted(Seat.objects.filter(game=game).values_list("index", flat=True)) == [0, 1]
    assert [e.kind for e in game.events.all()] == ["game_created", "seat_joined", "game_started"]
    assert game.version == 3


def test_the_seed_is_256_bits_and_its_commitment_is_the_sha256_of_its_decimal_text(active_game: Game) -> None:
    seed = int(active_game.seed)
    assert 0 <= seed < 2**256
    assert active_game.seed_commitment == hashlib.sha256(str(seed).encode()).hexdigest()
    started = active_game.events.get(kind="game_started")
    assert started.payload["seed_commitment"] == active_game.seed_commitment
    assert active_game.seed not in str(started.payload)


def test_seat_order_is_the_seeded_permutation_of_the_join_order(alice: Any, bob: Any, charlie: Any) -> None:
    game = services.game_create(creator=alice, seats=3)
    services.seat_join(game=game, user=bob)
    services.seat_join(game=game, user=charlie)
    game.refresh_from_db()

    joined = [alice, bob, charlie]
    order = engine.seat_permutation(int(game.seed), 3)
    assert sorted(order) == [0, 1, 2]
    for seat_index, join_position in enumerate(order):
        assert Seat.objects.get(game=game, index=seat_index).user == joined[join_position]


def test_the_initial_state_is_the_engines_new_game_from_the_seed(active_game: Game) -> None:
    expected = engine.to_dict(engine.new_game(variant="base", players=2, seed=int(active_game.seed)))
    assert active_game.state == expected


def test_a_player_cannot_join_twice(alice: Any) -> None:
    game = services.game_create(creator=alice, seats=2)
    with pytest.raises(errors.SeatUnavailable, match="already have a seat"):
        services.seat_join(game=game, user=alice)


def test_nobody_can_join_a_game_that_has_started(active_game: Game, charlie: Any) -> None:
    with pytest.raises(errors.SeatUnavailable):
        services.seat_join(game=active_game, user=charlie)


def test_joining_with_an_old_version_is_refused(alice: Any, bob: Any) -> None:
    game = services.game_create(creator=alice, seats=2)
    with pytest.raises(errors.StaleVersion) as caught:
        services.seat_join(game=game, user=bob, expected_version=0)
    assert caught.value.fields["current_version"] == 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"variant": "chess"}, "Unknown variant"),
        ({"seats": 5}, "2 to 4 seats"),
        ({"seats": 1}, "2 to 4 seats"),
        ({"move_timeout_hours": 0}, "time per move"),
        ({"seats": 2, "open_seats": 2}, "leaves 1 open seat, not 2"),
    ],
)
def test_impossible_game_setups_are_refused_with_a_reason(alice: Any, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(errors.InvalidGameSetup, match=message):
        services.game_create(creator=alice, **kwargs)


def test_inviting_more_players_than_seats_is_refused(alice: Any, bob: Any, charlie: Any) -> None:
    with pytest.raises(errors.InvalidGameSetup, match="there is only 1 seat besides yours"):
        services.game_create(creator=alice, seats=2, invited=[bob, charlie])


def test_game_start_refuses_a_game_with_empty_seats(alice: Any) -> None:
    game = services.game_create(creator=alice, seats=2)
    with pytest.raises(errors.SeatUnavailable, match="all 2 seats are taken; 1 is so far"):
        services.game_start(game=game)


def test_inviting_a_player_twice_names_them_in_english(alice: Any, bob: Any, charlie: Any) -> None:
    with pytest.raises(errors.InvalidGameSetup, match="You invited bob and charlie more than once"):
        services.game_create(creator=alice, seats=4, invited=[bob, charlie, bob, charlie])


# --- moves ------------------------------------------------------------------------------


def test_a_move_is_recorded_in_canonical_text_and_bumps_the_version(active_game: Game) -> None:
    mover = user_to_move(active_game)
    state = engine.from_dict(active_game.state)
    text = next(engine.format_move(m) for m in engine.legal_moves(state) if engine.format_move(m).startswith("take "))

    submission = services.move_submit(
        game_id=active_game.pk, user=mover, text=text.upper(), expected_version=active_game.version
    )

    assert submission.move is not None and submission.move.text == text
    assert submission.move.ply == 0
    active_game.refresh_from_db()
    assert active_game.version == 4
    assert active_game.to_move == 1
    event = active_game.events.last()
    assert event is not None and event.kind == "move_played"
    assert event.payload == {"ply": 0, "seat": 0, "move": text, "automatic": False, "played_by": "player", "version": 4}


def test_every_state_change_bumps_the_version_and_writes_one_event(active_game: Game) -> None:
    play_moves(active_game, 6)
    assert_versions_without_gaps(active_game)
    assert active_game.version == 3 + 6


def test_the_deadline_moves_forward_after_each_move(active_game: Game) -> None:
    before = active_game.deadline_at
    play_moves(active_game, 1)
    active_game.refresh_from_db()
    assert active_game.deadline_at is not None and before is not None and active_game.deadline_at >= before
    assert active_game.deadline_at - timezone.now() > timedelta(hours=71)


def test_a_move_out_of_turn_is_refused(active_game: Game) -> None:
    waiting = Seat.objects.get(game=active_game, index=1).user
    with pytest.raises(errors.NotYourTurn):
        services.move_submit(game_id=active_game.pk, user=waiting, text="take WUG", expected_version=active_game.version)


def test_a_non_player_cannot_move(active_game: Game, charlie: Any) -> None:
    with pytest.raises(errors.NotAPlayer):
        services.move_submit(game_id=active_game.pk, user=charlie, text="take WUG", expected_version=3)


def test_an_unknown_game_is_reported_as_not_found(alice: Any) -> None:
    with pytest.raises(errors.GameNotFound):
        services.move_submit(game_id="nope", user=alice, text="take WUG", expected_version=1)


def test_a_stale_version_is_refused_with_the_current_version(active_game: Game) -> None:
    with pytest.raises(errors.StaleVersion) as caught:
        services.move_submit(game_id=active_game.pk, user=user_to_move(active_game), text="take WUG", expected_version=2)
    assert caught.value.fields == {"current_version": 3}


def test_a_version_from_the_future_says_how_far_the_game_has_got(active_game: Game) -> None:
    with pytest.raises(errors.StaleVersion) as caught:
        services.move_submit(game_id=active_game.pk, user=user_to_move(active_game), text="take WUG", expected_version=27)
    assert "the game is only at version 3" in caught.value.message
    assert caught.value.fields == {"current_version": 3}


def test_a_move_returns_what_happened_without_any_http(active_game: Game) -> None:
    played = services.move_submit(
        game_id=active_game.pk, user=user_to_move(active_game), text="take white blue green", expected_version=3
    )
    assert played.move.text == "take WUG" and played.details["move"] == "take WUG"
    assert played.version == 4 and played.game.version == 4 and not played.finished
    assert played.automatic == []


def test_unreadable_notation_is_reported_as_invalid_notation(active_game: Game) -> None:
    with pytest.raises(errors.InvalidNotation):
        services.move_submit(game_id=active_game.pk, user=user_to_move(active_game), text="dance", expected_version=3)


def test_an_illegal_move_carries_the_engines_rule_and_message(active_game: Game) -> None:
    state = engine.from_dict(active_game.state)
    with pytest.raises(engine.IllegalMove) as engine_error:
        engine.parse_move(state, "buy 3-01")
    with pytest.raises(errors.IllegalMove) as caught:
        services.move_submit(game_id=active_game.pk, user=user_to_move(active_game), text="buy 3-01", expected_version=3)
    assert caught.value.fields["rule"] == engine_error.value.rule
    # the engine's words, written as a sentence for a person
    message = engine_error.value.message
    assert caught.value.message == message[0].upper() + message[1:] + "."
    assert not Move.objects.filter(game=active_game).exists()


def test_a_refused_move_changes_nothing(active_game: Game) -> None:
    with pytest.raises(errors.InvalidNotation):
        services.move_submit(game_id=active_game.pk, user=user_to_move(active_game), text="dance", expected_version=3)
    active_game.refresh_from_db()
    assert active_game.version == 3
    assert active_game.events.count() == 3


# --- finishing, rebuilding, exporting ---------------------------------------------------


@pytest.fixture
def finished_game(alice: Any, bob: Any) -> Game:
    game = start_two_player_game(alice, bob)
    play_to_end(game)
    game.refresh_from_db()
    return game


def test_a_game_played_to_the_end_is_finished_with_the_engines_outcome(finished_game: Game) -> None:
    state = engine.from_dict(finished_game.state)
    assert engine.is_over(state)
    assert finished_game.status == Game.Status.FINISHED
    assert finished_game.result == {**engine.outcome(state), "resigned": [], "timed_out": []}
    assert finished_game.finished_at is not None
    assert finished_game.to_move is None and finished_game.deadline_at is None
    assert finished_game.events.last().kind == "game_finished"  # type: ignore[union-attr]
    assert_versions_without_gaps(finished_game)


def test_the_snapshot_equals_the_state_rebuilt_from_the_seed_and_the_log(finished_game: Game) -> None:
    assert selectors.game_rebuild_state(game=finished_game) == finished_game.state


def test_the_snapshot_matches_the_log_in_the_middle_of_a_game(active_game: Game) -> None:
    play_moves(active_game, 9)
    active_game.refresh_from_db()
    assert selectors.game_rebuild_state(game=active_game) == active_game.state


def test_replaying_the_export_reproduces_the_result_and_the_seed_matches_the_commitment(finished_game: Game) -> None:
    export = selectors.game_export(game=finished_game)

    assert hashlib.sha256(export["seed"].encode()).hexdigest() == export["seed_commitment"]
    final = engine.replay(export["variant"], export["players"], int(export["seed"]), export["moves"])
    assert {**engine.outcome(final), "resigned": [], "timed_out": []} == export["result"]
    order = engine.seat_permutation(int(export["seed"]), export["players"])
    assert [entry["join_position"] for entry in export["seats"]] == order


def test_the_export_of_a_running_game_has_no_seed(active_game: Game) -> None:
    play_moves(active_game, 2)
    export = selectors.game_export(game=active_game)
    assert export["seed"] is None
    assert len(export["moves"]) == 2


def test_no_move_is_accepted_after_the_end(finished_game: Game, alice: Any) -> None:
    with pytest.raises(errors.GameNotActive):
        services.move_submit(game_id=finished_game.pk, user=alice, text="pass", expected_version=finished_game.version)


# --- resigning and timeouts ----------------------------------------------------------------


def test_resigning_a_two_player_game_makes_the_other_player_win(active_game: Game, alice: Any) -> None:
    services.game_resign(game=active_game, user=alice)

    active_game.refresh_from_db()
    alice_seat = Seat.objects.get(game=active_game, user=alice).index
    assert active_game.status == Game.Status.FINISHED
    assert active_game.result["winners"] == [1 - alice_seat]
    assert active_game.result["ranking"] == [1 - alice_seat, alice_seat]
    assert active_game.result["reason"] == "resignation"
    assert [e.kind for e in active_game.events.all()][-2:] == ["seat_resigned", "game_finished"]
    assert_versions_without_gaps(active_game)


def test_a_player_cannot_resign_twice_or_after_the_end(active_game: Game, alice: Any, bob: Any) -> None:
    services.game_resign(game=active_game, user=alice)
    with pytest.raises(errors.AlreadyResigned):
        services.game_resign(game=active_game, user=alice)
    with pytest.raises(errors.GameNotActive):
        services.game_resign(game=active_game, user=bob)


def test_a_non_player_cannot_resign(active_game: Game, charlie: Any) -> None:
    with pytest.raises(errors.NotAPlayer):
        services.game_resign(game=active_game, user=charlie)


def test_with_three_seats_the_game_goes_on_and_the_server_plays_the_resigned_seat(
    alice: Any, bob: Any, charlie: Any
) -> None:
    game = services.game_create(creator=alice, seats=3)
    services.seat_join(game=game, user=bob)
    services.seat_join(game=game, user=charlie)
    game.refresh_from_db()
    first = user_to_move(game)

    services.game_resign(game=game, user=first)

    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    automatic = Move.objects.get(game=game)
    assert automatic.automatic and automatic.seat == 0
    assert game.to_move == 1
    play_moves(game, 8)
    resigned_moves = Move.objects.filter(game=game, seat=0)
    assert resigned_moves.count() >= 3 and all(m.automatic for m in resigned_moves)
    assert selectors.game_rebuild_state(game=game) == Game.objects.get(pk=game.pk).state
    assert_versions_without_gaps(game)


def test_when_one_player_is_left_standing_they_win(alice: Any, bob: Any, charlie: Any) -> None:
    game = services.game_create(creator=alice, seats=3)
    services.seat_join(game=game, user=bob)
    services.seat_join(game=game, user=charlie)
    services.game_resign(game=game, user=alice)
    services.game_resign(game=game, user=bob)

    game.refresh_from_db()
    charlie_seat = Seat.objects.get(game=game, user=charlie).index
    assert game.status == Game.Status.FINISHED
    assert game.result["winners"] == [charlie_seat]
    assert game.result["ranking"][0] == charlie_seat
    assert game.result["ranking"][-1] == Seat.objects.get(game=game, user=alice).index


def test_a_player_who_runs_out_of_time_is_resigned_by_the_sweeper(alice: Any, bob: Any, settings: Any) -> None:
    # forfeit_after 1 and no vacation days: the first missed deadline forfeits (docs/api.md, "Clocks and timeouts").
    settings.VACATION_DAYS_PER_YEAR = 0
    active_game = services.game_create(creator=alice, seats=2, invited=[bob], forfeit_after=1)
    services.seat_join(game=active_game, user=bob)
    late = user_to_move(active_game)
    assert services.game_time_out(game_id=active_game.pk) is False

    assert selectors.game_overdue_ids(now=timezone.now() + timedelta(hours=73)) == [active_game.pk]
    assert services.game_time_out(game_id=active_game.pk, now=timezone.now() + timedelta(hours=73)) is True
    assert services.game_time_out(game_id=active_game.pk, now=timezone.now() + timedelta(hours=73)) is False

    active_game.refresh_from_db()
    assert active_game.status == Game.Status.FINISHED
    assert active_game.result["reason"] == "timeout"
    assert Seat.objects.get(game=active_game, user=late).resigned


def test_players_are_made_with_the_accounts_service() -> None:
    # Guards the fixtures: a player has a display name the API shows.
    user = make_player("erin")
    assert user.player.display_name == "Erin"


def test_the_deadline_sweep_command_resigns_only_overdue_players(alice: Any, bob: Any, settings: Any) -> None:
    from io import StringIO

    from django.core.management import call_command

    settings.VACATION_DAYS_PER_YEAR = 0
    active_game = services.game_create(creator=alice, seats=2, invited=[bob], forfeit_after=1)
    services.seat_join(game=active_game, user=bob)
    fresh = start_two_player_game(make_player("erin"), make_player("frank"))
    Game.objects.filter(pk=active_game.pk).update(deadline_at=timezone.now() - timedelta(minutes=1))
    out = StringIO()

    call_command("games_sweep_deadlines", stdout=out)

    assert "1 game(s) had a player run out of time" in out.getvalue()
    assert Game.objects.get(pk=active_game.pk).status == Game.Status.FINISHED
    assert Game.objects.get(pk=fresh.pk).status == Game.Status.ACTIVE


