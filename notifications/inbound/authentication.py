"""Whether a message really comes from the domain of its From: address.

A From: header is whatever the sender typed, so a command acts only when the
From: domain is authenticated the way DMARC (RFC 7489) defines it: a DKIM
signature that verifies (RFC 6376), or an SPF pass for the envelope sender
(RFC 7208), whose domain is *aligned* with the From: domain: the same
organisational domain (relaxed, the default), or the very same name when the
domain's DMARC record says ``adkim=s`` / ``aspf=s``. The domain's DMARC policy
(``p=``) does not matter here: a domain with no record is authenticated all the
same by an aligned pass, and one with ``p=reject`` is not without one.

There are two ways to know:

- ``sender_verify``: the receiver checks for itself, with dkimpy and pyspf
  (``manage.py smtpd`` for mail from any client not in INBOUND_TRUSTED_RELAYS);
- ``sender_from_results``: a mail host in front of the service checked, and
  wrote the results in an Authentication-Results header (RFC 8601) under its
  authserv-id. Only the topmost such header with the configured authserv-id is
  believed: a host adds its own above everything it received, so a header
  further down with the same id may have been written by the sender. Headers of
  any other authserv-id are ignored.

Every DNS look-up goes through a :class:`Resolver`, so that the tests run
offline with zones and keys of their own. Pure: no Django, no database.
"""

from __future__ import annotations

import email.parser
import email.policy
import ipaddress
import logging
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

import authres  # type: ignore[import-untyped]  # no stubs
import dkim  # type: ignore[import-untyped]  # no stubs
import spf  # type: ignore[import-untyped]  # no stubs
from publicsuffixlist import PublicSuffixList

from notifications.inbound.message import from_address

logger = logging.getLogger(__name__)

# Signatures tried at most: each costs a DNS look-up, and a sender could add hundreds.
MAX_DKIM_SIGNATURES = 5
# RSA keys shorter than this prove nothing (RFC 8301).
MIN_DKIM_KEY_BITS = 1024
# The whole SPF evaluation (up to ten look-ups) gives up after this many seconds.
SPF_SECONDS = 10


class DnsFailure(Exception):
    """A look-up that could not be answered (a timeout, a server failure): a
    temporary error, which never counts as a pass."""


class Resolver(Protocol):
    def lookup(self, name: str, rdtype: str) -> list[str]:
        """The records of ``name``: TXT as their strings joined, A and AAAA as
        addresses, MX as "<preference> <exchange>", PTR as names. An empty list
        when the name or the type does not exist; DnsFailure when no answer came."""
        ...


class SystemResolver:
    """The machine's resolver (dnspython), each look-up bounded in time."""

    def __init__(self, *, seconds: float = 5.0) -> None:
        self.seconds = seconds

    def lookup(self, name: str, rdtype: str) -> list[str]:
        import dns.exception
        import dns.resolver

        try:
            answer = dns.resolver.resolve(name, rdtype, lifetime=self.seconds, search=False)
        except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
            return []
        except (dns.exception.DNSException, OSError) as error:
            raise DnsFailure(f"{rdtype} {name}: {type(error).__name__}") from None
        records: list[str] = []
        for record in answer:
            if rdtype == "TXT":
                records.append(b"".join(record.strings).decode("utf-8", errors="replace"))
            elif rdtype in ("A", "AAAA"):
                records.append(str(record.address))
            elif rdtype == "MX":
                records.append(f"{record.preference} {record.exchange.to_text(omit_final_dot=True)}")
            else:
                records.append(record.to_text().rstrip("."))
        return records


@dataclass(frozen=True)
class SenderCheck:
    """The verdict on one message. ``detail`` says how it was reached, naming
    domains only (never an address): it is stored and logged."""

    authenticated: bool
    domain: str  # the From: address's domain ("" when there is no single From: address)
    detail: str


# --- domains and DMARC records ----------------------------------------------------------------


@lru_cache(maxsize=1)
def _public_suffixes() -> Any:
    return PublicSuffixList()


def organizational_domain(domain: str) -> str:
    """The registered domain a name belongs to (RFC 7489 3.2): ``mail.example.co.uk``
    -> ``example.co.uk``, by the public suffix list that publicsuffixlist ships."""
    domain = domain.lower().rstrip(".")
    return str(_public_suffixes().privatesuffix(domain) or domain)


def aligned(authenticated: str, from_domain: str, mode: str) -> bool:
    """Whether a domain that passed DKIM or SPF speaks for the From: domain."""
    one, two = authenticated.lower().rstrip("."), from_domain.lower().rstrip(".")
    if not one or not two:
        return False
    if mode == "s":
        return one == two
    return organizational_domain(one) == organizational_domain(two)


@dataclass(frozen=True)
class DmarcRecord:
    adkim: str = "r"
    aspf: str = "r"
    found: bool = False


def _dmarc_tags(text: str) -> dict[str, str] | None:
    tags: dict[str, str] = {}
    for position, item in enumerate(part for part in text.split(";") if part.strip()):
        name, equals, value = item.partition("=")
        if not equals:
            return None
        tags[name.strip().lower()] = value.strip()
        if position == 0 and (name.strip().lower(), value.strip().upper()) != ("v", "DMARC1"):
            return None
    return tags


def dmarc_record(from_domain: str, resolver: Resolver) -> DmarcRecord:
    """The alignment modes the From: domain asks for (RFC 7489 6.6.3): its own
    ``_dmarc`` record, else its organisational domain's, else relaxed. A look-up
    that fails makes both strict: nothing is believed on a guess."""
    names = dict.fromkeys([from_domain.lower(), organizational_domain(from_domain)])
    for name in names:
        try:
            texts = resolver.lookup(f"_dmarc.{name}", "TXT")
        except DnsFailure:
            return DmarcRecord(adkim="s", aspf="s")
        records = [tags for tags in map(_dmarc_tags, texts) if tags is not None]
        if len(records) > 1:
            return DmarcRecord()  # RFC 7489 6.6.3: several records are none
        if records:
            tags = records[0]
            return DmarcRecord(
                adkim="s" if tags.get("adkim", "r").lower() == "s" else "r",
                aspf="s" if tags.get("aspf", "r").lower() == "s" else "r",
                found=True,
            )
    return DmarcRecord()


def _from_domain(raw: bytes) -> str:
    """The domain of the message's one From: address, read from its headers only
    (the body is never taken apart here)."""
    try:
        headers = email.parser.BytesHeaderParser(policy=email.policy.default).parsebytes(raw)
        address = from_address(headers)
    except Exception:  # headers the email package cannot read name no domain
        return ""
    return address.rpartition("@")[2]


def _aligned_pass(
    from_domain: str, *, dkim_domains: list[str], spf_domain: str, resolver: Resolver, by: str
) -> SenderCheck | None:
    # Strict alignment is relaxed alignment and more: a domain that is not even
    # relaxed-aligned needs no look-up of the record.
    dkim_domains = [domain for domain in dkim_domains if aligned(domain, from_domain, "r")]
    spf_domain = spf_domain if spf_domain and aligned(spf_domain, from_domain, "r") else ""
    if not dkim_domains and not spf_domain:
        return None
    record = dmarc_record(from_domain, resolver)
    for domain in dkim_domains:
        if aligned(domain, from_domain, record.adkim):
            return SenderCheck(True, from_domain, f"dkim=pass header.d={domain}, aligned ({record.adkim}){by}")
    if spf_domain and aligned(spf_domain, from_domain, record.aspf):
        return SenderCheck(True, from_domain, f"spf=pass smtp.mailfrom domain {spf_domain}, aligned ({record.aspf}){by}")
    return None


# --- checking for itself: DKIM and SPF -----------------------------------------------------------


def dkim_passes(raw: bytes, resolver: Resolver) -> list[str]:
    """The signing domains (d=) of the DKIM signatures that verify. A signature
    limited to part of the body (l=) is left out: text added after the signed
    part would pass with it."""

    def txt(name: bytes, timeout: int = 5) -> bytes | None:
        try:
            records = resolver.lookup(name.decode("ascii").rstrip("."), "TXT")
        except (DnsFailure, UnicodeDecodeError):
            return None
        return records[0].encode("utf-8") if records else None

    try:
        checker = dkim.DKIM(raw, minkey=MIN_DKIM_KEY_BITS)
        count = sum(1 for name, _ in checker.headers if name.lower() == b"dkim-signature")
    except Exception:  # a message dkimpy cannot read has no signature that verifies
        return []
    domains: list[str] = []
    for index in range(min(count, MAX_DKIM_SIGNATURES)):
        try:
            verified = checker.verify(idx=index, dnsfunc=txt)
        except Exception:  # a malformed signature or key is a failed one
            continue
        fields = checker.signature_fields or {}
        if verified and b"l" not in fields:
            domains.append(checker.domain.decode("ascii", errors="replace").lower())
    return domains


class _SpfQuery(spf.query):  # type: ignore[misc]  # pyspf has no types
    """pyspf's query with its look-ups through our resolver (pyspf itself
    reaches for dnspython's module-level resolver)."""

    def __init__(self, resolver: Resolver, **arguments: Any) -> None:
        super().__init__(**arguments)
        self.resolver = resolver

    def dns(self, name: Any, qtype: str, cnames: Any = None, ignore_void: bool = False) -> list[Any]:
        name = str(name).rstrip(".").lower()
        if not name or not all(0 < len(label) < 64 for label in name.split(".")):
            return []
        key = (name, qtype)
        if key in self.cache:
            return list(self.cache[key])
        try:
            records = self.resolver.lookup(name, "TXT" if qtype == "SPF" else qtype)
        except DnsFailure as error:
            raise spf.TempError(f"DNS {error}") from None
        result: list[Any]
        if qtype in ("TXT", "SPF"):
            result = [(record.encode("utf-8"),) for record in records]
        elif qtype == "MX":
            result = []
            for record in records:
                preference, _, exchange = record.partition(" ")
                result.append((int(preference) if preference.isdigit() else 0, exchange))
        else:
            result = list(records)
        if not result and not ignore_void:
            self.void_lookups += 1
            if self.void_lookups > spf.MAX_VOID_LOOKUPS:
                raise spf.PermError(f"Void lookup limit of {spf.MAX_VOID_LOOKUPS} exceeded")
        self.cache[key] = result
        return result


def spf_result(*, client_ip: str, mail_from: str, helo: str, resolver: Resolver) -> str:
    """pyspf's result for the envelope sender from ``client_ip``: pass, fail,
    softfail, neutral, none, permerror or temperror."""
    try:
        address = ipaddress.ip_address(client_ip)
    except ValueError:
        return "none"
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    try:
        query = _SpfQuery(resolver, i=str(address), s=mail_from, h=helo or "unknown", querytime=SPF_SECONDS)
        result, _code, _explanation = query.check()
    except Exception:  # pyspf on input it does not expect: no pass
        return "temperror"
    return str(result)


def sender_verify(raw: bytes, *, client_ip: str, helo: str, mail_from: str, resolver: Resolver) -> SenderCheck:
    """Check the message for itself: DKIM signatures, SPF for ``mail_from`` from
    ``client_ip``, and their alignment with the From: domain."""
    from_domain = _from_domain(raw)
    if not from_domain:
        return SenderCheck(False, "", "no single From: address")
    dkim_domains = dkim_passes(raw, resolver)
    envelope_domain = mail_from.strip().strip("<>").rpartition("@")[2].lower()
    spf_outcome = (
        spf_result(client_ip=client_ip, mail_from=mail_from.strip().strip("<>"), helo=helo, resolver=resolver)
        if envelope_domain
        else "none"
    )
    verdict = _aligned_pass(
        from_domain,
        dkim_domains=dkim_domains,
        spf_domain=envelope_domain if spf_outcome == "pass" else "",
        resolver=resolver,
        by="",
    )
    if verdict is not None:
        return verdict
    signed = ", ".join(dkim_domains) or "none"
    return SenderCheck(False, from_domain, f"no aligned pass (dkim passes: {signed}; spf={spf_outcome})")


# --- believing a trusted host: Authentication-Results -------------------------------------------


def _property(result: Any, kind: str, name: str) -> str:
    for item in getattr(result, "properties", []) or []:
        if str(item.type).lower() == kind and str(item.name).lower() == name:
            return str(item.value or "")
    return ""


def sender_from_results(raw: bytes, *, authserv_id: str, resolver: Resolver) -> SenderCheck:
    """Believe the topmost Authentication-Results header written under
    ``authserv_id``: a ``dmarc=pass`` for the From: domain, or a ``dkim=pass`` /
    ``spf=pass`` aligned with it (the domain's DMARC record gives the mode)."""
    from_domain = _from_domain(raw)
    if not from_domain:
        return SenderCheck(False, "", "no single From: address")
    if not authserv_id:
        return SenderCheck(False, from_domain, "no authserv-id is trusted")
    try:
        headers = email.parser.BytesHeaderParser(policy=email.policy.compat32).parsebytes(raw)
        values = [" ".join(str(value).split()) for value in headers.get_all("Authentication-Results") or []]
    except Exception:
        values = []
    ours: Any = None
    for value in values:
        try:
            parsed = authres.AuthenticationResultsHeader.parse_value(value)
        except Exception:  # a header that does not parse is no one's results
            continue
        if str(parsed.authserv_id).lower() == authserv_id.lower():
            ours = parsed
            break
    if ours is None:
        return SenderCheck(False, from_domain, f"no Authentication-Results from {authserv_id}")
    by = f" (by {authserv_id})"
    dkim_domains: list[str] = []
    spf_domain = ""
    seen: list[str] = []
    for result in ours.results:
        method, outcome = str(result.method).lower(), str(result.result).lower()
        seen.append(f"{method}={outcome}")
        if outcome != "pass":
            continue
        if method == "dmarc" and _property(result, "header", "from").lower().rstrip(".") == from_domain:
            return SenderCheck(True, from_domain, f"dmarc=pass header.from={from_domain}{by}")
        if method == "dkim":
            domain = _property(result, "header", "d") or _property(result, "header", "i").rpartition("@")[2]
            if domain:
                dkim_domains.append(domain.lower())
        if method == "spf":
            sender = _property(result, "smtp", "mailfrom")
            spf_domain = spf_domain or sender.rpartition("@")[2].lower()
    verdict = _aligned_pass(from_domain, dkim_domains=dkim_domains, spf_domain=spf_domain, resolver=resolver, by=by)
    if verdict is not None:
        return verdict
    return SenderCheck(False, from_domain, f"no aligned pass{by}: {', '.join(seen) or 'no results'}")
