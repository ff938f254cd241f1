"""One inbound email read: who sent it, to which address, in answer to which
of our messages, whether it must be dropped unanswered, and its command."""

from __future__ import annotations

import email
import email.policy
import hashlib
import re
from dataclasses import dataclass, field
from email.message import EmailMessage, Message
from email.utils import getaddresses

from engine.grammar import GRAMMARS
from notifications.inbound.commands import Command, CommandKind, command_from_text, subject_strip
from notifications.inbound.text import (
    flowed_decode,
    html_to_text,
    invisible_removed,
    new_text,
    strip_quotes,
    visible_text,
)

# Drop reasons: the message gets no answer at all, so no mail loop can start.
DROP_AUTO_REPLY = "auto-reply"
DROP_BOUNCE = "bounce"
DROP_LIST = "bulk or list mail"
DROP_NO_SENDER = "no sender address"
DROP_UNREADABLE = "unreadable"

# No reply has a use for more: past them a message is recorded as unreadable
# without being taken apart (the email package parses nesting by recursion, and
# a structure ~1,000 deep raises RecursionError).
MAX_MIME_PARTS = 100
MAX_MIME_DEPTH = 12
_PART_HEADER = re.compile(rb"^content-type[ \t]*:", re.IGNORECASE | re.MULTILINE)

_OUT_OF_OFFICE = re.compile(
    r"^\s*(auto(matic)?[ -]?(reply|response|antwort)|out of (the )?office|abwesenheit|automatische antwort|"
    r"risposta automatica|réponse automatique|reponse automatique|fuori (sede|ufficio)\b|assente\b|absence|"
    r"respuesta automática|autosvar|automatisch antwoord|away from|on vacation|auto:|autoreply|"
    r"autom[aā]tisk[aā] atbilde|promb[uū]tn[eē]\b|nav biroj[aā]\b)",
    re.IGNORECASE,
)
# An out-of-office answer that carries none of the headers above: its words.
_OUT_OF_OFFICE_BODY = re.compile(
    r"\b(out of (the )?office|(I am|I'm|I will be|I'll be) (currently |now )?(away|out|absent|off|on (annual |parental |"
    r"sick )?(vacation|holiday|holidays|leave))\b|away from (the office|my desk|(my )?e-?mail)|"
    r"(limited|no) access to (my )?e-?mail|auto(matic|mated)?[ -]?(reply|response|generated|message)|"
    r"(I will|I'll) (be back|return|reply|respond) (on|in|when|after|as soon)|back in the office|"
    r"\b(back|returning) (on|by|after) (monday|tuesday|wednesday|thursday|friday|saturday|sunday|the \d|\d)|"
    r"^\s*(holidays?|vacation)\b(?!\s*\d{1,3}[.!]?\s*$)|"
    r"abwesend|nicht im (büro|haus)|abwesenheit|automatische antwort|je suis absent|absent du bureau|"
    r"réponse automatique|fuori (sede|ufficio)|risposta automatica|(sono|sarò|saro) assente|"
    r"fuera de la oficina|respuesta automática|afwezig|niet op kantoor|frånvarande|inte på kontoret|"
    r"ikke på kontoret|fraværende|poza biurem|autom[aā]tisk[aā] atbilde|(nav|neesmu) biroj[aā]|"
    r"(esmu|atrodos|b[uū]šu) (promb[uū]tn[eē]|atva[lļ]in[aā]jum[aā])|promb[uū]tn[eē] l[iī]dz)",
    re.IGNORECASE | re.MULTILINE,
)
# The languages whose grammar the service reads (engine.grammar).
_EVERY_LANGUAGE = tuple(GRAMMARS)
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
        # Invisible characters first: one after a soft break's space would make it a hard one.
        content = flowed_decode(invisible_removed(content), delsp=delsp)
    return content


def mime_depth(message: Message) -> int:
    """How deep the parts nest (1 for a message of one part), counted without recursion."""
    deepest = 0
    stack: list[tuple[Message, int]] = [(message, 1)]
    while stack:
        part, depth = stack.pop()
        deepest = max(deepest, depth)
        payload = part.get_payload()
        if isinstance(payload, list):
            stack.extend((child, depth + 1) for child in payload if isinstance(child, Message))
    return deepest


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
    try:
        value = message.get(name)
        return visible_text(" ".join(str(value).split())) if value is not None else ""
    except Exception:  # a header the email package cannot take apart is no header
        return ""


def from_address(message: Message) -> str:
    """The one address of the one From: field, lower-cased; "" when there is no
    such address, or several (RFC 7489 6.6.1: then no domain can be checked,
    and so no sender is believed). The same address is the one authenticated
    (notifications.inbound.authentication) and the one looked up as an account."""
    try:
        fields = message.get_all("From") or []
        if len(fields) != 1:
            return ""
        addresses = getattr(fields[0], "addresses", None)
        if addresses is None:  # a message parsed without email.policy.default
            found = [address for _, address in getaddresses([str(fields[0])]) if address]
        else:
            found = [address.addr_spec for address in addresses if address.addr_spec]
    except Exception:  # a From: the email package cannot take apart names nobody
        return ""
    if len(found) != 1:
        return ""
    address = visible_text(found[0]).strip().strip("<>").lower()
    local, at, domain = address.rpartition("@")
    if not at or not local or "." not in domain or " " in address:
        return ""
    return address


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


def _unreadable(raw: bytes, why: str) -> InboundEmail:
    """A message not taken apart: recorded and dropped, never answered."""
    return InboundEmail(
        message_id="",
        message_key=hashlib.sha256(raw).hexdigest(),
        sender="",
        subject="",
        recipients=(),
        seat_token=None,
        answers_version=None,
        drop_reason=f"{DROP_UNREADABLE}: {why}",
        is_dsn=False,
        text="",
    )


def _is_out_of_office(text: str, command: Command) -> bool:
    """A body written by an automatic responder that sent no header saying so.
    A command the sender put first, or one that is no move (an out-of-office
    text may well say "take care"), is a person's."""
    if not _OUT_OF_OFFICE_BODY.search(text[:2000]):
        return False
    if command.error or command.kind in (CommandKind.UNKNOWN, CommandKind.EMPTY):
        return True
    first_line = next((line.strip() for line in text.split("\n") if line.strip()), "")
    return command.kind is CommandKind.MOVE and command.text != first_line


def inbound_parse(raw: bytes, *, reply_domain: str, envelope_to: list[str] | None = None) -> InboundEmail:
    """Read one raw RFC 822 message. Never raises: a message that cannot be
    taken apart (too many parts, too deep, or one the email package fails on)
    is read as unreadable, with a drop reason and no command."""
    parts = sum(1 for _ in zip(range(MAX_MIME_PARTS + 1), _PART_HEADER.finditer(raw), strict=False))
    if parts > MAX_MIME_PARTS:
        return _unreadable(raw, f"more than {MAX_MIME_PARTS} MIME parts")
    try:
        return _parse(raw, reply_domain=reply_domain, envelope_to=envelope_to)
    except Exception as error:  # RecursionError and whatever else the email package meets
        return _unreadable(raw, type(error).__name__)


def _parse(raw: bytes, *, reply_domain: str, envelope_to: list[str] | None) -> InboundEmail:
    message = email.message_from_bytes(raw, policy=email.policy.default)
    if mime_depth(message) > MAX_MIME_DEPTH:
        return _unreadable(raw, f"MIME parts nested more than {MAX_MIME_DEPTH} deep")
    sender = from_address(message)
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
        body = visible_text(body_text(message))
    except Exception:  # a malformed part: treated as no text, never as a crash
        body = ""
    written = new_text(body)
    command = command_from_text(written, subject=subject)
    if command.kind in (CommandKind.UNKNOWN, CommandKind.EMPTY):
        # The library may have kept only a greeting above an inline answer.
        fallback = command_from_text(strip_quotes(body), subject=subject)
        if fallback.kind not in (CommandKind.UNKNOWN, CommandKind.EMPTY):
            command = fallback
    # Whether a person wrote it is judged in every language the service reads: the
    # recipient's is not known here, and a move in Italian or Latvian on the first
    # line is a person's as much as one in English.
    if not reason:
        in_every_language = command_from_text(written, subject=subject, languages=_EVERY_LANGUAGE)
        if _is_out_of_office(written, in_every_language):
            reason = DROP_AUTO_REPLY
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
