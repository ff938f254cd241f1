"""Games against the service's bots: creating a practice game, the bots' seats
and the limit on practice games in play, which sandboxes (games.practice.sandbox)
share. The bots' turns are played by the bots worker
(``games.services.bot_turns``), one move per task.

A bot's seat is held by one of the service's own accounts (``bot-<bot>-<n>``,
``accounts.services.system_account_get``), so that every seat keeps a user and
every move enters through ``move_submit`` as a player's does: the version, the
move log and the outbox stay right, and nothing downstream needs to know about
bots beyond ``Game.kind``. A sandbox's hot seats, which its owner plays, are
held the same way (``sandbox-seat-<n>``).

Practice games and sandboxes have no clock (``turns.start_turn_clock``); the
outbox's consumers hear of them only as games decides
(``GameExtension.hears_practice``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import engine
import engine.bots
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from accounts.services import system_account_get
from core.db import retry_when_database_locked
from core.text import listed
from games import errors
from games.practice import selectors as practice_selectors
from games.models import Game, GameEvent, Seat
from games.services.change import GameWrites
from games.services.lifecycle import MAX_SEATS, deal_and_start

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def bot_names() -> list[str]:
    """The bots a practice game or a sandbox can seat: engine.bots.BOTS, sorted."""
    return sorted(engine.bots.BOTS)


def check_bot_names(bots: Sequence[str]) -> None:
    unknown = [name for name in bots if name not in engine.bots.BOTS]
    if unknown:
        raise errors.InvalidGameSetup(
            gettext("There is no bot called %(unknown)s; the bots are %(bots)s.")
            % {"unknown": listed([repr(name) for name in unknown]), "bots": listed(bot_names())},
            known_bots=bot_names(),
        )


def _bot_account(name: str, number: int) -> User:
    display = f"{name} bot" if number == 1 else f"{name} bot {number}"
    return system_account_get(username=f"bot-{name}-{number}", display_name=display)


def bot_seat_users(bots: Sequence[str]) -> list[User]:
    """One account per bot seat, numbered per bot (two greedy bots are bot-greedy-1
    and bot-greedy-2): a game seats each account once."""
    seen: dict[str, int] = {}
    users = []
    for name in bots:
        seen[name] = seen.get(name, 0) + 1
        users.append(_bot_account(name, seen[name]))
    return users


def check_practice_games_active(*, user: User) -> None:
    """TooManyPracticeGames when ``user`` has PRACTICE_GAMES_ACTIVE_PER_ACCOUNT
    practice games and sandboxes in play already. Should be called inside the
    transaction that creates the new one: it locks the account's row until that
    transaction ends, so that two creations at once are counted one after the other."""
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    limit: int = settings.PRACTICE_GAMES_ACTIVE_PER_ACCOUNT
    active = practice_selectors.practice_games_active_count(user_id=user.pk)
    if active < limit:
        return
    raise errors.TooManyPracticeGames(
        ngettext(
            "You have %(active)s practice game or sandbox in play, and an account may have %(limit)s at once: "
            "finish or resign it to start another.",
            "You have %(active)s practice games and sandboxes in play, and an account may have %(limit)s at once: "
            "finish or resign one of them to start another.",
            active,
        )
        % {"active": active, "limit": limit},
        practice_games_active=active,
        practice_games_limit=limit,
    )


@retry_when_database_locked
def practice_game_create(
    *, creator: User, variant: str = "base", bots: Sequence[str], seats: int | None = None, rated: bool = False
) -> Game:
    """A private practice game of ``creator`` against 1 to 3 ``bots`` (names in
    engine.bots.BOTS, one seat each), started at once: the seed deals and orders
    the seats as in any game. It has no clock; a bot to move first is played by a
    worker once this commits. Refusals (InvalidGameSetup): an unknown variant or
    bot (``known_bots``), no bot or more than three, ``seats`` (when given) other
    than 1 + the bots, ``rated``; PRACTICE_GAMES_ACTIVE_PER_ACCOUNT in play already
    (TooManyPracticeGames)."""
    bots = list(bots)
    if variant not in engine.VARIANTS:
        raise errors.InvalidGameSetup(
            gettext("Unknown variant %(variant)s; choose one of: %(variants)s.")
            % {"variant": repr(variant), "variants": ", ".join(engine.VARIANTS)}
        )
    if rated:
        raise errors.InvalidGameSetup(gettext("A practice game against bots counts towards no rating; leave out rated."))
    if not 1 <= len(bots) <= MAX_SEATS - 1:
        raise errors.InvalidGameSetup(
            gettext("A practice game has 1 to %(most)s bots beside you; you asked for %(asked)s.")
            % {"most": MAX_SEATS - 1, "asked": len(bots)}
        )
    if seats is not None and seats != 1 + len(bots):
        raise errors.InvalidGameSetup(
            ngettext(
                "A practice game has your seat and one per bot: %(bots)s make %(n)s seat, not %(asked)s. "
                "Leave out seats, or make it match.",
                "A practice game has your seat and one per bot: %(bots)s make %(n)s seats, not %(asked)s. "
                "Leave out seats, or make it match.",
                1 + len(bots),
            )
            % {
                "bots": ngettext("%(n)s bot", "%(n)s bots", len(bots)) % {"n": len(bots)},
                "n": 1 + len(bots),
                "asked": seats,
            }
        )
    check_bot_names(bots)
    now = timezone.now()
    with transaction.atomic():
        check_practice_games_active(user=creator)
        users = bot_seat_users(bots)
        game = Game.objects.create(
            kind=Game.Kind.PRACTICE, variant=variant, seat_count=1 + len(bots), created_by=creator
        )
        Seat.objects.bulk_create(
            [
                Seat(game=game, user=creator, joined_at=now, join_position=0),
                *(
                    Seat(game=game, user=user, joined_at=now, join_position=position, bot_name=name)
                    for position, (name, user) in enumerate(zip(bots, users, strict=True), start=1)
                ),
            ]
        )
        writes = GameWrites(game)
        writes.change(
            GameEvent.Kind.GAME_CREATED,
            {
                "variant": variant,
                "seats": game.seat_count,
                "public": False,
                "rated": False,
                "creator_id": creator.pk,
                "invited_ids": [],
            },
        )
        deal_and_start(writes, now)
        writes.flush()
        game.save()
    return game
