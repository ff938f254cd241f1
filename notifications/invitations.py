"""A new game that invites players by username or by email address, for the
new-game page (front.new_game).

Inviting by address is this app's part: an address with an active account gets
the usual invitation (a reserved seat, games.services.game_create); any other
address is mailed a link to sign up that leads to the game, unless it opted out
of invitations (notifications.models.InvitationOptOut), and its seat stays open.
Nothing the caller gets back, error or success, depends on which of these an
address was: the page never tells whether an address has an account.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from core.text import listed
from games import errors as game_errors
from games import selectors
from games.models import Game
from games.services import game_create
from notifications.addresses import address_digest
from notifications.inbound.actions import signup_invitation_send
from notifications.models import InvitationOptOut

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class InvitationRefused(game_errors.InvalidGameSetup):
    """The invitations asked for cannot be made (too many, twice, oneself): the
    games app's invalid_game_setup, about the invitations in particular."""


class UnknownUsername(InvitationRefused):
    """A username names no active account (usernames are public: saying so tells nothing private)."""


@dataclass(frozen=True)
class GameSetup:
    variant: str
    seats: int
    usernames: Sequence[str]
    addresses: Sequence[str]
    move_timeout_hours: int
    bank_hours: int
    public: bool
    rated: bool


def _limit_check(*, creator: User, inviting: int) -> None:
    # Every address counts, with an account or without: a limit reached earlier
    # for one kind than for the other would tell which kind an address is.
    limit: int = settings.INVITATIONS_PER_DAY
    sent = len(selectors.invitations_sent_since(user_id=creator.pk, since=timezone.now() - timedelta(days=1)))
    if inviting and sent + inviting > limit:
        raise game_errors.TooManyInvitations(
            ngettext(
                "You can invite at most %(limit)s player a day and have invited %(sent)s in the last 24 hours.",
                "You can invite at most %(limit)s players a day and have invited %(sent)s in the last 24 hours.",
                limit,
            )
            % {"limit": limit, "sent": sent}
        )


def game_create_inviting(*, creator: User, setup: GameSetup) -> Game:
    """Create the game (games.services.game_create) with a reserved seat for each
    username and each address that has an active account, and mail the other
    addresses (not opted out) a link to sign up, once the game is committed.
    Raises the game's domain errors; UnknownUsername for a username nobody has."""
    usernames = [name.strip() for name in setup.usernames if name.strip()]
    addresses = [address.strip().lower() for address in setup.addresses if address.strip()]
    inviting = len(usernames) + len(addresses)
    if inviting > setup.seats - 1:
        raise InvitationRefused(
            ngettext(
                "You invited %(n)s player but a %(seats)s-seat game has %(free)s besides yours.",
                "You invited %(n)s players but a %(seats)s-seat game has %(free)s besides yours.",
                inviting,
            )
            % {"n": inviting, "seats": setup.seats, "free": setup.seats - 1}
        )
    twice = sorted({entry for entry in [*usernames, *addresses] if [*usernames, *addresses].count(entry) > 1})
    if twice:
        raise InvitationRefused(
            gettext("You invited %(names)s more than once; invite each player once.") % {"names": listed(twice)}
        )
    own = (creator.email or "").lower()
    if creator.get_username() in usernames or (own and own in addresses):
        raise InvitationRefused(gettext("You take a seat in the games you create; do not invite yourself."))
    users = get_user_model().objects
    named = {user.get_username(): user for user in users.filter(username__in=usernames, is_active=True)}
    unknown = [name for name in usernames if name not in named]
    if unknown:
        raise UnknownUsername(
            ngettext(
                "There is no player with the username %(names)s.",
                "There are no players with the usernames %(names)s.",
                len(unknown),
            )
            % {"names": listed(unknown)}
        )
    opted_out = set(
        InvitationOptOut.objects.filter(address_digest__in=[address_digest(a) for a in addresses]).values_list(
            "address_digest", flat=True
        )
    )
    # However the account spells its address: Bob@Example.com is bob@example.com here.
    any_address = Q(pk__in=[])
    for address in addresses:
        any_address |= Q(email__iexact=address)
    by_address = {
        user.email.lower(): user
        for user in users.filter(any_address, is_active=True).exclude(pk=creator.pk)
        if user.email
    }
    # An address of someone also invited by name is invited once, without a word.
    invited = list(named.values())
    invited += [user for user in by_address.values() if user.pk not in {u.pk for u in invited}]
    strangers = [a for a in addresses if a not in by_address and address_digest(a) not in opted_out]
    with transaction.atomic():
        _limit_check(creator=creator, inviting=len(usernames) + len(addresses))
        game = game_create(
            creator=creator,
            variant=setup.variant,
            seats=setup.seats,
            invited=invited,
            move_timeout_hours=setup.move_timeout_hours,
            bank_seconds=setup.bank_hours * 3600,
            public=setup.public,
            rated=setup.rated,
        )
        game_id = game.pk

        def send() -> None:
            for address in strangers:
                signup_invitation_send(address=address, game_id=game_id, inviter=creator)

        transaction.on_commit(send)
    return game
