"""Writes for the webhooks app: registering endpoints, fanning events out into
deliveries, and sending them.

A delivery is sent at most once at a time, however many workers try, and an
endpoint gets one attempt at a time: each attempt first claims its endpoint
(``Endpoint.attempt_until``, free or expired) and its delivery (pending, due)
with conditional UPDATEs in one transaction, both leased for
WEBHOOK_CLAIM_LEASE_SECONDS. An attempt never outlives the lease: it is cut at
WEBHOOKS_ATTEMPT_SECONDS, connection, headers and body together
(webhooks.deadline), and the settings refuse a lease that is not longer. A worker
that dies mid-attempt leaves both to be claimed again when the lease runs out,
so receivers may see a message twice (they drop repeats by its ``webhook-id``).

The attempts run on a Celery queue of their own, ``webhooks`` (settings.CELERY_TASK_ROUTES),
so that slow receivers hold only the workers that consume it, never the ones
that send game email and sweep deadlines.
"""

from __future__ import annotations

import http.client
import logging
import math
import time
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import requests
import urllib3.exceptions
from celery import current_app
from django.conf import settings
from django.core.mail import EmailMessage
from django.db import transaction
from django.db.models import Q
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.translation import gettext
from standardwebhooks import Webhook

from accounts.speaking import in_language_of
from core import metrics
from core.errors import InvalidInput
from core.text import listed
from games.models import GameEvent
from webhooks import chat_platforms, selectors
from webhooks.deadline import AttemptDeadline
from webhooks.errors import NotALeagueAdmin, TooManyWebhooks, UnsafeAddress, UnsafePort
from webhooks.models import (
    CHAT_EVENT_KINDS,
    MAX_ERROR_LENGTH,
    Delivery,
    DeliveryAttempt,
    Endpoint,
    new_endpoint_secret,
)
from webhooks.url_safety import CheckedAdapter, url_check, url_parse, url_port_refusal

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

# Longer than any one attempt can take: settings refuse a WEBHOOK_CLAIM_LEASE_SECONDS
# that is not longer than WEBHOOKS_ATTEMPT_SECONDS.
def _claim_lease() -> timedelta:
    return timedelta(seconds=settings.WEBHOOK_CLAIM_LEASE_SECONDS)

MAX_EVENTS_PER_ENDPOINT = 50
# The longest Retry-After a chat platform's 429 is waited for; longer is waited this long.
MAX_RETRY_AFTER_SECONDS = 3600
DELIVER_TASK = "webhooks.tasks.deliver"
NOTICE_TASK = "webhooks.tasks.send_disabled_notice"


# --- endpoints -----------------------------------------------------------------------


def _events_check(events: Collection[str]) -> list[str]:
    known = selectors.event_kinds()
    unknown = sorted({str(name) for name in events if name not in known})
    if unknown:
        raise InvalidInput(
            {
                "events": [
                    gettext("No such event: %(unknown)s. The events are %(known)s; an empty list means all of them.")
                    % {
                        "unknown": listed([f"`{name}`" for name in unknown]),
                        "known": listed([f"`{name}`" for name in known]),
                    }
                ]
            }
        )
    if len(events) > MAX_EVENTS_PER_ENDPOINT:
        raise InvalidInput(
            {"events": [gettext("List at most %(most)d events.") % {"most": MAX_EVENTS_PER_ENDPOINT}]}
        )
    return sorted(set(events))


def _format_check(format: str, events: Collection[str]) -> str:
    if format not in Endpoint.Format.values:
        raise InvalidInput(
            {
                "format": [
                    gettext("No such format: %(format)s. The formats are %(known)s.")
                    % {"format": f"`{format}`", "known": listed([f"`{name}`" for name in Endpoint.Format.values])}
                ]
            }
        )
    if format != Endpoint.Format.STANDARD:
        others = sorted(set(events) - set(CHAT_EVENT_KINDS))
        if others:
            raise InvalidInput(
                {
                    "events": [
                        gettext("A Discord or Slack webhook is told only of %(kinds)s, not of %(others)s.")
                        % {
                            "kinds": listed([f"`{kind}`" for kind in CHAT_EVENT_KINDS]),
                            "others": listed([f"`{kind}`" for kind in others]),
                        }
                    ]
                }
            )
    return format


def _league_check(*, owner: User, league_id: int, format: str) -> int:
    """A league's endpoint posts to a channel, and only its admins may set one."""
    if format == Endpoint.Format.STANDARD:
        raise InvalidInput(
            {"league": [gettext("A league's webhook posts to Discord or Slack: set `format` to discord or slack.")]}
        )
    if not selectors.league_exists(league_id=league_id):
        raise InvalidInput({"league": [gettext("There is no league with id %(id)s.") % {"id": league_id}]})
    if not selectors.league_administered_by(league_id=league_id, user=owner):
        raise NotALeagueAdmin(
            gettext("Only the admins of a league may set a webhook for it, and you are not one of league %(id)s's.")
            % {"id": league_id}
        )
    return league_id


@transaction.atomic
def endpoint_create(
    *,
    owner: User,
    url: str,
    events: Collection[str] = (),
    format: str = Endpoint.Format.STANDARD,
    league_id: int | None = None,
) -> Endpoint:
    """Register a webhook for ``owner``'s games, or (``league_id``, one of whose
    admins ``owner`` is) for the public games of a league. Its secret is on the
    returned row: show it to the owner now, it is not shown again."""
    chosen = _events_check(events)
    format = _format_check(format, chosen)
    if league_id is not None:
        _league_check(owner=owner, league_id=league_id, format=format)
    # Locks the owner's row, so two requests at once cannot both take the last place.
    type(owner).objects.select_for_update().filter(pk=owner.pk).first()
    limit: int = settings.WEBHOOKS_MAX_PER_USER
    if Endpoint.objects.filter(owner=owner).count() >= limit:
        raise TooManyWebhooks(
            gettext("You have %(limit)d webhooks, the most one player may have. Delete one you no longer use first.")
            % {"limit": limit},
            max_webhooks=limit,
        )
    url_check(url)
    return Endpoint.objects.create(owner=owner, url=url, events=chosen, format=format, league_id=league_id)


@transaction.atomic
def endpoint_update(
    *,
    endpoint: Endpoint,
    url: str | None = None,
    events: Collection[str] | None = None,
    is_active: bool | None = None,
    format: str | None = None,
) -> Endpoint:
    """Change the URL, the events or the format; ``is_active=True`` re-enables a
    disabled endpoint (its failure count starts again), ``False`` pauses it. A
    league's endpoint stays the league's, and in a chat format."""
    endpoint = Endpoint.objects.select_for_update().get(pk=endpoint.pk)
    fields: list[str] = []
    if events is not None:
        endpoint.events = _events_check(events)
        fields.append("events")
    if format is not None or events is not None:
        endpoint.format = _format_check(format if format is not None else endpoint.format, endpoint.events)
        if endpoint.league_id is not None and not endpoint.is_chat:
            raise InvalidInput(
                {"format": [gettext("A league's webhook posts to Discord or Slack: its format is discord or slack.")]}
            )
        fields.append("format")
    if url is not None and url != endpoint.url:
        endpoint.url = url_check(url)
        fields.append("url")
    if is_active is True and not endpoint.is_active:
        if "url" not in fields:
            url_check(endpoint.url)  # the host may have moved since it was registered
        endpoint.is_active = True
        endpoint.disabled_at = None
        endpoint.disabled_reason = ""
        endpoint.consecutive_failures = 0
        endpoint.failing_since = None
        fields += ["is_active", "disabled_at", "disabled_reason", "consecutive_failures", "failing_since"]
    elif is_active is False and endpoint.is_active:
        _endpoint_disable(endpoint, reason="Paused by its owner.", now=timezone.now())
        fields += ["is_active", "disabled_at", "disabled_reason"]
    if fields:
        endpoint.save(update_fields=sorted(set(fields)))
    return endpoint


def endpoint_delete(*, endpoint: Endpoint) -> None:
    """Forget the endpoint and its deliveries; nothing more is sent to it."""
    Endpoint.objects.filter(pk=endpoint.pk).delete()


@transaction.atomic
def endpoint_rotate_secret(*, endpoint: Endpoint) -> Endpoint:
    """A new secret, used from the next attempt on; the old one stops at once."""
    endpoint = Endpoint.objects.select_for_update().get(pk=endpoint.pk)
    endpoint.secret = new_endpoint_secret()
    endpoint.save(update_fields=["secret"])
    return endpoint


# --- events into deliveries ---------------------------------------------------------------


def _queue(task_name: str, object_id: int) -> None:
    # A task registered in this process honours CELERY_TASK_ALWAYS_EAGER; else by name.
    task = current_app.tasks.get(task_name)
    if task is not None:
        task.apply_async(args=(object_id,), retry=False)
    else:
        current_app.send_task(task_name, args=(object_id,), retry=False)


def _queue_on_commit(task_name: str, object_ids: list[int]) -> None:
    def queue() -> None:
        for object_id in object_ids:
            try:
                _queue(task_name, object_id)
            except Exception:
                # The beat's sweep (deliver_due) sends what could not be queued.
                logger.warning("could not queue %s(%s)", task_name, object_id, exc_info=True)

    transaction.on_commit(queue)


@transaction.atomic
def event_fan_out(*, event: GameEvent) -> list[int]:
    """One delivery per active endpoint of the event's players that wants its
    kind; a delivery that exists already is left alone. Returns the new ids,
    whose first attempt is queued on commit."""
    now = timezone.now()
    created: list[int] = []
    for endpoint in selectors.endpoints_for_event(event=event):
        delivery, is_new = Delivery.objects.get_or_create(
            endpoint=endpoint, event=event, defaults={"next_attempt_at": now}
        )
        if is_new:
            created.append(delivery.pk)
    if created:
        _queue_on_commit(DELIVER_TASK, created)
    return created


# --- sending --------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What one HTTP attempt came to."""

    status_code: int | None
    error: str
    duration_ms: int
    # No later attempt can succeed (the URL's port is not allowed): the endpoint
    # is disabled at once rather than after its retries.
    refused_for_good: bool = False
    # A 429's Retry-After, in seconds, when it gave one.
    retry_after: float | None = None

    @property
    def succeeded(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def _short(text: str) -> str:
    return text if len(text) <= MAX_ERROR_LENGTH else text[: MAX_ERROR_LENGTH - 1] + "…"


def http_post(*, url: str, body: bytes, headers: dict[str, str]) -> Outcome:
    """POST once, to a checked public address, following no redirect, reading at
    most WEBHOOKS_MAX_RESPONSE_BYTES of the answer, all within WEBHOOKS_ATTEMPT_SECONDS."""
    timeout: float = settings.WEBHOOKS_TIMEOUT_SECONDS
    limit: float = settings.WEBHOOKS_ATTEMPT_SECONDS
    started = time.monotonic()

    retry_after: float | None = None

    def outcome(status_code: int | None, error: str = "", *, for_good: bool = False) -> Outcome:
        return Outcome(status_code, _short(error), int((time.monotonic() - started) * 1000), for_good, retry_after)

    session = requests.Session()
    session.trust_env = False  # no proxy from the environment: it would connect where we did not check
    adapter = CheckedAdapter(max_retries=0)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    deadline = AttemptDeadline(limit)
    wait = min(timeout, limit)
    try:
        url_parse(url)
        with deadline:
            with session.post(
                url, data=body, headers=headers, timeout=(wait, wait), allow_redirects=False, stream=True
            ) as response:
                response.raw.read(settings.WEBHOOKS_MAX_RESPONSE_BYTES, decode_content=False)
                status_code = response.status_code
                if status_code == 429:
                    retry_after = retry_after_seconds(response.headers.get("Retry-After"))
            if deadline.expired:  # the body was cut short: the answer did not complete
                return outcome(None, f"No complete answer within {limit:g} seconds.")
    except UnsafePort as exc:
        return outcome(None, f"Refused: {exc}.", for_good=True)
    except UnsafeAddress as exc:
        return outcome(None, f"Refused: {exc}.")
    except InvalidInput as exc:
        return outcome(None, f"Refused: {exc.message}")
    except (requests.RequestException, urllib3.exceptions.HTTPError, http.client.HTTPException, OSError) as exc:
        # Once the deadline has shut the sockets, whatever was waiting on them
        # fails in its own way (a reset, a truncated read): it is the deadline.
        if deadline.expired:
            return outcome(None, f"No complete answer within {limit:g} seconds.")
        if isinstance(exc, requests.Timeout | urllib3.exceptions.TimeoutError | TimeoutError):
            return outcome(None, f"No answer within {wait:g} seconds.")
        if isinstance(exc, requests.exceptions.SSLError):
            return outcome(None, "The TLS handshake failed (is the certificate valid for this host?).")
        if isinstance(exc, requests.ConnectionError):
            return outcome(None, "Could not connect.")
        return outcome(None, f"The request failed ({type(exc).__name__}).")
    finally:
        session.close()
    if 200 <= status_code < 300:
        return outcome(status_code)
    if 300 <= status_code < 400:
        return outcome(status_code, f"HTTP {status_code}: redirects are not followed; register the final URL.")
    return outcome(status_code, f"HTTP {status_code}")


def retry_after_seconds(value: str | None) -> float | None:
    """A Retry-After of seconds (Discord and Slack send seconds, Discord with a
    fraction), at most MAX_RETRY_AFTER_SECONDS; None when absent or unreadable."""
    try:
        seconds = float((value or "").strip())
    except ValueError:
        return None
    if not math.isfinite(seconds) or seconds < 0:
        return None
    return min(seconds, float(MAX_RETRY_AFTER_SECONDS))


def _claim(*, delivery_id: int, now: datetime) -> bool:
    """True for exactly one caller while the lease holds, and only when no other
    attempt to the same endpoint holds one: the delivery and its endpoint are
    claimed together or not at all. A delivery whose endpoint is busy stays due,
    and the sweep (deliver_due) tries it again."""
    due = Delivery.objects.filter(pk=delivery_id, status=Delivery.Status.PENDING, next_attempt_at__lte=now)
    lease_ends = now + _claim_lease()
    with transaction.atomic():
        endpoint_id = due.values_list("endpoint_id", flat=True).first()
        if endpoint_id is None:
            return False
        endpoint_free = Q(attempt_until__isnull=True) | Q(attempt_until__lte=now)
        if Endpoint.objects.filter(endpoint_free, pk=endpoint_id).update(attempt_until=lease_ends) != 1:
            return False
        if due.update(next_attempt_at=lease_ends) != 1:
            transaction.set_rollback(True)  # taken meanwhile: give the endpoint back as it was
            return False
    return True


def _endpoint_release(endpoint_id: int) -> None:
    Endpoint.objects.filter(pk=endpoint_id).update(attempt_until=None)


def delivery_attempt(*, delivery_id: int) -> bool:
    """Send one delivery if it is pending and due, and record how it went.
    Returns False when there was nothing to send (done, not due, or another
    worker has it)."""
    now = timezone.now()
    if not _claim(delivery_id=delivery_id, now=now):
        return False
    delivery = Delivery.objects.select_related("endpoint", "event").filter(pk=delivery_id).first()
    if delivery is None:
        return False  # its endpoint was deleted meanwhile
    endpoint = delivery.endpoint
    if not endpoint.is_active:
        Delivery.objects.filter(pk=delivery_id, status=Delivery.Status.PENDING).update(
            status=Delivery.Status.FAILED, next_attempt_at=None, last_error="The endpoint is disabled."
        )
        _endpoint_release(endpoint.pk)
        return False
    if endpoint.is_chat:
        # Discord and Slack verify no signature: the body is the channel's line.
        body = chat_platforms.chat_body(endpoint=endpoint, event=delivery.event)
        headers = {"Content-Type": "application/json", "User-Agent": "splendor-by-post-webhooks/1"}
    else:
        body = selectors.delivery_body(event=delivery.event)
        signature = Webhook(endpoint.secret).sign(delivery.message_id, now, body)
        headers = {
            "webhook-id": delivery.message_id,
            "webhook-timestamp": str(int(now.timestamp())),
            "webhook-signature": signature,
            "Content-Type": "application/json",
            "User-Agent": "splendor-by-post-webhooks/1",
        }
    result = http_post(url=endpoint.url, body=body.encode("utf-8"), headers=headers)
    outcome = _attempt_record(
        delivery_id=delivery_id, attempted_at=now, result=result, honour_retry_after=endpoint.is_chat
    )
    metrics.WEBHOOK_DELIVERIES.labels(outcome).inc()
    metrics.WEBHOOK_DURATION.labels(outcome).observe(result.duration_ms / 1000)
    if endpoint.is_chat:
        metrics.CHAT_PLATFORM_POSTS.labels(endpoint.format, outcome).inc()
    return True


@transaction.atomic
def _attempt_record(
    *, delivery_id: int, attempted_at: datetime, result: Outcome, honour_retry_after: bool = False
) -> str:
    """Record one attempt; returns delivered, retry or failed (given up). With
    ``honour_retry_after`` (Discord, Slack), a 429 is retried after its Retry-After
    rather than after the next of WEBHOOKS_RETRY_DELAYS_SECONDS."""
    delivery = Delivery.objects.select_for_update().get(pk=delivery_id)
    endpoint = Endpoint.objects.select_for_update().get(pk=delivery.endpoint_id)
    now = timezone.now()
    DeliveryAttempt.objects.create(
        delivery=delivery,
        attempted_at=attempted_at,
        status_code=result.status_code,
        error=result.error,
        duration_ms=result.duration_ms,
    )
    delivery.attempts += 1
    delivery.last_status_code = result.status_code
    delivery.last_error = result.error
    endpoint.attempt_until = None  # the next attempt to this endpoint may start
    if result.succeeded:
        delivery.status = Delivery.Status.SUCCEEDED
        delivery.delivered_at = now
        delivery.next_attempt_at = None
        endpoint.consecutive_failures = 0
        endpoint.failing_since = None
        delivery.save()
        endpoint.save(update_fields=["consecutive_failures", "failing_since", "attempt_until"])
        return "delivered"

    delays: list[int] = settings.WEBHOOKS_RETRY_DELAYS_SECONDS
    exhausted = delivery.attempts > len(delays)
    if exhausted:
        delivery.status = Delivery.Status.FAILED
        delivery.next_attempt_at = None
    elif honour_retry_after and result.status_code == 429 and result.retry_after is not None:
        delivery.next_attempt_at = now + timedelta(seconds=result.retry_after)
    else:
        delivery.next_attempt_at = now + timedelta(seconds=delays[delivery.attempts - 1])
    delivery.save()
    endpoint.consecutive_failures += 1
    endpoint.failing_since = endpoint.failing_since or attempted_at
    endpoint.save(update_fields=["consecutive_failures", "failing_since", "attempt_until"])

    if result.refused_for_good:
        reason: str | None = f"Its URL can no longer be used. {result.error}"
    else:
        reason = _disable_reason(endpoint=endpoint, exhausted=exhausted, attempts=delivery.attempts, now=now)
    if reason is not None and endpoint.is_active:
        _endpoint_disable(endpoint, reason=reason, now=now)
        endpoint.save(update_fields=["is_active", "disabled_at", "disabled_reason"])
        metrics.WEBHOOK_ENDPOINTS_DISABLED.labels("refused_url" if result.refused_for_good else "failing").inc()
        _queue_on_commit(NOTICE_TASK, [endpoint.pk])
    return "failed" if exhausted else "retry"


def _disable_reason(*, endpoint: Endpoint, exhausted: bool, attempts: int, now: datetime) -> str | None:
    if exhausted:
        return f"A delivery failed {attempts} times in a row, the last time with: {endpoint_last_error(endpoint)}"
    failures: int = settings.WEBHOOKS_DISABLE_AFTER_FAILURES
    hours: int = settings.WEBHOOKS_DISABLE_AFTER_HOURS
    since = endpoint.failing_since
    if endpoint.consecutive_failures >= failures and since is not None and since <= now - timedelta(hours=hours):
        return (
            f"{endpoint.consecutive_failures} attempts in a row failed over more than {hours} hours, "
            f"the last one with: {endpoint_last_error(endpoint)}"
        )
    return None


def endpoint_last_error(endpoint: Endpoint) -> str:
    attempt = DeliveryAttempt.objects.filter(delivery__endpoint=endpoint).order_by("-attempted_at", "-id").first()
    return attempt.error if attempt is not None and attempt.error else "no answer"


def _endpoint_disable(endpoint: Endpoint, *, reason: str, now: datetime) -> None:
    """Disable (the caller saves the row) and give up its pending deliveries."""
    endpoint.is_active = False
    endpoint.disabled_at = now
    endpoint.disabled_reason = _short(reason)
    Delivery.objects.filter(endpoint=endpoint, status=Delivery.Status.PENDING).update(
        status=Delivery.Status.FAILED, next_attempt_at=None, last_error="The endpoint was disabled."
    )


def deliveries_send_due(*, limit: int | None = None) -> int:
    """Attempt the pending deliveries whose retry is due, at most ``limit``
    (WEBHOOKS_SWEEP_BATCH). Safe to run in several workers at once: each
    delivery is claimed before it is sent. Returns how many were attempted."""
    ids = selectors.deliveries_due(now=timezone.now(), limit=limit or settings.WEBHOOKS_SWEEP_BATCH)
    sent = 0
    for delivery_id in ids:
        try:
            sent += delivery_attempt(delivery_id=delivery_id)
        except Exception:
            # One broken row must not stop the batch; its lease expires and it is tried again.
            logger.exception("webhook delivery %s could not be attempted", delivery_id)
    return sent


def endpoints_disable_refused_ports() -> list[int]:
    """Disable the active endpoints whose URL's port is not among
    WEBHOOKS_ALLOWED_PORTS (registered before the ports were restricted), and
    have each owner emailed why and what to do, as for any disabled endpoint.
    Returns their ids. (A delivery to such a URL disables its endpoint too.)"""
    refused = [
        (endpoint_id, reason)
        for endpoint_id, url in Endpoint.objects.filter(is_active=True).values_list("id", "url")
        if (reason := url_port_refusal(url)) is not None
    ]
    disabled: list[int] = []
    now = timezone.now()
    with transaction.atomic():
        for endpoint in Endpoint.objects.select_for_update().filter(pk__in=[pk for pk, _ in refused], is_active=True):
            why = dict(refused)[endpoint.pk]
            _endpoint_disable(endpoint, reason=f"Its URL can no longer be used. Refused: {why}.", now=now)
            metrics.WEBHOOK_ENDPOINTS_DISABLED.labels("port").inc()
            endpoint.save(update_fields=["is_active", "disabled_at", "disabled_reason"])
            disabled.append(endpoint.pk)
        if disabled:
            _queue_on_commit(NOTICE_TASK, disabled)
    return disabled


def endpoint_disabled_notice_send(*, endpoint_id: int) -> bool:
    """Email the owner that their endpoint was disabled, why, and how to turn it
    back on. False when there is nothing to say (re-enabled meanwhile, or no address)."""
    endpoint = Endpoint.objects.select_related("owner").filter(pk=endpoint_id).first()
    if endpoint is None or endpoint.is_active or not endpoint.owner.email:
        return False
    context = {
        "endpoint": endpoint,
        "username": endpoint.owner.username,
        "site_url": getattr(settings, "SITE_URL", "").rstrip("/"),
    }
    with in_language_of(endpoint.owner):  # the owner's language, as every email to a player
        subject = render_to_string("webhooks/email/endpoint_disabled_subject.txt", context).strip()
        body = render_to_string("webhooks/email/endpoint_disabled.txt", context)
    EmailMessage(
        " ".join(subject.split()),
        body,
        None,
        [endpoint.owner.email],
        headers={"Auto-Submitted": "auto-generated"},  # RFC 3834: no vacation replies to this
    ).send()
    return True


# --- accounts' news (webhooks.receivers) ------------------------------------------------


@transaction.atomic
def endpoints_disable_for_account(*, user_id: int) -> int:
    """An account that can no longer play is sent nothing more; its owner may
    turn its webhooks back on if the account comes back. Returns how many."""
    now = timezone.now()
    disabled = 0
    for endpoint in Endpoint.objects.select_for_update().filter(owner_id=user_id, is_active=True):
        _endpoint_disable(endpoint, reason="The account was disabled.", now=now)
        endpoint.save(update_fields=["is_active", "disabled_at", "disabled_reason"])
        metrics.WEBHOOK_ENDPOINTS_DISABLED.labels("account").inc()
        disabled += 1
    return disabled


def endpoints_delete_for_account(*, user_id: int) -> int:
    """An erased account keeps no webhooks: their URLs may name the person."""
    deleted, _ = Endpoint.objects.filter(owner_id=user_id).delete()
    return deleted
