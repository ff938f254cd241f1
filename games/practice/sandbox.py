"""Sandboxes: a private game from another game's position (after any ply), its
hidden cards dealt again from the view of the seat it is made from, so that it
never holds the real hidden cards. Its owner plays the hot seats (held by the
service's ``sandbox-seat-<n>`` accounts) and may seat bots, except while a rated
or league game it comes from is still being played. It counts towards the
practice games an account may have in play (``games.practice.services``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

import engine
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from accounts.services import system_account_get
from core.db import retry_when_database_locked
from games import errors, replays, selectors
from games.extensions import extensions
from games.models import Game, GameEvent, Seat
from games.practice.services import bot_seat_users, check_bot_names, check_practice_games_active
from games.services.change import GameWrites
from games.services.turns import autoplay, settle

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def _hot_seat_account(number: int) -> User:
    return system_account_get(username=f"sandbox-seat-{number}", display_name=f"hot seat {number}")


def _sandbox_rng() -> random.Random:
    """A generator no one can predict or replay, for dealing a sandbox's hidden cards."""
    return random.Random(random.SystemRandom().getrandbits(128))


def _counts_in_competition(game: Game) -> bool:
    if game.rated:
        return True
    return any(extension.counts_in_competition(game.pk) for extension in extensions())


# How far back a sandbox of a sandbox (of a sandbox ...) is followed to its real game.
_SANDBOX_CHAIN_LIMIT = 50


def _real_game_of(game: Game) -> Game | None:
    """The real game a sandbox was made from, through sandboxes of sandboxes; the
    game itself when it is not a sandbox; None when that game is gone."""
    for _ in range(_SANDBOX_CHAIN_LIMIT):
        if game.kind != Game.Kind.SANDBOX:
            return game
        if game.sandbox_of_id is None:
            return None
        found = Game.objects.filter(pk=game.sandbox_of_id).first()
        if found is None:
            return None
        game = found
    return game


def sandbox_bots_allowed(*, game: Game) -> bool:
    """Whether a sandbox of ``game`` may seat bots: not while a rated or league game
    is still being played (its sandbox would be an engine to consult mid-game),
    nor from a sandbox of one, at any remove."""
    real = _real_game_of(game)
    return real is None or not (real.status == Game.Status.ACTIVE and _counts_in_competition(real))


def _view_seat(source: Game, user: User, seat: int | None) -> int | None:
    """Whose view the sandbox starts from: the user's seat in an active game they
    play; the spectator's (None) for a game that is over or public."""
    own = next((s for s in source.seats.all() if s.user_id == user.pk and s.has_joined), None)
    if source.status == Game.Status.ACTIVE and own is not None and own.index is not None:
        if seat is not None and seat != own.index:
            raise errors.InvalidGameSetup(
                gettext("You play seat %(seat)s in this game, so its sandbox is from your seat; leave out seat.")
                % {"seat": own.index}
            )
        return own.index
    if source.is_over or source.public:
        return None
    raise errors.SandboxNotAllowed(
        gettext("Only the players of a private game make sandboxes of it while it is played, each from their own seat.")
    )


def _position(source: Game, ply: int | None) -> engine.State:
    """The true state of ``source`` after ``ply`` moves (by default now): server-side only."""
    if source.state is None:
        raise errors.SandboxUnavailable(gettext("This game has not started, so there is no position to play from."))
    if ply is None:
        return engine.from_dict(source.state)
    texts = replays.game_move_texts(source)
    if not 0 <= ply <= len(texts):
        raise errors.InvalidGameSetup(
            gettext("ply is a number of moves from 0 to %(total)s, the moves played so far; you asked for %(asked)s.")
            % {"total": len(texts), "asked": ply}
        )
    state = replays.state_after(source, texts[:ply])
    assert state is not None  # the game started: it has a state
    return state


@retry_when_database_locked
def sandbox_create(
    *,
    game_id: str,
    user: User,
    bots: Sequence[str] = (),
    seat: int | None = None,
    ply: int | None = None,
) -> Game:
    """A private sandbox of ``user``'s from the position of game ``game_id`` (after
    ``ply`` moves; by default the current one), its hidden cards dealt again.

    Who may, and from whose view: a seat holder of an active game, from their
    seat (``engine.observe``); anyone who may see a game that is over or public,
    from the spectator's view, playing seat ``seat`` (default 0). The cards that
    view does not show are dealt again at random (``engine.determinize``, from the
    view alone), so the sandbox never holds the real hidden cards. ``bots`` take
    the other seats in play order after the owner's (at most one per seat); the
    seats left are hot seats, which the owner plays too. An active rated or league
    game's sandbox has no bots (SandboxBotsNotAllowed). It counts towards
    PRACTICE_GAMES_ACTIVE_PER_ACCOUNT (TooManyPracticeGames). Nothing of the source
    game changes, and no event is written for it."""
    bots = list(bots)
    source = selectors.game_get_visible(game_id=game_id, user=user)
    if source.state is None:
        raise errors.SandboxUnavailable(gettext("This game has not started, so there is no position to play from."))
    view_seat = _view_seat(source, user, seat)
    if bots and not sandbox_bots_allowed(game=source):
        raise errors.SandboxBotsNotAllowed(
            gettext(
                "This game counts (it is rated or a league's) and is still being played, so its sandbox has no "
                "bots: play every seat yourself, or ask again once the game is over."
            )
        )
    if len(bots) > source.seat_count - 1:
        raise errors.InvalidGameSetup(
            ngettext(
                "This game has %(seats)s: at most %(n)s bot beside yours; you asked for %(asked)s.",
                "This game has %(seats)s: at most %(n)s bots beside yours; you asked for %(asked)s.",
                source.seat_count - 1,
            )
            % {
                "seats": ngettext("%(n)s seat", "%(n)s seats", source.seat_count) % {"n": source.seat_count},
                "n": source.seat_count - 1,
                "asked": len(bots),
            }
        )
    check_bot_names(bots)
    owner_seat = view_seat if view_seat is not None else (seat if seat is not None else 0)
    if not 0 <= owner_seat < source.seat_count:
        raise errors.InvalidGameSetup(
            gettext("seat is one of this game's seats, 0 to %(last)s; you asked for %(asked)s.")
            % {"last": source.seat_count - 1, "asked": owner_seat}
        )
    view = engine.observe(_position(source, ply), view_seat)
    start = engine.determinize(view, _sandbox_rng())
    if engine.is_over(start):
        raise errors.SandboxUnavailable(
            "That position is the end of the game; ask for an earlier one with ply (a number of moves)."
        )
    now = timezone.now()
    others = [(owner_seat + step) % source.seat_count for step in range(1, source.seat_count)]
    bot_at = dict(zip(others, bots, strict=False))
    with transaction.atomic():
        check_practice_games_active(user=user)
        bot_users = dict(zip(bot_at, bot_seat_users(list(bot_at.values())), strict=True))
        hot = [index for index in others if index not in bot_at]
        hot_users = {index: _hot_seat_account(number) for number, index in enumerate(hot, start=1)}
        game = Game.objects.create(
            kind=Game.Kind.SANDBOX,
            sandbox_of=source,
            variant=source.variant,
            seat_count=source.seat_count,
            created_by=user,
            status=Game.Status.ACTIVE,
            started_at=now,
            start_state=engine.to_dict(start),
            state=engine.to_dict(start),
        )
        seats = [
            Seat(
                game=game,
                user=user if index == owner_seat else bot_users.get(index) or hot_users[index],
                index=index,
                join_position=index,
                joined_at=now,
                bot_name=bot_at.get(index, ""),
            )
            for index in range(source.seat_count)
        ]
        Seat.objects.bulk_create(seats)
        writes = GameWrites(game)
        writes.change(
            GameEvent.Kind.GAME_CREATED,
            {
                "variant": game.variant,
                "seats": game.seat_count,
                "public": False,
                "rated": False,
                "creator_id": user.pk,
                "invited_ids": [],
            },
        )
        writes.change(
            GameEvent.Kind.GAME_STARTED,
            {"seed_commitment": "", "seats": [{"seat": s.index, "user_id": s.user_id} for s in seats]},
        )
        state = autoplay(writes, start, resigned=())
        settle(writes, state, now, seats=seats, resigned=(), timed_out=())
        writes.flush()
        game.save()
    return game

