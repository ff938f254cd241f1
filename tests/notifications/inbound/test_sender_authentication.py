"""notifications.inbound.authentication: DMARC-aligned DKIM or SPF, checked by
the receiver itself against a zone of the tests' own, or believed from the
topmost Authentication-Results header of the trusted authserv-id. No database."""

from __future__ import annotations

import pytest
from tests.notifications.inbound.sender_helpers import AUTHSERV_ID, FakeZone, dkim_signed, publish_key, results_header

from notifications.inbound.authentication import (
    SenderCheck,
    aligned,
    dmarc_record,
    organizational_domain,
    sender_from_results,
    sender_verify,
)

MESSAGE = (
    b"From: Bob <bob@example.com>\r\nTo: play+12-abc@reply.splendor.test\r\nSubject: Re: Your turn\r\n"
    b"Message-ID: <r1@example.com>\r\nContent-Type: text/plain\r\n\r\ntake WUG\r\n"
)
CLIENT = "192.0.2.7"


def _verify(raw: bytes, zone: FakeZone, *, client: str = "203.0.113.50", mail_from: str = "bob@example.com") -> SenderCheck:
    return sender_verify(raw, client_ip=client, helo="mail.example.com", mail_from=mail_from, resolver=zone)


def test_a_message_signed_by_the_from_domain_is_authenticated() -> None:
    check = _verify(dkim_signed(MESSAGE, "example.com"), publish_key(FakeZone(), "example.com"))
    assert check.authenticated and check.domain == "example.com"
    assert "dkim=pass header.d=example.com" in check.detail


def test_a_message_with_no_signature_and_no_spf_record_is_not() -> None:
    check = _verify(MESSAGE, FakeZone())
    assert not check.authenticated


def test_a_signature_of_another_domain_does_not_speak_for_the_from_domain() -> None:
    zone = publish_key(FakeZone(), "evil.example")
    assert not _verify(dkim_signed(MESSAGE, "evil.example"), zone).authenticated


def test_a_signature_of_a_subdomain_is_aligned_unless_the_domain_asks_for_strict_alignment() -> None:
    zone = publish_key(FakeZone(), "mail.example.com")
    signed = dkim_signed(MESSAGE, "mail.example.com")
    assert _verify(signed, zone).authenticated
    zone.add("_dmarc.example.com", "TXT", "v=DMARC1; p=reject; adkim=s")
    assert not _verify(signed, zone).authenticated


def test_a_message_changed_after_signing_is_not_authenticated() -> None:
    signed = dkim_signed(MESSAGE, "example.com").replace(b"take WUG", b"take RRR")
    assert not _verify(signed, publish_key(FakeZone(), "example.com")).authenticated


def test_a_from_changed_after_signing_is_not_authenticated() -> None:
    signed = dkim_signed(MESSAGE.replace(b"bob@example.com", b"carol@example.com"), "example.com")
    forged = signed.replace(b"carol@example.com", b"bob@example.com")
    assert not _verify(forged, publish_key(FakeZone(), "example.com")).authenticated


def test_a_signature_whose_key_cannot_be_looked_up_is_not_a_pass() -> None:
    zone = publish_key(FakeZone(), "example.com")
    zone.failing.add("s2026._domainkey.example.com")
    assert not _verify(dkim_signed(MESSAGE, "example.com"), zone).authenticated
    assert not _verify(dkim_signed(MESSAGE, "example.com"), FakeZone()).authenticated


def test_a_signature_that_covers_only_part_of_the_body_is_not_a_pass() -> None:
    signed = dkim_signed(MESSAGE, "example.com", length=True)
    assert b" l=" in signed or b";l=" in signed
    assert not _verify(signed, publish_key(FakeZone(), "example.com")).authenticated


def test_an_spf_pass_for_the_from_domain_from_its_own_servers_is_authenticated() -> None:
    zone = FakeZone().add("example.com", "TXT", "v=spf1 ip4:192.0.2.0/24 -all")
    check = _verify(MESSAGE, zone, client=CLIENT)
    assert check.authenticated and "spf=pass" in check.detail
    assert not _verify(MESSAGE, zone, client="203.0.113.9").authenticated


def test_an_spf_pass_for_the_forgers_own_envelope_domain_is_not_aligned() -> None:
    zone = FakeZone().add("evil.example", "TXT", "v=spf1 ip4:192.0.2.0/24 -all")
    assert not _verify(MESSAGE, zone, client=CLIENT, mail_from="eve@evil.example").authenticated


def test_spf_follows_includes_and_mx_through_the_resolver() -> None:
    zone = FakeZone().add("example.com", "TXT", "v=spf1 include:_spf.example.net mx -all")
    zone.add("_spf.example.net", "TXT", "v=spf1 ip4:198.51.100.0/24 ~all")
    zone.add("example.com", "MX", "10 mx1.example.com").add("mx1.example.com", "A", "192.0.2.7")
    assert _verify(MESSAGE, zone, client="198.51.100.20").authenticated
    assert _verify(MESSAGE, zone, client=CLIENT).authenticated


def test_an_spf_pass_is_not_aligned_when_the_domain_asks_for_strict_alignment() -> None:
    raw = MESSAGE.replace(b"bob@example.com", b"bob@mail.example.com", 1)
    zone = FakeZone().add("example.com", "TXT", "v=spf1 ip4:192.0.2.0/24 -all")
    assert _verify(raw, zone, client=CLIENT).authenticated
    zone.add("_dmarc.example.com", "TXT", "v=DMARC1; p=none; aspf=s")
    assert not _verify(raw, zone, client=CLIENT).authenticated


def test_two_from_addresses_are_never_authenticated() -> None:
    raw = dkim_signed(MESSAGE.replace(b"From: Bob <bob@example.com>", b"From: bob@example.com, eve@evil.example"),
                      "example.com")  # fmt: skip
    assert not _verify(raw, publish_key(FakeZone(), "example.com")).authenticated


def test_the_dmarc_record_is_looked_up_at_the_domain_then_its_organisational_domain() -> None:
    zone = FakeZone().add("_dmarc.example.com", "TXT", "v=DMARC1; p=quarantine; adkim=s; aspf=r")
    assert (dmarc_record("mail.example.com", zone).adkim, dmarc_record("mail.example.com", zone).aspf) == ("s", "r")
    assert [name for name, _ in zone.asked[:2]] == ["_dmarc.mail.example.com", "_dmarc.example.com"]


def test_a_dmarc_record_that_cannot_be_looked_up_makes_alignment_strict() -> None:
    zone = FakeZone()
    zone.failing.add("_dmarc.example.com")
    assert (dmarc_record("example.com", zone).adkim, dmarc_record("example.com", zone).aspf) == ("s", "s")


def test_several_dmarc_records_are_none() -> None:
    zone = FakeZone().add("_dmarc.example.com", "TXT", "v=DMARC1; p=reject; adkim=s", "v=DMARC1; p=none; adkim=s")
    assert not dmarc_record("example.com", zone).found


def test_alignment_compares_organisational_domains_or_whole_names() -> None:
    assert organizational_domain("a.b.example.co.uk") == "example.co.uk"
    assert aligned("mail.example.co.uk", "example.co.uk", "r")
    assert not aligned("mail.example.co.uk", "example.co.uk", "s")
    assert not aligned("example.co.uk", "other.co.uk", "r")


# --- Authentication-Results of the trusted host ------------------------------------------------


def _believed(*headers: bytes, zone: FakeZone | None = None, authserv_id: str = AUTHSERV_ID) -> bool:
    check = sender_from_results(b"".join(headers) + MESSAGE, authserv_id=authserv_id, resolver=zone or FakeZone())
    return check.authenticated


def test_a_dmarc_pass_for_the_from_domain_from_the_trusted_host_is_believed() -> None:
    assert _believed(results_header("dkim=pass header.d=example.com; dmarc=pass (p=none) header.from=example.com"))


def test_results_of_another_authserv_id_are_ignored() -> None:
    assert not _believed(results_header("dmarc=pass header.from=example.com", authserv_id="mx.evil.example"))


def test_without_a_trusted_authserv_id_nothing_is_believed() -> None:
    assert not _believed(results_header("dmarc=pass header.from=example.com"), authserv_id="")


def test_only_the_topmost_header_of_the_trusted_host_is_believed() -> None:
    real = results_header("dmarc=fail header.from=example.com")
    forged = results_header("dmarc=pass header.from=example.com")
    assert not _believed(real, b"Received: from evil.example\r\n", forged)
    assert _believed(forged, real)  # the order a genuine pass would have


def test_a_pass_for_another_from_domain_is_not_believed() -> None:
    assert not _believed(results_header("dmarc=pass header.from=evil.example"))


def test_an_aligned_dkim_or_spf_pass_from_the_trusted_host_is_believed() -> None:
    assert _believed(results_header("dkim=pass header.d=mail.example.com"))
    assert _believed(results_header("spf=pass smtp.mailfrom=bob@example.com"))
    assert not _believed(results_header("dkim=pass header.d=evil.example; spf=softfail smtp.mailfrom=example.com"))
    zone = FakeZone().add("_dmarc.example.com", "TXT", "v=DMARC1; p=reject; adkim=s")
    assert not _believed(results_header("dkim=pass header.d=mail.example.com"), zone=zone)


@pytest.mark.parametrize("value", ["", ";;;", "mx.splendor.test; dkim", "mx.splendor.test; dmarc=pass header.from"])
def test_a_header_that_does_not_parse_is_no_pass(value: str) -> None:
    assert not _believed(f"Authentication-Results: {value}\r\n".encode())
