"""Push writes: subscriptions, deciding pushes, and sending them.

``push_notify`` is called by the email channel's ``notify`` (in its transaction)
for every notification it records, whatever becomes of the email: push hears of
the same news as email, to the same people, and once per notification
(``PushMessage`` is unique per notification and subscription). It records a
message per subscription of a player whose preferences want that kind, and
queues each sending on commit.

``push_message_send`` claims a due message with a conditional UPDATE (leased for
WEBHOOK_CLAIM_LEASE_SECONDS, so two workers never send one message at once),
writes the payload in the reader's words (notifications.push.payloads), encrypts
it for the subscription's keys and sends it with a VAPID JWT (pywebpush). A 404
or 410 from the push service deletes the subscription; other failures are tried
again after WEBHOOKS_RETRY_DELAYS_SECONDS, then given up and logged. Connections
go only to checked public addresses (webhooks.url_safety), never follow a
redirect, and are cut at WEBHOOKS_ATTEMPT_SECONDS.

Logs name messages and subscriptions by id and endpoints by host only: the rest
of an endpoint's URL is the browser's address at its push service.
"""

from __future__ import annotations

import json
import logging
from datetime import timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import requests
import urllib3.exceptions
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext
from pywebpush import WebPushException, webpush

from core import metrics
from core.errors import InvalidInput
from core.queue import task_send
from notifications.models import GameMute, Notification, Preferences, PushMessage, PushSubscription
from notifications.push.errors import PushSubscriptionNotFound, TooManyPushSubscriptions
from notifications.push.keys import auth_secret_valid, browser_key_valid, push_enabled
from notifications.push.payloads import push_payload
from notifications.push.selectors import endpoint_host, push_messages_due
from webhooks.deadline import AttemptDeadline
from webhooks.errors import UnsafeAddress, WebhookUrlRefused
from webhooks.url_safety import CheckedAdapter, url_check

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

# The kinds of notification that also go by push, each with its preference
# (Preferences.push_<kind>, or the one named here).
PUSH_KINDS = metrics.PUSH_KINDS
# A tournament round's start seats the player in a new game: the switch for
# being asked into a game decides it too (one switch fewer to find).
PUSH_PREFERENCE_OF = {"tournament_round": "push_invitation", "tournament_invitation": "push_invitation"}
SEND_TASK = "notifications.push.tasks.send"
MAX_ENDPOINT_LENGTH = 2000


# --- subscriptions -------------------------------------------------------------------


def _endpoint_check(endpoint: str) -> None:
    def refuse(message: str) -> InvalidInput:
        return InvalidInput({"endpoint": [message]})

    if not isinstance(endpoint, str) or not endpoint or len(endpoint) > MAX_ENDPOINT_LENGTH:
        raise refuse(gettext("Send the subscription's endpoint, a URL of at most 2000 characters."))
    scheme = urlsplit(endpoint).scheme.lower() if "://" in endpoint else ""
    if scheme != "https" and not (scheme == "http" and settings.WEBHOOKS_ALLOW_LOOPBACK):
        raise refuse(gettext("A push endpoint is an https:// URL, as browsers give them."))
    try:
        url_check(endpoint)
    except WebhookUrlRefused as refused:
        raise refuse(" ".join(refused.errors.get("url", []))) from None


def push_subscription_save(*, user: User, endpoint: str, p256dh: str, auth: str) -> tuple[PushSubscription, bool]:
    """Record a browser's subscription for ``user``; the same endpoint posted again
    (new keys, or another account signed in on that browser now) updates its row.
    Returns the row and whether it is new."""
    errors: dict[str, list[str]] = {}
    if not browser_key_valid(p256dh):
        errors["keys.p256dh"] = [gettext("p256dh is the urlsafe base64 of the browser's P-256 public key (65 bytes).")]
    if not auth_secret_valid(auth):
        errors["keys.auth"] = [gettext("auth is the urlsafe base64 of the browser's 16-byte auth secret.")]
    if errors:
        raise InvalidInput(errors)
    _endpoint_check(endpoint)
    with transaction.atomic():
        # Locks the owner's row, so two requests at once cannot both take the last place.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        found = PushSubscription.objects.select_for_update().filter(endpoint=endpoint).first()
        if found is not None:
            if found.user_id != user.pk:
                _limit_check(user)
            found.user = user
            found.p256dh, found.auth = p256dh, auth
            found.save()
            return found, False
        _limit_check(user)
        try:
            with transaction.atomic():
                return PushSubscription.objects.create(user=user, endpoint=endpoint, p256dh=p256dh, auth=auth), True
        except IntegrityError:  # posted at the same moment by another request
            found = PushSubscription.objects.get(endpoint=endpoint)
            return found, False


def _limit_check(user: User) -> None:
    limit: int = settings.PUSH_SUBSCRIPTIONS_PER_ACCOUNT
    if PushSubscription.objects.filter(user=user).count() >= limit:
        raise TooManyPushSubscriptions(
            gettext(
                "You have %(limit)d push subscriptions, the most one account may have. "
                "Delete one of a browser you no longer use first."
            )
            % {"limit": limit},
            max_push_subscriptions=limit,
        )


def push_subscription_delete(*, user: User, subscription_id: object) -> None:
    deleted, _ = PushSubscription.objects.filter(user=user, pk=_id(subscription_id)).delete()
    if not deleted:
        raise PushSubscriptionNotFound(
            gettext("You have no push subscription with id %(id)s. GET /api/v1/me/push-subscriptions/ lists yours.")
            % {"id": repr(subscription_id)}
        )


def _id(value: object) -> int:
    try:
        return int(str(value))
    except ValueError:
        return 0


def push_subscriptions_delete_for_account(*, user_id: int) -> int:
    """An account that can no longer play, or is erased, keeps no subscriptions."""
    deleted, _ = PushSubscription.objects.filter(user_id=user_id).delete()
    return deleted


# --- deciding ----------------------------------------------------------------------------


def _wanted(notification: Notification) -> bool:
    user = notification.user
    player = getattr(user, "player", None)
    if not user.is_active or player is None or player.erased_at is not None or player.is_suspended:
        return False
    preferences = Preferences.objects.filter(user_id=user.pk).first() or Preferences(user=user)
    if not getattr(preferences, PUSH_PREFERENCE_OF.get(notification.kind, f"push_{notification.kind}")):
        return False
    if notification.game_id is not None:
        return not GameMute.objects.filter(user_id=user.pk, game_id=notification.game_id).exists()
    return True


def push_notify(*, notification: Notification) -> list[int]:
    """A push of ``notification`` to each of its recipient's browsers, if push is on,
    the kind goes by push and the recipient wants it. Returns the new messages' ids,
    whose sending is queued on commit."""
    if notification.kind not in PUSH_KINDS or not push_enabled():
        return []
    subscriptions = list(PushSubscription.objects.filter(user_id=notification.user_id).values_list("pk", flat=True))
    if not subscriptions:
        return []
    if not _wanted(notification):
        metrics.PUSH.labels(notification.kind, "suppressed").inc()
        return []
    now = timezone.now()
    created: list[int] = []
    for subscription_id in subscriptions:
        message, is_new = PushMessage.objects.get_or_create(
            notification=notification, subscription_id=subscription_id, defaults={"next_attempt_at": now}
        )
        if is_new:
            created.append(message.pk)
    if created:
        transaction.on_commit(lambda: _queue(created))
    return created


def _queue(message_ids: list[int]) -> None:
    for message_id in message_ids:
        try:
            task_send(SEND_TASK, message_id)
        except Exception:
            # The sweep (push_messages_send_due) sends what could not be queued.
            logger.warning("could not queue push message %s", message_id, exc_info=True)


# --- sending -----------------------------------------------------------------------------


class _NoRedirects(requests.Session):
    """pywebpush posts through this session: to checked addresses only, with no
    proxy from the environment and no redirect followed."""

    def __init__(self) -> None:
        super().__init__()
        self.trust_env = False
        adapter = CheckedAdapter(max_retries=0)
        self.mount("http://", adapter)
        self.mount("https://", adapter)

    def post(self, url: Any, data: Any = None, json: Any = None, **kwargs: Any) -> requests.Response:
        kwargs["allow_redirects"] = False
        return super().post(url, data=data, json=json, **kwargs)


def _claim(*, message_id: int) -> bool:
    now = timezone.now()
    lease = now + timedelta(seconds=settings.WEBHOOK_CLAIM_LEASE_SECONDS)
    return (
        PushMessage.objects.filter(
            pk=message_id, status=PushMessage.Status.QUEUED, next_attempt_at__lte=now
        ).update(next_attempt_at=lease)
        == 1
    )


def _post(subscription: PushSubscription, body: bytes) -> tuple[int | None, str]:
    """Send once; (the push service's status, or None, and what went wrong)."""
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(subscription.endpoint))
    limit: float = settings.WEBHOOKS_ATTEMPT_SECONDS
    wait = min(float(settings.WEBHOOKS_TIMEOUT_SECONDS), limit)
    session = _NoRedirects()
    try:
        with AttemptDeadline(limit) as deadline:
            response = webpush(
                subscription_info={
                    "endpoint": subscription.endpoint,
                    "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
                },
                data=body.decode("utf-8"),
                vapid_private_key=settings.VAPID_PRIVATE_KEY,
                vapid_claims={"sub": settings.VAPID_SUBJECT, "aud": origin},
                content_encoding="aes128gcm",
                ttl=settings.PUSH_TTL_SECONDS,
                timeout=wait,
                requests_session=session,
            )
        if deadline.expired:
            return None, f"No complete answer within {limit:g} seconds."
        assert not isinstance(response, str)
        return response.status_code, ""
    except WebPushException as exc:
        status = exc.response.status_code if exc.response is not None else None
        return status, f"HTTP {status}" if status is not None else "The push could not be prepared."
    except UnsafeAddress as exc:
        return None, f"Refused: {exc}."
    except (requests.RequestException, urllib3.exceptions.HTTPError, OSError) as exc:
        if isinstance(exc, requests.Timeout | urllib3.exceptions.TimeoutError | TimeoutError):
            return None, f"No answer within {wait:g} seconds."
        return None, f"The request failed ({type(exc).__name__})."
    finally:
        session.close()


def push_message_send(*, message_id: int) -> str:
    """Send one due message and record how it went: sent, retry, failed, gone; or
    "" when there was nothing to send (done, not due, or another worker has it)."""
    if not _claim(message_id=message_id):
        return ""
    message = (
        PushMessage.objects.select_related("subscription", "notification", "notification__user__player")
        .filter(pk=message_id)
        .first()
    )
    if message is None:
        return ""  # its subscription was deleted meanwhile
    notification, subscription = message.notification, message.subscription
    kind = notification.kind
    body = json.dumps(push_payload(notification), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    status, error = _post(subscription, body)
    now = timezone.now()
    host = endpoint_host(subscription.endpoint)
    if status is not None and 200 <= status < 300:
        PushMessage.objects.filter(pk=message_id).update(
            status=PushMessage.Status.SENT, sent_at=now, next_attempt_at=None, attempts=message.attempts + 1,
            last_error="",
        )
        outcome = "sent"
    elif status in (404, 410):
        # The browser unsubscribed, or the push service forgot it: it will never take another.
        PushMessage.objects.filter(pk=message_id).update(
            status=PushMessage.Status.GONE, next_attempt_at=None, attempts=message.attempts + 1, last_error=error
        )
        PushSubscription.objects.filter(pk=subscription.pk).delete()
        logger.info("push subscription %s (%s) is gone (HTTP %s): deleted", subscription.pk, host, status)
        outcome = "gone"
    else:
        delays: list[int] = settings.WEBHOOKS_RETRY_DELAYS_SECONDS
        attempts = message.attempts + 1
        if attempts > len(delays):
            PushMessage.objects.filter(pk=message_id).update(
                status=PushMessage.Status.FAILED, next_attempt_at=None, attempts=attempts, last_error=error[:300]
            )
            logger.warning(
                "push message %s to subscription %s (%s) given up after %s attempts: %s",
                message_id, subscription.pk, host, attempts, error,
            )
            outcome = "failed"
        else:
            PushMessage.objects.filter(pk=message_id).update(
                next_attempt_at=now + timedelta(seconds=delays[attempts - 1]), attempts=attempts,
                last_error=error[:300],
            )
            logger.info("push message %s to %s failed (%s); retrying", message_id, host, error)
            outcome = "retry"
    metrics.PUSH.labels(kind, outcome).inc()
    return outcome


def push_messages_send_due(*, limit: int | None = None) -> int:
    """Send the messages whose retry is due (and any whose task never ran), at most
    ``limit`` (WEBHOOKS_SWEEP_BATCH). Returns how many were attempted."""
    sent = 0
    for message_id in push_messages_due(now=timezone.now(), limit=limit or settings.WEBHOOKS_SWEEP_BATCH):
        try:
            sent += bool(push_message_send(message_id=message_id))
        except Exception:
            logger.exception("push message %s could not be sent", message_id)
    return sent
