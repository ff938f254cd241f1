"""What the webhooks services refuse, as domain errors (no HTTP here; the API
maps each ``kind`` to a status in ``api.problems``)."""

from __future__ import annotations

from django.utils.translation import gettext, gettext_noop

from core.errors import DomainError, ErrorKind, InvalidInput


class WebhookNotFound(DomainError):
    kind = ErrorKind.NOT_FOUND
    code = "webhook_not_found"
    title = gettext_noop("Webhook not found")

    @classmethod
    def for_id(cls, endpoint_id: object) -> WebhookNotFound:
        return cls(
            gettext("You have no webhook with id %(id)s. GET /api/v1/webhooks/ lists yours.") % {"id": repr(endpoint_id)}
        )


class TooManyWebhooks(DomainError):
    """Fields: ``max_webhooks``."""

    kind = ErrorKind.CONFLICT
    code = "too_many_webhooks"
    title = gettext_noop("Too many webhooks")


class NotALeagueAdmin(DomainError):
    """A webhook for a league is set by one of the league's admins only."""

    kind = ErrorKind.FORBIDDEN
    code = "permission_denied"
    title = gettext_noop("Not an admin of this league")


class WebhookUrlRefused(InvalidInput):
    """The URL cannot be read, is not http(s), or its host is not a public address.

    Raised with ``errors={"url": [...]}`` like any invalid field, under a code
    of its own so that a client can tell it from other invalid input."""

    code = "webhook_url_refused"
    title = gettext_noop("This webhook URL is not allowed")


class UnsafeAddress(Exception):
    """At delivery time: the host no longer resolves to a public address. Not a
    DomainError: no caller sees it but the delivery, which records it."""


class UnsafePort(UnsafeAddress):
    """The URL's port is not among WEBHOOKS_ALLOWED_PORTS: a refusal that no later
    attempt can change, unlike an address the host may move away from."""
