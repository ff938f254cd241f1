"""What the leagues services refuse, as domain errors (no HTTP: see api.problems)."""

from __future__ import annotations

from django.utils.translation import gettext_noop

from core.errors import DomainError, ErrorKind


class LeagueNotFound(DomainError):
    kind = ErrorKind.NOT_FOUND
    code = "league_not_found"
    title = gettext_noop("League not found")


class SeasonNotFound(DomainError):
    kind = ErrorKind.NOT_FOUND
    code = "season_not_found"
    title = gettext_noop("Season not found")


class AlreadyAMember(DomainError):
    """Fields: ``membership_status`` (pending, active or leaving)."""

    kind = ErrorKind.CONFLICT
    code = "already_a_member"
    title = gettext_noop("You are already a member of this league, or have asked to be")


class SuspendedFromLeague(DomainError):
    kind = ErrorKind.FORBIDDEN
    code = "league_suspended"
    title = gettext_noop("A league admin suspended you from this league")


class NotALeagueMember(DomainError):
    kind = ErrorKind.CONFLICT
    code = "not_a_league_member"
    title = gettext_noop("You are not a member of this league")


class ReliabilityTooLow(DomainError):
    """Fields: ``reliability`` (yours, percent), ``min_reliability`` (the league's)."""

    kind = ErrorKind.NOT_ALLOWED
    code = "reliability_too_low"
    title = gettext_noop("Too many of your turns ran out of time for this league")


class NoRequestToDecide(DomainError):
    """Raised to league admins (admin actions), never by the API."""

    kind = ErrorKind.CONFLICT
    code = "no_request_to_decide"
    title = gettext_noop("This membership has no request waiting for a decision")


class SeasonNotStartable(DomainError):
    """Raised to league admins (admin actions), never by the API."""

    kind = ErrorKind.CONFLICT
    code = "season_not_startable"
    title = gettext_noop("This season cannot be started")


class PairingNotFound(DomainError):
    """Raised to league admins (admin actions), never by the API."""

    kind = ErrorKind.NOT_FOUND
    code = "pairing_not_found"
    title = gettext_noop("No such pairing")


class PairingNotEditable(DomainError):
    """Fields: ``game_status``. Raised to league admins (admin actions), never by the API."""

    kind = ErrorKind.CONFLICT
    code = "pairing_not_editable"
    title = gettext_noop("This pairing's game is over, so its pairing can no longer be changed")


class NotASeasonPlayer(DomainError):
    """Raised to league admins (admin actions), never by the API."""

    kind = ErrorKind.CONFLICT
    code = "not_a_season_player"
    title = gettext_noop("This player does not play in this season")
