"""One inbound email read: who sent it, to which address, in answer to which
of our messages, whether it must be dropped unanswered, and its command."""

from __future__ import annotations

import email
import email.policy
import hashlib
import re
from dataclasses import dataclass, field
from email.message import EmailMessage, Message
from email.utils import getaddresses, parseaddr

from notifications.inbound.commands import Command, CommandKind, command_from_text, subject_strip
from notifications.inbound.text import flowed_decode, html_to_text, new_text, strip_quotes

# Drop reasons: the message gets no answer at all, so no mail loop can start.
DROP_AUTO_REPLY = "auto-reply"
DROP_BOUNCE = "bounce"
DROP_LIST = "bulk or list mail"
DROP_NO_SENDER = "no sender address"

_OUT_OF_OFFICE = re.compile(
    r"^\s*(auto(matic)?[ -]?(reply|response|antwort)|out of (the )?office|abwesenheit|automatische antwort|"
    r"risposta automatica|réponse automatique|reponse automatique|fuori sede|absence|respuesta automática|"
    r"autosvar|automatisch antwoord|away from|on vacation|auto:|autoreply)",
    re.IGNORECASE,
)
_DAEMON = re.compile(r"^(mailer-daemon|postmaster|mail-daemon|noreply-dmarc|bounce[s]?)@", re.IGNORECASE)
# Our own Message-IDs: <key hash>.<seat token or 0>.v<version>@<reply domain>.
_OUR_ID = re.compile(r"<?([0-9a-f]{24})\.([0-9a-z-]+)\.v(\d+)@([^>\s]+)>?", re.IGNORECASE)


@dataclass(frozen=True)
class InboundEmail:
    message_id: str
    # A stable digest for duplicate deliveries: of the Message-ID, else of the bytes.
    message_key: str
    sender: str  # the From address, lower-cased ("" when none)
    subject: str
    # The local parts' tags: play+<token> (seat), and any other recipient local parts.
    recipients: tuple[str, ...]
    seat_token: str | None  # from play+<token>@ or, failing that, from a quoted Message-ID
    # The game version the reply answers, from the newest of our Message-IDs it names.
    answers_version: int | None
    drop_reason: str  # "" when the message is to be read
    is_dsn: bool  # a delivery status notification (drop it, but read it for bounces)
    text: str  # the sender's own words
    command: Command = field(default_factory=lambda: Command(CommandKind.EMPTY))


def _part_text(part: Message) -> str:
    """A text part's characters: its transfer encoding undone, its charset read
    (unknown charsets with replacements), format=flowed joined."""
    try:
        content = part.get_content() if isinstance(part, EmailMessage) else None
    except (LookupError, UnicodeError, ValueError, AssertionError):
        content = None
    if not isinstance(content, str):
        payload = part.get_payload(decode=True)
        data = payload if isinstance(payload, bytes) else b""
        charset = part.get_content_charset() or "us-ascii"
        try:
            content = data.decode(charset, errors="replace")
        except LookupError:
            content = data.decode("utf-8", errors="replace")
    if part.get_content_type() == "text/plain" and (part.get_param("format") or "").__str__().lower() == "flowed":
        delsp = str(part.get_param("delsp") or "").lower() == "yes"
        content = flowed_decode(content, delsp=delsp)
    return content


def body_text(message: Message) -> str:
    """The message's text: the first text/plain part not sent as an attachment,
    else its HTML as text (with quoted parts left out)."""
    plain: Message | None = None
    html: Message | None = None
    for part in message.walk():
        if part.is_multipart():
            continue
        if part.get_content_maintype() == "message" or (part.get("Content-Disposition") or "").lower().startswith(
            "attachment"
        ):
            continue
        content_type = part.get_content_type()
        if content_type == "text/plain" and plain is None:
            plain = part
        elif content_type == "text/html" and html is None:
            html = part
    if plain is not None:
        return _part_text(plain)
    if html is not None:
        return html_to_text(_part_text(html))
    return ""


def _header(message: Message, name: str) -> str:
    value = message.get(name)
    return " ".join(str(value).split()) if value is not None else ""


def drop_reason(message: Message, sender: str) -> tuple[str, bool]:
    """Why the message must get no answer ("" when it may), and whether it is a DSN."""
    content_type = message.get_content_type()
    report_type = str(message.get_param("report-type") or "").lower()
    if content_type == "multipart/report" and report_type == "delivery-status":
        return DROP_BOUNCE, True
    return_path = _header(message, "Return-Path")
    if return_path in ("<>", "") and message.get("Return-Path") is not None:
        return DROP_BOUNCE, False
    if not sender:
        return DROP_NO_SENDER, False
    if _DAEMON.match(sender):
        return DROP_BOUNCE, False
    auto_submitted = _header(message, "Auto-Submitted").lower()
    if auto_submitted and auto_submitted != "no":
        return DROP_AUTO_REPLY, False
    if _header(message, "X-Autoreply") or _header(message, "X-Autorespond") or _header(message, "X-Autoresponder"):
        return DROP_AUTO_REPLY, False
    if _header(message, "X-Auto-Response-Suppress").lower() in ("all", "oof", "autoreply"):
        # Outlook marks its own automatic replies this way.
        if _OUT_OF_OFFICE.match(subject_strip(_header(message, "Subject"))):
            return DROP_AUTO_REPLY, False
    precedence = _header(message, "Precedence").lower()
    if precedence in ("bulk", "junk", "list", "auto_reply"):
        return DROP_LIST if precedence in ("bulk", "list") else DROP_AUTO_REPLY, False
    if _header(message, "List-Id") or _header(message, "List-Unsubscribe"):
        return DROP_LIST, False
    if _OUT_OF_OFFICE.match(subject_strip(_header(message, "Subject"))):
        return DROP_AUTO_REPLY, False
    return "", False


def _recipients(message: Message, envelope_to: list[str] | None) -> list[str]:
    addresses = list(envelope_to or [])
    for name in ("Delivered-To", "X-Original-To", "To", "Cc"):
        addresses.extend(address for _, address in getaddresses([str(v) for v in message.get_all(name, [])]))
    return list(dict.fromkeys(address.strip().lower() for address in addresses if "@" in address))


def _our_ids(message: Message, reply_domain: str) -> list[tuple[str, int]]:
    """(seat token, version) of each of our Message-IDs the reply names, the
    direct parent (In-Reply-To) first, then References newest first."""
    found: list[tuple[str, int]] = []
    texts = [_header(message, "In-Reply-To"), *reversed(_header(message, "References").split())]
    for text in texts:
        for match in _OUR_ID.finditer(text):
            if match.group(4).lower() == reply_domain.lower():
                found.append((match.group(2).lower(), int(match.group(3))))
    return found


def inbound_parse(raw: bytes, *, reply_domain: str, envelope_to: list[str] | None = None) -> InboundEmail:
    """Read one raw RFC 822 message. Never raises for bad mail: what cannot be
    read is an empty text (and so an EMPTY command)."""
    message = email.message_from_bytes(raw, policy=email.policy.default)
    try:
        sender = parseaddr(_header(message, "From"))[1].strip().lower()
    except (IndexError, ValueError):
        sender = ""
    if "@" not in sender:
        sender = ""
    message_id = _header(message, "Message-ID")[:300]
    message_key = hashlib.sha256(message_id.lower().encode() if message_id else raw).hexdigest()
    subject = _header(message, "Subject")
    recipients = _recipients(message, envelope_to)
    seat_token: str | None = None
    domain = reply_domain.lower()
    for address in recipients:
        local, _, host = address.rpartition("@")
        if host == domain and local.startswith("play+") and len(local) > 5:
            seat_token = local[5:]
            break
    ours = _our_ids(message, reply_domain)
    if seat_token is None:
        seat_token = next((token for token, _ in ours if token != "0"), None)
    versions = [version for token, version in ours if token == seat_token]
    reason, is_dsn = drop_reason(message, sender)
    try:
        body = body_text(message)
    except Exception:  # a malformed part: treated as no text, never as a crash
        body = ""
    written = new_text(body)
    command = command_from_text(written, subject=subject)
    if command.kind in (CommandKind.UNKNOWN, CommandKind.EMPTY):
        # The library may have kept only a greeting above an inline answer.
        fallback = command_from_text(strip_quotes(body), subject=subject)
        if fallback.kind not in (CommandKind.UNKNOWN, CommandKind.EMPTY):
            command = fallback
    return InboundEmail(
        message_id=message_id,
        message_key=message_key,
        sender=sender,
        subject=subject[:200],
        recipients=tuple(recipients),
        seat_token=seat_token,
        answers_version=versions[0] if versions else None,
        drop_reason=reason,
        is_dsn=is_dsn,
        text=written[:2000],
        command=command,
    )
