"""Helpers of the reviews tests: finished games played by the engine's greedy bot
through the services (one with a deliberately bad move: ``game_with_a_noble_handed``),
and a recorder of the tasks the services queue."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import engine
from engine.bots import GreedyBot
from games import services
from games.models import Game, Seat
from tests.factories import StartedGameFactory


def greedy_move(state: engine.State) -> str:
    """The greedy bot's move for the seat to move, from that seat's view."""
    seat = engine.to_move(state)
    legal = [engine.format_move(move) for move in engine.legal_moves(state)]
    return GreedyBot(seed=seat).choose(engine.observe(state, seat), legal)


def play(game: Game, text: str) -> None:
    game.refresh_from_db()
    mover = Seat.objects.select_related("user").get(game=game, index=game.to_move).user
    services.move_submit(game_id=game.pk, user=mover, text=text, expected_version=game.version)


def play_greedy_to_end(game: Game, *, choose: Callable[[engine.State], str] = greedy_move, limit: int = 400) -> Game:
    """Every seat played by the greedy bot (or ``choose``) until the game is over."""
    for _ in range(limit):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            return game
        play(game, choose(engine.from_dict(game.state)))
    raise AssertionError("the game did not end")


def finished_game(creator: Any, invited: list[Any], *, public: bool = False) -> Game:
    """A game of ``1 + len(invited)`` seats played to its end by the greedy bot."""
    game = StartedGameFactory.create(creator=creator, invited=invited, seats=1 + len(invited), public=public)
    return play_greedy_to_end(game)


# A deal (a game's seed) whose greedy game has a position where handing_a_noble finds
# its bad move: move 56, the scores 11 to 11.
NOBLE_HANDED_DEAL = 108


def _buys(state: engine.State) -> Iterator[tuple[str, engine.State, int]]:
    seat = engine.to_move(state)
    assert seat is not None
    for move in engine.legal_moves(state):
        text = engine.format_move(move)
        if text.startswith("buy "):
            yield text, engine.apply(state, text), seat


def winning_noble_buys(state: engine.State) -> list[str]:
    """The buys of the seat to move that bring it a noble and 15 points."""
    return [
        text for text, after, seat in _buys(state)
        if len(after.players[seat].tiles) > len(state.players[seat].tiles) and engine.score(after, seat) >= 15
    ]


def can_win(state: engine.State) -> bool:
    return any(engine.score(after, seat) >= 15 for _, after, seat in _buys(state))


def handing_a_noble(state: engine.State) -> str | None:
    """In a close position where the opponent cannot win yet, a take of gems after
    which the opponent can buy a noble and the win, when another move leaves them no
    win: the bad move to play; None when the position has none."""
    mover = engine.to_move(state)
    assert mover is not None
    if engine.score(state, mover) < engine.score(state, 1 - mover) - 1 or can_win(state):
        return None
    handing, safe = [], []
    for move in engine.legal_moves(state):
        text = engine.format_move(move)
        after = engine.apply(state, text)
        if engine.is_over(after):
            continue
        if winning_noble_buys(after):
            handing.append(text)
        elif not can_win(after):
            safe.append(text)
    takes = [text for text in handing if text.startswith("take ") and " return " not in text]
    return takes[0] if takes and safe else None


def game_with_a_noble_handed(creator: Any, opponent: Any, *, public: bool = False) -> tuple[Game, tuple[int, str]]:
    """A two-player game the greedy bot plays to its end but for one move: at the
    first position ``handing_a_noble`` finds, the bad move, then the opponent's buy
    of the noble and the win. Returns the game and (the bad move's ply, its text).
    Whether the deal has such a position is the caller's to choose (its seed)."""
    game = StartedGameFactory.create(creator=creator, invited=[opponent], public=public)
    bad: tuple[int, str] | None = None
    while bad is None:
        game.refresh_from_db()
        assert game.status == Game.Status.ACTIVE, "the deal has such a position"
        state = engine.from_dict(game.state)
        move = handing_a_noble(state)
        if move is None:
            play(game, greedy_move(state))
            continue
        bad = (state.ply, move)
        play(game, move)
        game.refresh_from_db()
        play(game, winning_noble_buys(engine.from_dict(game.state))[0])  # the opponent takes the noble
    return play_greedy_to_end(game), bad


class Sent:
    """The tasks the reviews' services queued (core.queue.task_send), kept instead
    of run: a test runs them when it likes, or loses them."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, tuple[Any, ...]]] = []

    def __call__(self, name: str, *args: Any) -> None:
        self.messages.append((name, args))

    def run_next(self) -> bool:
        """Run the oldest message queued, as a worker would; False when none is."""
        from reviews import tasks

        if not self.messages:
            return False
        name, args = self.messages.pop(0)
        assert name == "reviews.tasks.bot_review_position"
        tasks.bot_review_position(*args)
        return True
