"""An invitation to a tournament is emailed to the invitee (T-ENTRY-INVITE): who
invites them to which tournament, and its page, where they accept or decline;
once per invitation, never to an address that opted out of invitations, in the
invitee's language, and never with the seed of the tournament's draws."""

from __future__ import annotations

from typing import Any

from django.core import mail

from notifications.addresses import address_digest
from notifications.models import InvitationOptOut, Notification
from tests.games.game_helpers import make_player
from tournaments import services
from tournaments.models import Tournament

KIND = "tournament_invitation"


def _invited(organiser: Any, usernames: list[str], **fields: Any) -> Tournament:
    tournament = services.tournament_create(
        creator=organiser, name="Autumn Cup", format="knockout", seats=2, public=False, **fields
    )
    services.tournament_invite(tournament_id=tournament.pk, by=organiser, usernames=usernames)
    return tournament


def test_the_invitee_gets_one_email_with_the_tournament_page(db: None, commit: Any) -> None:
    organiser, ann = make_player("olga"), make_player("ann")
    with commit():
        tournament = _invited(organiser, ["ann"])
    (message,) = [m for m in mail.outbox if ann.email in m.to]
    assert message.subject.endswith("invites you to the tournament Autumn Cup")
    assert "a knockout tournament" in message.body
    assert f"/tournaments/{tournament.pk}/" in message.body
    assert tournament.seed not in message.body and tournament.seed not in str(message.alternatives)
    # Asked again while the invitation stands: nothing more.
    with commit():
        services.tournament_invite(tournament_id=tournament.pk, by=organiser, usernames=["ann"])
    assert Notification.objects.filter(kind=KIND, user=ann).count() == 1


def test_an_address_that_opted_out_of_invitations_gets_none(db: None, commit: Any) -> None:
    organiser, ann = make_player("olga"), make_player("ann")
    InvitationOptOut.objects.create(address_digest=address_digest(ann.email))
    with commit():
        _invited(organiser, ["ann"])
    assert not [m for m in mail.outbox if ann.email in m.to]
    assert Notification.objects.get(kind=KIND, user=ann).status == Notification.Status.SUPPRESSED


def test_the_email_is_in_the_invitees_language(db: None, commit: Any) -> None:
    organiser, ann = make_player("olga"), make_player("ann")
    ann.player.language = "it"
    ann.player.save()
    with commit():
        _invited(organiser, ["ann"], rounds=None)
    (message,) = [m for m in mail.outbox if ann.email in m.to]
    assert "ti invita al torneo Autumn Cup" in message.subject
    assert "eliminazione diretta" in message.body
