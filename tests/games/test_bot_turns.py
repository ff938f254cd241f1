"""The bots' turns as rows (``games.BotTurn``), played by the dispatcher one move
per task, fairly across accounts; and the deadline sweep, which only queues each
overdue game for the bots worker.

alice keeps five practice games waiting on their bots (a heavy user); bob has a
single one, and stands for everyone else: his bot must not wait behind alice's.
charlie plays real games with alice.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import engine
import pytest
import time_machine
from django.db import connection, transaction
from django.utils import timezone
from tests.games.clock_helpers import events, started_game
from tests.games.game_helpers import make_player

from games import services
from games.models import BotTurn, Game, GameEvent, Move, PlayedBy, Seat
from games.services import bot_turns, clocks, turns
from games.tasks import time_out_game

pytestmark = pytest.mark.django_db


@contextmanager
def _no_capture(execute: bool) -> Iterator[None]:
    """For a test whose changes commit for real (nothing to capture)."""
    yield


def _waiting_on_its_bot(user: Any, capture: Any, bots: tuple[str, ...] = ("greedy",)) -> Game:
    """A practice game of ``user``'s whose bot is to move and has not moved: the
    dispatcher queued on commit never runs (a worker that has not got to it)."""
    with capture(execute=False):
        game = services.practice_game_create(creator=user, bots=list(bots))
        game.refresh_from_db()
        person = Seat.objects.get(game=game, user=user)
        if game.to_move == person.index:
            assert game.state is not None  # started at once
            state = engine.from_dict(game.state)
            move = engine.format_move(engine.legal_moves(state)[0])
            services.move_submit(game_id=game.pk, user=user, text=move, expected_version=game.version)
    game.refresh_from_db()
    assert game.to_move != person.index
    assert BotTurn.objects.filter(game=game).exists()
    return game


def test_a_practice_bots_turn_is_a_row_against_its_persons_share(
    alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    game = _waiting_on_its_bot(alice, django_capture_on_commit_callbacks)

    turn = BotTurn.objects.get(game=game)
    assert turn.kind == BotTurn.Kind.PRACTICE
    assert turn.account_id == alice.pk
    assert turn.claimed_until is None and turn.due_at <= timezone.now()


def test_another_accounts_single_bot_turn_is_played_within_the_first_two_dispatches(
    alice: Any, bob: Any, django_capture_on_commit_callbacks: Any
) -> None:
    heavy = [_waiting_on_its_bot(alice, django_capture_on_commit_callbacks) for _ in range(5)]
    light = _waiting_on_its_bot(bob, django_capture_on_commit_callbacks)
    assert BotTurn.objects.filter(account=alice).count() == 5

    served = [services.bot_turns_dispatch(), services.bot_turns_dispatch()]

    assert [played.game_id for played in served if played is not None] == [heavy[0].pk, light.pk]
    assert all(played is not None and played.played for played in served)
    light.refresh_from_db()
    assert light.to_move == Seat.objects.get(game=light, user=bob).index


def test_each_dispatch_plays_exactly_one_bot_move(alice: Any, django_capture_on_commit_callbacks: Any) -> None:
    game = _waiting_on_its_bot(alice, django_capture_on_commit_callbacks, bots=("greedy", "greedy", "greedy"))
    person = Seat.objects.get(game=game, user=alice).index
    assert person is not None
    before = Move.objects.filter(game=game).exclude(seat=person).count()

    with django_capture_on_commit_callbacks(execute=False) as queued:
        played = services.bot_turns_dispatch()

    assert played == services.BotTurnPlayed(game_id=game.pk, played=True)
    assert Move.objects.filter(game=game).exclude(seat=person).count() == before + 1
    game.refresh_from_db()
    if game.to_move != person:
        # The next bot waits in line again, and the dispatcher is queued for it.
        turn = BotTurn.objects.get(game=game)
        assert turn.claimed_until is None and turn.served_at is not None
        assert queued


def test_a_turn_played_goes_to_the_back_of_its_accounts_line(
    alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    # A deal where the bot to move is followed by another bot, not by alice (the
    # deal decides the seats: other deals are put away).
    for _ in range(40):
        first = _waiting_on_its_bot(alice, django_capture_on_commit_callbacks, bots=("greedy", "greedy", "greedy"))
        person = Seat.objects.get(game=first, user=alice).index
        assert first.to_move is not None and person is not None
        if (first.to_move + 1) % 4 != person:
            break
        first.delete()
    else:
        raise AssertionError("no deal in 40 puts two bots in a row before alice")
    second = _waiting_on_its_bot(alice, django_capture_on_commit_callbacks)

    with django_capture_on_commit_callbacks(execute=False):
        assert services.bot_turns_dispatch() == services.BotTurnPlayed(game_id=first.pk, played=True)
        first.refresh_from_db()
        assert first.to_move != person
        # Its next bot is due at once, but behind alice's other game.
        assert BotTurn.objects.get(game=first).due_at > BotTurn.objects.get(game=second).due_at
        after = services.bot_turns_dispatch()

    assert after == services.BotTurnPlayed(game_id=second.pk, played=True)


def test_the_bots_queue_holds_one_dispatcher_message_however_many_turns_are_put_in_line(
    alice: Any, bob: Any, commit: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[str] = []
    monkeypatch.setattr(turns, "task_send", lambda name, *args: sent.append(name))
    games = [_waiting_on_its_bot(user, lambda execute: commit()) for user in (alice, alice, bob)]
    assert BotTurn.objects.filter(game__in=games).count() == 3

    assert sent == ["games.tasks.bot_turns_dispatch"]  # the first; the others found it waiting

    # A worker takes it: the run clears the mark and queues the next, as turns are still due.
    with commit():
        assert services.bot_turns_dispatch() is not None
    assert sent == ["games.tasks.bot_turns_dispatch"] * 2


def test_a_lost_dispatcher_message_is_sent_again_by_the_beat_whatever_the_mark_says(
    alice: Any, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = _waiting_on_its_bot(alice, django_capture_on_commit_callbacks)
    sent: list[str] = []
    monkeypatch.setattr(turns, "task_send", lambda name, *args: sent.append(name))
    assert turns.bot_turns_dispatch_queue() is True  # the message that will be lost
    assert turns.bot_turns_dispatch_queue() is False  # a message is thought to be waiting
    BotTurn.objects.filter(game=game).update(due_at=timezone.now() - timedelta(minutes=5))

    assert services.bot_turns_requeue() == 1

    assert sent == ["games.tasks.bot_turns_dispatch"] * 2


def test_a_dispatch_with_nothing_due_does_nothing(alice: Any, commit: Any) -> None:
    with commit():
        game = services.practice_game_create(creator=alice, bots=["greedy"])
    game.refresh_from_db()
    assert game.to_move == Seat.objects.get(game=game, user=alice).index
    version = game.version

    assert services.bot_turns_dispatch() is None
    assert Game.objects.get(pk=game.pk).version == version


def test_a_turn_whose_bot_is_no_longer_due_leaves_the_line_without_a_move(
    alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    game = _waiting_on_its_bot(alice, django_capture_on_commit_callbacks)
    moves = Move.objects.filter(game=game).count()
    Game.objects.filter(pk=game.pk).update(status=Game.Status.ABORTED)

    assert services.bot_turns_dispatch() == services.BotTurnPlayed(game_id=game.pk, played=False)

    assert Move.objects.filter(game=game).count() == moves
    assert not BotTurn.objects.filter(game=game).exists()


def test_a_bot_that_fails_keeps_its_turn_claimed_until_the_lease_ends(
    alice: Any, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = _waiting_on_its_bot(alice, django_capture_on_commit_callbacks)

    def broken(*_: Any, **__: Any) -> str:
        raise RuntimeError("the bot broke")

    monkeypatch.setattr(bot_turns, "bot_choose", broken)
    with pytest.raises(RuntimeError):
        services.bot_turns_dispatch()

    turn = BotTurn.objects.get(game=game)
    assert turn.claimed_until is not None and turn.claimed_until > timezone.now()
    # Not tried again at once, in a loop; after the lease, it is.
    assert services.bot_turns_dispatch() is None
    monkeypatch.undo()
    later = timezone.now() + timedelta(seconds=bot_turns.BOT_TURN_LEASE_SECONDS + 1)
    assert services.bot_turns_dispatch(now=later) == services.BotTurnPlayed(game_id=game.pk, played=True)


def test_a_practice_game_from_before_bot_turns_had_rows_is_put_in_line_by_the_beat(
    alice: Any, django_capture_on_commit_callbacks: Any
) -> None:
    game = _waiting_on_its_bot(alice, django_capture_on_commit_callbacks)
    BotTurn.objects.filter(game=game).delete()
    Game.objects.filter(pk=game.pk).update(started_at=timezone.now() - timedelta(minutes=5))
    Move.objects.filter(game=game).update(created_at=timezone.now() - timedelta(minutes=5))

    with django_capture_on_commit_callbacks(execute=False) as queued:
        services.bot_turns_requeue()

    assert BotTurn.objects.filter(game=game, account=alice).exists()
    assert queued


def test_the_deadline_sweep_queues_each_overdue_game_by_id_and_plays_nothing_itself(
    alice: Any, bob: Any, charlie: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    games = [started_game(alice, bob), started_game(alice, charlie)]
    later = max(game.deadline_at for game in games if game.deadline_at) + timedelta(seconds=1)
    sent: list[tuple[str, tuple[Any, ...]]] = []
    monkeypatch.setattr(clocks, "task_send", lambda name, *args: sent.append((name, args)))

    assert services.game_time_outs_queue(now=later) == 2

    assert sorted(sent) == sorted(("games.tasks.time_out_game", (game.pk,)) for game in games)
    assert Move.objects.filter(game__in=games).count() == 0
    assert all(Game.objects.get(pk=game.pk).deadline_at == game.deadline_at for game in games)


def test_the_takeover_move_is_one_change_with_its_turn_timed_out_event(
    alice: Any, bob: Any, settings: Any
) -> None:
    settings.VACATION_DAYS_PER_YEAR = 0
    game = started_game(alice, bob)
    assert game.deadline_at is not None
    version = game.version

    with time_machine.travel(game.deadline_at + timedelta(seconds=1)):
        assert time_out_game.delay(game.pk).get() is True

    timed_out, played = events(game)[-2:]
    assert timed_out.kind == GameEvent.Kind.TURN_TIMED_OUT
    assert played.kind == GameEvent.Kind.MOVE_PLAYED and played.payload["bot_reason"] == "timeout"
    # One change: written together, the versions one after the other from where the game was.
    assert [timed_out.payload["version"], played.payload["version"]] == [version + 1, version + 2]
    assert played.id == timed_out.id + 1
    assert Move.objects.get(game=game, ply=0).played_by == PlayedBy.BOT


def test_the_deadline_task_for_a_game_not_yet_due_or_gone_changes_nothing(alice: Any, bob: Any) -> None:
    game = started_game(alice, bob)
    version = game.version

    assert time_out_game.delay(game.pk).get() is False
    assert time_out_game.delay("nosuchgame").get() is False
    assert Game.objects.get(pk=game.pk).version == version


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_on_postgresql_a_second_bots_worker_skips_the_turn_another_is_claiming(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Committed for real, so that two connections see the rows; the dispatcher is not queued.
    monkeypatch.setattr(turns, "task_send", lambda *_: None)
    alice, bob = make_player("alice"), make_player("bob")
    first = _waiting_on_its_bot(alice, _no_capture)
    second = _waiting_on_its_bot(bob, _no_capture)
    claimed: list[str] = []

    def other_worker() -> None:
        try:
            turn = bot_turns._claim(timezone.now())
            claimed.append(turn.game_id if turn is not None else "")
        finally:
            connection.close()

    with transaction.atomic():
        # One worker holds the first turn in line (its claim not yet committed).
        held = BotTurn.objects.select_for_update().get(game=first)
        worker = threading.Thread(target=other_worker)
        worker.start()
        worker.join(timeout=30)
        assert held.game_id == first.pk

    assert claimed == [second.pk]
