"""Game email through the outbox: deciding, recording and sending notifications.

``notify`` records one ``Notification`` per key (the key names the event,
recipient and kind, so a repeated event sends nothing twice), decides whether it
is suppressed and, once the transaction commits, queues ``send_notification``;
it also hands the row to push (``notifications.push.services.push_notify``),
which decides by its own preferences whether the player's browsers hear of it.
``notification_send`` claims a queued row with a conditional UPDATE (so two
workers never send one row twice), renders it for its recipient and hands it to
Django's email backend; mail-server errors are retried with backoff by the beat
task ``send_due``, and a recipient the server refuses outright (5xx) marks the
address undeliverable. Sending happens in a worker after the move has
committed: it never blocks or fails a move.

Logs name notifications by id and addresses only redacted; tokens are never logged.
"""

from __future__ import annotations

import hashlib
import logging
import re
import smtplib
from datetime import datetime, timedelta


from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from accounts.services import player_email_undeliverable_mark
from core import metrics
from notifications.addresses import address_digest, address_redacted
from notifications.email.links import unsubscribe_url
from notifications.email.render import (
    RenderedEmail,
    email_render,
    email_sections_sent,
    registered_kinds,
    renderer_for,
)
from notifications.inbound.reply_tokens import reply_token_for
from notifications.models import GameMute, InvitationOptOut, Notification, Preferences
from notifications.push.services import push_notify

logger = logging.getLogger(__name__)

Status = Notification.Status

# A claimed row is not offered again for this long: time enough to render and
# hand one message to the mail server. A worker that dies mid-send leaves the
# row to be retried after it.
def _send_lease() -> timedelta:
    return timedelta(seconds=settings.NOTIFICATION_SEND_LEASE_SECONDS)


# The task's name (notifications.email.tasks.send_notification), queued by name.
SEND_TASK = "notifications.tasks.send_notification"
# Email about the account itself, not a game (notifications.email.account_notices):
# sent even with email turned off.
ACCOUNT_KINDS = frozenset({"account_notice"})


# --- deciding -------------------------------------------------------------------------


def suppression_reason(*, kind: str, user_id: int, game_id: str | None) -> str:
    """Why this player gets no email of this kind about this game now, or "" when they do."""
    user = get_user_model().objects.select_related("player").filter(pk=user_id).first()
    if user is None or not user.is_active:
        return "inactive account"
    player = getattr(user, "player", None)
    if player is None or player.erased_at is not None:
        return "erased account"
    if not user.email:
        return "no address"
    if player.email_undeliverable_at is not None:
        return "undeliverable address"
    if kind in ACCOUNT_KINDS:
        return ""  # a moderator's word about the account goes whatever the preferences
    if player.is_suspended:
        return "suspended account"  # its links and pages do not open meanwhile
    mode = Preferences.objects.filter(user_id=user_id).values_list("mode", flat=True).first()
    if mode == Preferences.Mode.OFF:
        return "mode off"
    if mode == Preferences.Mode.DIGEST and kind == "your_turn":
        return "mode digest"
    if game_id is not None and GameMute.objects.filter(user_id=user_id, game_id=game_id).exists():
        return "game muted"
    if kind in ("invitation", "tournament_invitation") and InvitationOptOut.objects.filter(address_digest=address_digest(user.email)).exists():
        return "opted out of invitations"
    return ""


def notify(
    *, key: str, kind: str, user_id: int, game_id: str | None = None, event_id: int | None = None
) -> Notification | None:
    """Record one notification and queue its sending once the transaction commits.

    Returns None when a notification with this ``key`` exists already (the
    repeat of an event, a reminder or digest already decided). A suppressed one
    is recorded with status SUPPRESSED and the reason in ``last_error``."""
    renderer_for(kind)  # an unknown kind is a programming error: say so here, not in a worker
    reason = suppression_reason(kind=kind, user_id=user_id, game_id=game_id)
    now = timezone.now()
    try:
        with transaction.atomic():
            notification = Notification.objects.create(
                key=key,
                kind=kind,
                user_id=user_id,
                game_id=game_id,
                event_id=event_id,
                status=Status.SUPPRESSED if reason else Status.QUEUED,
                last_error=reason,
                next_attempt_at=None if reason else now,
            )
    except IntegrityError:
        return None
    # The same news by push to the player's browsers, whatever became of the email
    # (push has preferences of its own): notifications.push.services.
    push_notify(notification=notification)
    if reason:
        logger.info("notification %s (%s to user %s) suppressed: %s", notification.pk, kind, user_id, reason)
        _counted(kind, "suppressed")
    else:
        notification_id = notification.pk
        transaction.on_commit(lambda: _queue_send(notification_id))
    return notification


def _queue_send(notification_id: int) -> None:
    # The task honours CELERY_TASK_ALWAYS_EAGER. A broker that refuses the
    # message loses nothing: the row stays queued and send_due sends it.
    from celery import current_app

    try:
        task = current_app.tasks.get(SEND_TASK)
        if task is not None:
            task.apply_async(args=(notification_id,), retry=False)
        else:
            current_app.send_task(SEND_TASK, args=(notification_id,), retry=False)
    except Exception:
        logger.warning("could not queue notification %s; send_due will send it", notification_id, exc_info=True)


# --- sending --------------------------------------------------------------------------


def _claim(notification_id: int, now: datetime) -> bool:
    """Take a queued, due row for this worker: one conditional UPDATE, so of
    several workers exactly one wins."""
    claimed = (
        Notification.objects.filter(pk=notification_id, status=Status.QUEUED)
        .filter(Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now))
        .update(attempts=F("attempts") + 1, next_attempt_at=now + _send_lease())
    )
    return claimed == 1


def message_id_for(*, key: str, reply_token: str | None, version: int) -> str:
    """``<key hash>.<reply token>.v<version>@<domain>``: the play-by-email work
    finds the seat and the game's version a reply answers in its In-Reply-To."""
    key_hash = hashlib.sha256(key.encode()).hexdigest()[:24]
    return f"<{key_hash}.{reply_token or '0'}.v{version}@{settings.EMAIL_REPLY_DOMAIN}>"


# The headers a renderer may add (a reply's threading, RFC 5322 3.6.4), each a list
# of msg-ids: anything else, or a value of another shape, is left out.
_THREAD_HEADERS = ("In-Reply-To", "References")
_MSG_IDS = re.compile(r"<[!-;=?A-~]+@[!-;=?A-~]+>(?: <[!-;=?A-~]+@[!-;=?A-~]+>)*")


def _thread_headers(rendered: RenderedEmail) -> dict[str, str]:
    headers = rendered.extra.get("headers")
    if not isinstance(headers, dict):
        return {}
    return {
        name: str(headers[name])
        for name in _THREAD_HEADERS
        if isinstance(headers.get(name), str) and _MSG_IDS.fullmatch(str(headers[name]))
    }


def thread_root_for(*, game_id: str, user_id: int) -> str:
    """The root of the one thread of a game's emails to one person: a msg-id no
    email carries as its own, made of the game and the person alone (no token, so
    it gives nothing away and never changes). It has no ``.v<version>``, so the
    play-by-email work never mistakes it for one of ``message_id_for``'s."""
    digest = hashlib.sha256(f"thread:{game_id}:{user_id}".encode()).hexdigest()[:24]
    return f"<thread.{digest}@{settings.EMAIL_REPLY_DOMAIN}>"


# References kept on an answer about a game: the thread's root, then the newest
# (RFC 5322 3.6.4 allows trimming; notifications.inbound.replies keeps as many).
_REFERENCES_KEPT = 20


def _game_thread_headers(notification: Notification, answered: dict[str, str]) -> dict[str, str]:
    """An email about a game joins that game's thread to its reader (RFC 5322
    3.6.4): In-Reply-To names the last email of the game sent to them (the root
    for the first), References the root and that email, so that a mail program
    shows one conversation per game however many turns it lasts.

    An answer to the player's own message (``answered``: the renderer's
    In-Reply-To and References) stays under that message, and its References
    begin with the game's root and last email: a message the player wrote afresh,
    not as a reply, still has its answer shown in the game's conversation.
    Without a game, ``answered`` as it is."""
    if notification.game_id is None:
        return answered
    root = thread_root_for(game_id=str(notification.game_id), user_id=notification.user_id)
    previous = (
        Notification.objects.filter(
            user_id=notification.user_id, game_id=notification.game_id, status=Notification.Status.SENT
        )
        .exclude(pk=notification.pk)
        .exclude(message_id="")
        .order_by("-sent_at", "-pk")
        .values_list("message_id", flat=True)
        .first()
    )
    thread = [root] if previous is None or not _MSG_IDS.fullmatch(previous) else [root, previous]
    if "In-Reply-To" not in answered:
        return {"In-Reply-To": thread[-1], "References": " ".join(thread)}
    references = list(dict.fromkeys([*thread, *answered.get("References", answered["In-Reply-To"]).split()]))
    if len(references) > _REFERENCES_KEPT:
        references = references[:1] + references[-(_REFERENCES_KEPT - 1) :]
    return {"In-Reply-To": answered["In-Reply-To"], "References": " ".join(references)}


def message_build(notification: Notification, rendered: RenderedEmail) -> EmailMultiAlternatives:
    """The email as sent: the rendered parts, the service's headers (Message-ID,
    unsubscribe, auto-submitted), the reply address, and its place in a thread:
    a reply to an emailed message under that message (the renderer's In-Reply-To
    and References), every email about a game in the game's thread to its reader."""
    user = notification.user
    reply_token = reply_token_for(seat=rendered.seat) if rendered.seat is not None else None
    message_id = message_id_for(key=notification.key, reply_token=reply_token, version=rendered.version)
    headers = {
        "Auto-Submitted": "auto-generated",
        "X-Auto-Response-Suppress": "All",
        "List-Unsubscribe": f"<{unsubscribe_url(user_id=user.pk)}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        "Message-ID": message_id,
        **_game_thread_headers(notification, _thread_headers(rendered)),
    }
    message = EmailMultiAlternatives(
        subject=rendered.subject,
        body=rendered.text,
        to=[str(rendered.extra.get("to") or user.email)],
        reply_to=[f"play+{reply_token}@{settings.EMAIL_REPLY_DOMAIN}"]
        if reply_token
        else ([str(rendered.extra["reply_to"])] if rendered.extra.get("reply_to") else None),
        headers=headers,
    )
    message.attach_alternative(rendered.html, "text/html")
    return message


def _hard_refusal(exc: smtplib.SMTPRecipientsRefused) -> int | None:
    """The 5xx code when the server refused the recipient for good, else None."""
    for code, _ in exc.recipients.values():
        if 500 <= int(code) < 600:
            return int(code)
    return None


def _error_summary(exc: BaseException) -> str:
    # Mail servers echo the address in their text: keep the class and code only.
    code = getattr(exc, "smtp_code", None) or getattr(exc, "errno", None)
    return f"{type(exc).__name__}{f' {code}' if code else ''}"


def _retry_delay(attempts: int) -> timedelta:
    base: int = settings.NOTIFICATION_RETRY_SECONDS
    return timedelta(seconds=base * 2 ** max(attempts - 1, 0))


def notification_send(*, notification_id: int, now: datetime | None = None) -> str:
    """Send one queued notification if it is due. Returns what became of it:
    "sent", "retry", "failed", "bounced", "suppressed" or "not-due" (sent,
    given up, or claimed by another worker)."""
    now = now or timezone.now()
    if not _claim(notification_id, now):
        return "not-due"
    notification = Notification.objects.select_related("user", "user__player", "game", "event").get(
        pk=notification_id
    )
    reason = suppression_reason(kind=notification.kind, user_id=notification.user_id, game_id=notification.game_id)
    if reason:
        Notification.objects.filter(pk=notification_id).update(
            status=Status.SUPPRESSED, last_error=reason, next_attempt_at=None
        )
        logger.info("notification %s suppressed at send time: %s", notification_id, reason)
        return _counted(notification.kind, "suppressed")
    try:
        rendered = email_render(notification)
    except Exception:
        # A rendering bug will not fix itself by retrying.
        logger.exception("notification %s (%s) could not be rendered", notification_id, notification.kind)
        Notification.objects.filter(pk=notification_id).update(
            status=Status.FAILED, last_error="rendering failed", next_attempt_at=None
        )
        return _counted(notification.kind, "failed")
    message = message_build(notification, rendered)
    address = message.to[0]
    try:
        message.send()
    except smtplib.SMTPRecipientsRefused as exc:
        code = _hard_refusal(exc)
        if code is not None:
            return _counted(notification.kind, _bounced(notification, code=code, address=address))
        return _counted(notification.kind, _failed_attempt(notification, exc, now=now))
    except (smtplib.SMTPException, OSError) as exc:
        return _counted(notification.kind, _failed_attempt(notification, exc, now=now))
    except Exception as exc:
        # An error of the backend itself (a provider's API, a bad header): counted
        # as an attempt like the rest, so it is given up in the end, not retried forever.
        logger.exception("notification %s could not be handed to the email backend", notification_id)
        return _counted(notification.kind, _failed_attempt(notification, exc, now=now))
    Notification.objects.filter(pk=notification_id).update(
        status=Status.SENT,
        sent_at=timezone.now(),
        subject=rendered.subject,
        message_id=message.extra_headers["Message-ID"],
        last_error="",
        next_attempt_at=None,
    )
    email_sections_sent(notification)
    logger.info("notification %s (%s) sent to %s", notification_id, notification.kind, address_redacted(address))
    return _counted(notification.kind, "sent")


def email_series() -> list[tuple[str, str]]:
    """Every kind of email with every outcome: ``splendor_emails_total``'s series,
    exported at 0 before their first count (core.metrics.series_declare)."""
    return [(kind, outcome) for kind in registered_kinds() for outcome in metrics.EMAIL_OUTCOMES]


def _counted(kind: str, outcome: str) -> str:
    """Count what became of one email (``splendor_emails_total``) and return it."""
    metrics.EMAILS.labels(kind, outcome).inc()
    return outcome


def _bounced(notification: Notification, *, code: int, address: str) -> str:
    reason = f"refused by the mail server at send time ({code})"
    Notification.objects.filter(pk=notification.pk).update(
        status=Status.FAILED, last_error=f"SMTPRecipientsRefused {code}", next_attempt_at=None
    )
    bounce_record(address=address, reason=reason, source="smtp")
    return "bounced"


def _failed_attempt(notification: Notification, exc: BaseException, *, now: datetime) -> str:
    attempts = Notification.objects.filter(pk=notification.pk).values_list("attempts", flat=True).get()
    summary = _error_summary(exc)
    if attempts >= settings.NOTIFICATION_MAX_ATTEMPTS:
        Notification.objects.filter(pk=notification.pk).update(
            status=Status.FAILED, last_error=summary, next_attempt_at=None
        )
        logger.warning("notification %s gave up after %s attempts: %s", notification.pk, attempts, summary)
        return "failed"
    Notification.objects.filter(pk=notification.pk).update(
        last_error=summary, next_attempt_at=now + _retry_delay(attempts)
    )
    logger.warning("notification %s attempt %s failed (%s); will retry", notification.pk, attempts, summary)
    return "retry"


def notifications_send_due(*, now: datetime | None = None, limit: int = 200) -> int:
    """Send queued notifications whose next try is due (the beat's ``send_due``).
    Each row is claimed on its own, so workers running this at once share the
    rows and never send one twice. Returns how many were sent."""
    now = now or timezone.now()
    due = list(
        Notification.objects.filter(status=Status.QUEUED, next_attempt_at__lte=now)
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
    return sum(1 for pk in due if notification_send(notification_id=pk, now=now) == "sent")


def notifications_retry(*, notification_ids: list[int]) -> int:
    """Queue failed or queued notifications to be sent again now (an operator's
    action, e.g. after fixing the mail server). Sent and suppressed ones stay as
    they are. Returns how many were queued."""
    now = timezone.now()
    ids = list(
        Notification.objects.filter(pk__in=notification_ids, status__in=[Status.QUEUED, Status.FAILED]).values_list(
            "pk", flat=True
        )
    )
    Notification.objects.filter(pk__in=ids).update(status=Status.QUEUED, attempts=0, next_attempt_at=now)
    transaction.on_commit(lambda: _queue_sends(ids))
    return len(ids)


def _queue_sends(notification_ids: list[int]) -> None:
    for notification_id in notification_ids:
        _queue_send(notification_id)


# --- the player's choices from the email links -------------------------------------------


def email_unsubscribe(*, user_id: int) -> bool:
    """One-click unsubscribe: the player's mode becomes "off". False when the account is gone."""
    if not get_user_model().objects.filter(pk=user_id).exists():
        return False
    with transaction.atomic():
        preferences, _ = Preferences.objects.select_for_update().get_or_create(user_id=user_id)
        if preferences.mode != Preferences.Mode.OFF:
            preferences.mode = Preferences.Mode.OFF
            preferences.save(update_fields=["mode", "updated_at"])
    logger.info("user %s turned game email off from an email link", user_id)
    return True


def invitation_opt_out(*, address_digest: str) -> InvitationOptOut:
    """No more invitations to the address with this digest (idempotent)."""
    opt_out, _ = InvitationOptOut.objects.get_or_create(address_digest=address_digest)
    return opt_out


# --- bounces ----------------------------------------------------------------------------


def bounce_record(*, address: str, reason: str, source: str) -> int:
    """A hard bounce for ``address``: the accounts holding it get no more email
    until the address changes. ``source``: where it was learnt (smtp, dsn,
    provider; ``splendor_email_bounces_total``). Returns how many accounts were marked."""
    metrics.EMAIL_BOUNCES.labels(source).inc()
    marked = player_email_undeliverable_mark(email=address, reason=reason)
    logger.info("hard bounce for %s (%s): %s account(s) marked", address_redacted(address), reason, marked)
    return marked


