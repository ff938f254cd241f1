"""A move decodes the stored state once (games.engine_states), and the stream's
"your turn", which works out the next seat's legal moves anyway, hands them to
legal-moves' kept answers (games.turn_reads) once the move has committed, never
for a change rolled back."""

from __future__ import annotations

import copy
from typing import Any

import engine
import pytest
from django.db import transaction

from games import services, turn_reads
from games.engine_states import state_of_game, state_store
from games.models import Game, Seat
from tests.games.game_helpers import make_player, start_two_player_game, user_to_move

pytestmark = pytest.mark.django_db


def _texts(state: engine.State) -> tuple[str, ...]:
    return tuple(engine.format_move(move) for move in engine.legal_moves(state))


def test_a_stored_state_is_handed_back_while_the_row_holds_it_and_decoded_afresh_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game = start_two_player_game(make_player("alice"), make_player("bob"))
    game.refresh_from_db()
    first = state_of_game(game)
    assert state_of_game(game) is first  # decoded once
    after = engine.apply(first, _texts(first)[0])
    state_store(game, after)
    assert game.state == engine.to_dict(after) and state_of_game(game) is after
    then = copy.copy(game)
    then.state = engine.to_dict(first)  # a copy given another state (the replay)
    assert state_of_game(then) is not first and state_of_game(then) == first
    game.refresh_from_db()  # read again: the stored dict is a new one
    decoded = []
    real = engine.from_dict
    monkeypatch.setattr(engine, "from_dict", lambda stored: decoded.append(1) or real(stored))
    assert state_of_game(game) == first and decoded == [1]


def test_a_committed_move_keeps_the_next_seats_legal_moves(django_capture_on_commit_callbacks: Any) -> None:
    game = start_two_player_game(make_player("alice"), make_player("bob"))
    game.refresh_from_db()
    turn_reads.legal_moves_kept_clear()
    with django_capture_on_commit_callbacks(execute=True):
        services.move_submit(
            game_id=game.pk, user=user_to_move(game), text=_texts(engine.from_dict(game.state))[0],
            expected_version=game.version,
        )
    game.refresh_from_db()
    key = (game.pk, game.version, game.to_move)
    kept = turn_reads._kept.get(key)
    assert kept == _texts(engine.from_dict(game.state))
    assert turn_reads.legal_moves_kept_count() == 1


def test_a_move_rolled_back_keeps_nothing(django_capture_on_commit_callbacks: Any) -> None:
    game = start_two_player_game(make_player("alice"), make_player("bob"))
    game.refresh_from_db()
    turn_reads.legal_moves_kept_clear()
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(RuntimeError), transaction.atomic():
        services.move_submit(
            game_id=game.pk, user=user_to_move(game), text=_texts(engine.from_dict(game.state))[0],
            expected_version=game.version,
        )
        raise RuntimeError("rolled back")
    assert turn_reads.legal_moves_kept_count() == 0
    assert Game.objects.get(pk=game.pk).version == game.version
    assert Seat.objects.filter(game=game).count() == 2
