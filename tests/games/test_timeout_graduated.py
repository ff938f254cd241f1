"""Graduated timeouts: the built-in bot plays a missed turn and the player stays
in the game; the forfeit_after-th timeout in a row forfeits the seat; a seat
whose only legal move is pass has it played at once. A game never stalls.

Personas: alice creates the games, bob plays against her, dave fills a third seat
(conftest.py). Nobody has vacation days here, so every missed deadline is a timeout.
"""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import engine
import pytest
from django.db import connection

from engine.bots.greedy import GreedyBot
from games import services
from games.services import clocks
from games.models import Game, GameEvent, Move, Seat
from tests.engine.builders import cards_where, position
from tests.games.clock_helpers import HOUR, NOON, events, play_a_take, seat_to_move, started_game, time_out
from tests.games.game_helpers import make_player

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_vacation(settings: Any, time_machine: Any) -> None:
    settings.VACATION_DAYS_PER_YEAR = 0
    time_machine.move_to(NOON, tick=False)


def test_on_a_timeout_the_bot_plays_the_turn_and_the_player_stays_in_the_game(alice: Any, bob: Any) -> None:
    game = started_game(alice, bob, move_timeout_hours=24)
    late = seat_to_move(game)

    assert time_out(game) is True

    game.refresh_from_db()
    late.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert not late.resigned and late.consecutive_timeouts == 1
    move = Move.objects.get(game=game)
    assert (move.seat, move.played_by, move.automatic) == (late.index, "bot", True)
    assert game.to_move != late.index
    assert game.deadline_at == NOON + timedelta(hours=24 + 24)  # the turn started at the old deadline


def test_a_timeout_writes_turn_timed_out_before_the_bots_move(alice: Any, bob: Any) -> None:
    game = started_game(alice, bob)
    late = seat_to_move(game)

    time_out(game)

    timed_out, played = events(game)[-2:]
    assert timed_out.kind == "turn_timed_out"
    assert timed_out.payload == {
        "seat": late.index,
        "user_id": late.user_id,
        "consecutive": 1,
        "forfeit_after": 3,
        "version": timed_out.payload["version"],
    }
    assert played.kind == "move_played"
    assert played.payload["played_by"] == "bot" and played.payload["automatic"] is True
    assert played.payload["seat"] == late.index


def test_the_bot_chooses_from_the_seats_own_view_and_the_legal_moves(alice: Any, bob: Any, monkeypatch: Any) -> None:
    game = started_game(alice, bob)
    late = seat_to_move(game)
    seen: list[tuple[Any, list[str]]] = []
    choose = GreedyBot.choose

    def spy(self: GreedyBot, view: Any, legal: Any) -> str:
        seen.append((view, list(legal)))
        return choose(self, view, legal)

    monkeypatch.setattr(GreedyBot, "choose", spy)
    state = engine.from_dict(game.state)

    time_out(game)

    [(view, legal)] = seen
    assert view == engine.observe(state, late.index)
    assert legal == [engine.format_move(m) for m in engine.legal_moves(state)]


def test_the_forfeit_after_th_timeout_in_a_row_forfeits_and_with_two_players_the_other_wins(
    alice: Any, bob: Any
) -> None:
    game = started_game(alice, bob, forfeit_after=2)
    late = seat_to_move(game)
    time_out(game)  # the bot plays
    play_a_take(game)  # the other player

    time_out(game)

    game.refresh_from_db()
    late.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.result["reason"] == "timeout" and game.result["winners"] == [1 - late.index]
    assert late.resigned and late.timed_out and late.consecutive_timeouts == 2
    timed_out, resigned = events(game)[-3:-1]
    assert (timed_out.kind, timed_out.payload["consecutive"]) == ("turn_timed_out", 2)
    assert resigned.kind == "seat_resigned"
    assert {k: v for k, v in resigned.payload.items() if k != "version"} == {
        "seat": late.index, "user_id": late.user_id, "reason": "timeout",
    }
    assert Move.objects.filter(game=game, played_by="bot").count() == 1


def test_forfeit_after_one_forfeits_at_the_first_timeout(alice: Any, bob: Any) -> None:
    game = started_game(alice, bob, forfeit_after=1)
    late = seat_to_move(game)

    time_out(game)

    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.result["winners"] == [1 - late.index] and game.result["timed_out"] == [late.index]
    assert not Move.objects.filter(game=game).exists()


def test_a_move_of_ones_own_resets_the_timeouts_in_a_row(alice: Any, bob: Any) -> None:
    game = started_game(alice, bob, forfeit_after=2)
    late = seat_to_move(game)
    time_out(game)
    play_a_take(game)  # the other seat
    play_a_take(game)  # the late player's own move
    late.refresh_from_db()
    assert late.consecutive_timeouts == 0
    play_a_take(game)

    time_out(game)

    game.refresh_from_db()
    late.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and late.consecutive_timeouts == 1


def test_with_three_players_a_forfeited_seat_ranks_last_and_the_others_play_on(
    alice: Any, bob: Any, dave: Any
) -> None:
    game = started_game(alice, bob, dave, forfeit_after=1)
    gone = seat_to_move(game)

    time_out(game)

    game.refresh_from_db()
    gone.refresh_from_db()
    assert game.status == Game.Status.ACTIVE and gone.resigned and gone.timed_out
    while Move.objects.filter(game=game, seat=gone.index).count() == 0:
        play_a_take(game)
    quiet = Move.objects.get(game=game, seat=gone.index)
    assert quiet.played_by == "service" and quiet.text.startswith("take ")

    second = seat_to_move(game)
    time_out(game)

    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.result["reason"] == "timeout"
    assert game.result["ranking"] == [3 - gone.index - second.index, second.index, gone.index]
    assert game.result["timed_out"] == sorted([gone.index, second.index])


def test_a_timed_out_bots_blind_reserve_never_names_the_card_in_an_event(
    alice: Any, bob: Any, monkeypatch: Any
) -> None:
    game = started_game(alice, bob)
    monkeypatch.setattr(GreedyBot, "choose", lambda self, view, legal: "reserve deck1")

    time_out(game)

    move = Move.objects.get(game=game)
    assert move.text == "reserve deck1" and move.private_card
    for event in GameEvent.objects.filter(game=game):
        assert move.private_card not in repr(event.payload)


def test_a_seat_whose_only_move_is_pass_has_it_played_by_the_service(alice: Any, bob: Any) -> None:
    game = started_game(alice, bob)
    level3 = cards_where("base", level=3)
    # Both seats hold ten gems and three reserved level-3 cards (as in the engine's
    # B-PASS tests); seat 1, to move, has the green bonuses to buy its 3-14 outright, seat 0 nothing to do.
    state = position(
        "base",
        players=2,
        seat_tokens={0: "WWWWUUUUGG", 1: "GGRRRRKKKK"},
        reserved={0: level3[9:12], 1: level3[12:15]},
        market={1: [None] * 4, 2: [None] * 4, 3: level3[:4]},
        decks={1: [], 2: [], 3: level3[4:9] + level3[15:]},
        bonuses={1: "GGGGGGG"},  # 3-14 is paid with bonuses alone: the supply stays empty
        ply=1,
    )
    Game.objects.filter(pk=game.pk).update(state=engine.to_dict(state), to_move=1)
    mover = Seat.objects.get(game=game, index=1)

    services.move_submit(game_id=game.pk, user=mover.user, text="buy 3-14", expected_version=game.version)

    moves = list(Move.objects.filter(game=game).order_by("ply"))
    assert [(m.seat, m.text, m.played_by) for m in moves[:2]] == [(1, "buy 3-14", "player"), (0, "pass", "service")]
    played = [e.payload for e in events(game, "move_played")]
    assert played[1]["played_by"] == "service" and played[1]["move"] == "pass" and played[1]["automatic"]
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED or game.to_move == 1


def test_a_sweep_run_twice_times_each_game_out_once(alice: Any, bob: Any) -> None:
    games = [started_game(alice, bob)] + [started_game(make_player(f"p{i}"), make_player(f"q{i}")) for i in range(2)]
    later = NOON + timedelta(hours=73)

    assert services.game_time_out_overdue(now=later) == 3
    assert services.game_time_out_overdue(now=later) == 0
    for game in games:
        assert len(events(game, "turn_timed_out")) == 1


def test_the_sweep_works_through_more_games_than_one_batch(alice: Any, bob: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(clocks, "SWEEP_BATCH", 2)  # where the sweep reads it
    games = [started_game(make_player(f"p{i}"), make_player(f"q{i}")) for i in range(5)]

    assert services.game_time_out_overdue(now=NOON + timedelta(hours=73)) == 5
    assert all(len(events(game, "turn_timed_out")) == 1 for game in games)


def test_a_game_whose_deadline_has_not_passed_is_left_alone(alice: Any, bob: Any) -> None:
    game = started_game(alice, bob)
    assert services.game_time_out_overdue(now=NOON + timedelta(hours=71)) == 0
    assert services.game_time_out(game_id=game.pk, now=NOON + timedelta(hours=71)) is False
    assert events(game, "turn_timed_out") == []


def test_timeouts_alone_bring_a_game_to_its_end(alice: Any, bob: Any) -> None:
    game = started_game(alice, bob, move_seconds=HOUR, forfeit_after=3)
    for _ in range(6):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        time_out(game)
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED and game.result["reason"] == "timeout"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_on_postgresql_two_sweeps_at_once_time_each_game_out_exactly_once() -> None:
    games = [started_game(make_player(f"a{i}"), make_player(f"b{i}")) for i in range(12)]
    later = NOON + timedelta(hours=73)
    barrier = threading.Barrier(2)
    acted: list[int] = []
    failures: list[str] = []

    def sweep() -> None:
        try:
            barrier.wait(timeout=30)
            acted.append(services.game_time_out_overdue(now=later))
        except Exception as exc:  # reported below
            failures.append(repr(exc))
        finally:
            connection.close()

    threads = [threading.Thread(target=sweep) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert failures == []
    assert sum(acted) == len(games)
    for game in games:
        assert len(events(game, "turn_timed_out")) == 1
        assert Move.objects.filter(game=game, played_by="bot").count() == 1
