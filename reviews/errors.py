"""What the review services refuse, as domain errors (codes are a contract with
clients: docs/review.md, "Errors")."""

from __future__ import annotations

from django.utils.translation import gettext_noop

from core.errors import DomainError, ErrorKind


class ReviewNotFound(DomainError):
    """Nobody has asked for this game's review yet: POST starts it."""

    kind = ErrorKind.NOT_FOUND
    code = "review_not_found"
    title = gettext_noop("This game has no review yet")
    default_message = gettext_noop("Nobody has asked for this game's review yet: POST to this address to start it.")


class GameNotOver(DomainError):
    """A game is reviewed once it is over: its moves are nobody's to judge while it is played."""

    kind = ErrorKind.CONFLICT
    code = "game_not_over"
    title = gettext_noop("The game is not over")
    default_message = gettext_noop("A game is reviewed once it is over.")


class TooManyReviews(DomainError):
    """REVIEWS_PER_DAY reviews started by this account in 24 hours. Fields:
    ``next_review_at`` (ISO 8601); with Retry-After."""

    kind = ErrorKind.TOO_MANY
    code = "too_many_reviews"
    title = gettext_noop("You have started as many reviews as you may in a day")
