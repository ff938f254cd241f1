"""What the push services refuse, as domain errors (the API maps each ``kind``
to a status in ``api.problems``)."""

from __future__ import annotations

from django.utils.translation import gettext_noop

from core.errors import DomainError, ErrorKind


class PushNotConfigured(DomainError):
    """The server has no VAPID keys: push is off."""

    kind = ErrorKind.NOT_FOUND
    code = "push_not_configured"
    title = gettext_noop("Push notifications are off")


class PushSubscriptionNotFound(DomainError):
    kind = ErrorKind.NOT_FOUND
    code = "push_subscription_not_found"
    title = gettext_noop("Push subscription not found")


class TooManyPushSubscriptions(DomainError):
    """Fields: ``max_push_subscriptions``."""

    kind = ErrorKind.CONFLICT
    code = "too_many_push_subscriptions"
    title = gettext_noop("Too many push subscriptions")
