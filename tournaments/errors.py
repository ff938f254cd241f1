"""What the tournaments services refuse, as domain errors (no HTTP: see api.problems).
Refusals that follow from a rule carry its id (``rule``, docs/tournaments.md)."""

from __future__ import annotations

from django.utils.translation import gettext_noop

from core.errors import DomainError, ErrorKind


class TournamentNotFound(DomainError):
    kind = ErrorKind.NOT_FOUND
    code = "tournament_not_found"
    title = gettext_noop("Tournament not found")


class InvalidTournament(DomainError):
    """Fields: ``field`` (the setting at fault) and ``rule`` (its rule id)."""

    kind = ErrorKind.INVALID
    code = "invalid_tournament"
    title = gettext_noop("The tournament's settings do not fit together")


class NotAnOrganiser(DomainError):
    kind = ErrorKind.FORBIDDEN
    code = "not_an_organiser"
    title = gettext_noop("Only the tournament's organisers may do this")


class TournamentClosed(DomainError):
    """Fields: ``status`` (the tournament's)."""

    kind = ErrorKind.CONFLICT
    code = "tournament_closed"
    title = gettext_noop("The tournament is not open for this")


class TournamentFull(DomainError):
    """Fields: ``max_players``."""

    kind = ErrorKind.CONFLICT
    code = "tournament_full"
    title = gettext_noop("The tournament has all the players it takes")


class AlreadyEntered(DomainError):
    kind = ErrorKind.CONFLICT
    code = "already_entered"
    title = gettext_noop("You are already in this tournament")


class NotEntered(DomainError):
    kind = ErrorKind.CONFLICT
    code = "not_entered"
    title = gettext_noop("You are not in this tournament")


class InvitationOnly(DomainError):
    kind = ErrorKind.FORBIDDEN
    code = "tournament_invitation_only"
    title = gettext_noop("This tournament is by invitation")


class TooFewPlayers(DomainError):
    """Fields: ``players`` (entered), ``needed``."""

    kind = ErrorKind.CONFLICT
    code = "tournament_too_few_players"
    title = gettext_noop("Too few players to start the tournament")


class NotBetweenRounds(DomainError):
    kind = ErrorKind.CONFLICT
    code = "tournament_round_running"
    title = gettext_noop("This can be done only between rounds")
