"""GET legal-moves keeps each seat's answer in the process per (game, version,
seat) (games.turn_reads), and reads it back only for a caller who acts for that
seat: the moves of the seat to move (which may buy a card only it sees) never
reach another seat, a spectator or a moderator, and a new version is a new answer.

Personas: alice and bob play; charlie watches a public game; root is a superuser,
who may see every game without a seat.
"""

from __future__ import annotations

from typing import Any

import engine
import pytest
from django.contrib.auth.models import User

from games import turn_reads
from games.models import Game, Move, Seat
from tests.factories import StartedGameFactory
from tests.games.game_helpers import client_for, user_to_move

pytestmark = pytest.mark.django_db


def legal(user: Any, game: Game) -> dict[str, Any]:
    answer = client_for(user, scopes=("read",)).get(f"/api/v1/games/{game.pk}/legal-moves/")
    assert answer.status_code == 200, answer.content
    return answer.json()  # type: ignore[no-any-return]


def other_than(game: Game, user: Any) -> Any:
    return Seat.objects.exclude(user=user).select_related("user").get(game=game).user


def test_the_movers_kept_answer_is_read_back_for_the_mover_alone(
    alice: Any, bob: Any, charlie: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = StartedGameFactory.create(creator=alice, invited=[bob], public=True)
    root = User.objects.create_superuser("root", "root@example.com", "x")
    mover = user_to_move(game)
    turn_reads.legal_moves_kept_clear()
    first = legal(mover, game)
    assert first["moves"] and first["your_seat"] == game.to_move
    # From here on the engine is never asked again: only a kept answer can be given.
    def no_engine(state: Any) -> Any:
        raise AssertionError("legal moves worked out again")

    monkeypatch.setattr(engine, "legal_moves", no_engine)
    assert legal(mover, game) == first
    waiting = legal(other_than(game, mover), game)
    assert waiting["moves"] == [] and waiting["your_seat"] not in (None, game.to_move)
    for watcher in (charlie, root):
        watched = legal(watcher, game)
        assert watched == {"version": first["version"], "to_move": first["to_move"], "your_seat": None, "moves": []}


def test_a_blind_reserved_card_is_in_no_answer_but_its_owners(alice: Any, bob: Any, charlie: Any) -> None:
    game = StartedGameFactory.create(creator=alice, invited=[bob], public=True)
    reserver = user_to_move(game)
    client_for(reserver).post(
        f"/api/v1/games/{game.pk}/moves/", {"move": "reserve deck1", "expected_version": game.version}, format="json"
    )
    card = Move.objects.get(game=game, ply=0).private_card
    assert card
    game.refresh_from_db()
    # Each caller asks at every version until the reserver's turn comes back, the kept answers shared in between.
    for _ in range(2):
        for caller in (reserver, other_than(game, reserver), charlie):
            answer = legal(caller, game)
            if caller != reserver:
                assert card not in str(answer)
        game.refresh_from_db()
        mover = user_to_move(game)
        body = {"move": legal(mover, game)["moves"][0], "expected_version": game.version}
        assert client_for(mover).post(f"/api/v1/games/{game.pk}/moves/", body, format="json").status_code == 201
        game.refresh_from_db()


def test_a_new_version_is_a_new_answer(alice: Any, bob: Any) -> None:
    game = StartedGameFactory.create(creator=alice, invited=[bob])
    mover = user_to_move(game)
    before = legal(mover, game)
    body = {"move": before["moves"][0], "expected_version": before["version"]}
    assert client_for(mover).post(f"/api/v1/games/{game.pk}/moves/", body, format="json").status_code == 201
    game.refresh_from_db()
    assert legal(mover, game)["moves"] == [] and legal(mover, game)["version"] == game.version
    state = engine.from_dict(game.state)
    assert legal(user_to_move(game), game)["moves"] == [engine.format_move(m) for m in engine.legal_moves(state)]


def test_the_kept_answers_are_bounded(alice: Any, bob: Any) -> None:
    game = StartedGameFactory.create(creator=alice, invited=[bob])
    turn_reads.legal_moves_kept_clear()
    for version in range(turn_reads.LEGAL_MOVES_KEPT + 20):
        turn_reads.seat_moves(game_id=game.pk, version=version, seat=game.to_move, state=game.state)
    assert turn_reads.legal_moves_kept_count() == turn_reads.LEGAL_MOVES_KEPT
    turn_reads.legal_moves_kept_clear()
