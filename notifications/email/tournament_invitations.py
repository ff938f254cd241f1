"""The email of an invitation to a tournament, told by tournaments' signal
``entry_invited`` after the invitation commits (tournaments never imports
notifications). One per invitation (``tournament:<entry id>:tournament_invitation:<user id>``),
about no game: its headline is its subject. An address that opted out of
invitations gets none, as for a game's invitation.

The renderer reads the tournament through ``tournaments.selectors`` (read-only):
its name, its organiser and its page; never the seed of its draws.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.dispatch import receiver
from django.urls import reverse

from notifications.email.links import opt_out_url
from notifications.email.render import KindContext, display_name, renderer, site_url
from notifications.email.services import notify
from notifications.models import Notification
from notifications.addresses import address_digest
from tournaments.selectors import invitation_news
from tournaments.signals import entry_invited

TOURNAMENT_INVITATION = "tournament_invitation"


def invitation_key(*, entry_id: int, user_id: int) -> str:
    return f"tournament:{entry_id}:{TOURNAMENT_INVITATION}:{user_id}"


@receiver(entry_invited, dispatch_uid="notifications.tournament_invitation")
def tell_an_invited_player(sender: Any, entry_id: int, user_id: int, tournament_id: int, **kwargs: Any) -> None:
    with transaction.atomic():
        notify(key=invitation_key(entry_id=entry_id, user_id=user_id), kind=TOURNAMENT_INVITATION, user_id=user_id)


@renderer(TOURNAMENT_INVITATION)
def render_tournament_invitation(notification: Notification) -> KindContext:
    """Who invited the recipient to which tournament, and its page (where they accept or decline)."""
    parts = notification.key.split(":")
    news = invitation_news(entry_id=int(parts[1])) if len(parts) > 1 and parts[1].isdigit() else None
    if news is None or news.user_id != notification.user_id:
        raise ValueError(f"notification {notification.pk}: its invitation is gone")
    email = notification.user.email or ""
    return KindContext(
        {
            "tournament": " ".join(news.tournament_name.split()),
            "inviter": display_name(news.organiser),
            "knockout": news.knockout,
            "tournament_url": site_url() + reverse("tournament-page", args=[news.tournament_id]),
            "opt_out_url": opt_out_url(address_digest=address_digest(email)),
        }
    )
