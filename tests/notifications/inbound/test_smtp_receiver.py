"""The built-in SMTP receiver over a real SMTP session (aiosmtpd in a thread,
smtplib as the sending server): it checks DKIM, SPF and DMARC alignment itself
against a zone of the tests' own, believes Authentication-Results only from a
trusted relay, and its log (aiosmtpd's own included) names no token and no
whole address."""

from __future__ import annotations

import smtplib
from collections.abc import Iterator
from typing import Any

import pytest
from django.core import mail
from tests.e2e_support.processes import free_port
from tests.notifications.email_helpers import start_game
from tests.notifications.inbound.mail_helpers import authentication_results, latest, reply_bytes
from tests.notifications.inbound.sender_helpers import FakeZone, dkim_signed, publish_key

from games.models import Game, Move, Seat
from notifications.management.commands.smtpd import receiver_start
from notifications.models import InboundMessage

# The receiver's thread and the sending test share the database: each test commits for real.
pytestmark = pytest.mark.django_db(transaction=True)

Status = InboundMessage.Status


@pytest.fixture
def zone() -> FakeZone:
    return FakeZone()


@pytest.fixture
def port(zone: FakeZone) -> Iterator[int]:
    number = free_port()
    controller = receiver_start(host="127.0.0.1", port=number, resolver=zone)
    try:
        yield number
    finally:
        controller.stop()


def _send(port: int, raw: bytes, *, mail_from: str, to: str) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        assert client.sendmail(mail_from, [to], raw) == {}


def _turn(commit: Any, alice: Any, bob: Any) -> tuple[Game, Any, Any]:
    game = start_game(commit, alice, bob)
    game.refresh_from_db()
    player = Seat.objects.select_related("user").get(game=game, index=game.to_move).user
    return game, player, latest(player, "Your turn")


def test_a_reply_signed_by_the_players_domain_plays(
    port: int, zone: FakeZone, commit: Any, alice: Any, bob: Any
) -> None:
    game, player, turn = _turn(commit, alice, bob)
    publish_key(zone, "example.com")
    raw = dkim_signed(reply_bytes(turn, sender=player.email, body="take WUG", authenticated=False), "example.com")
    _send(port, raw, mail_from=player.email, to=turn.reply_to[0])
    inbound = InboundMessage.objects.get()
    assert inbound.authenticated and inbound.authentication.startswith("dkim=pass header.d=example.com")
    assert inbound.status == Status.APPLIED, inbound.outcome
    assert list(Move.objects.filter(game=game).values_list("text", flat=True)) == ["take WUG"]


def test_an_spf_pass_of_the_players_domain_from_its_server_plays(
    port: int, zone: FakeZone, commit: Any, alice: Any, bob: Any
) -> None:
    game, player, turn = _turn(commit, alice, bob)
    zone.add("example.com", "TXT", "v=spf1 ip4:127.0.0.0/8 -all")
    _send(port, reply_bytes(turn, sender=player.email, body="take WUG", authenticated=False),
          mail_from=player.email, to=turn.reply_to[0])  # fmt: skip
    assert InboundMessage.objects.get().status == Status.APPLIED
    assert Move.objects.filter(game=game).count() == 1


def test_a_forged_from_with_a_valid_token_is_challenged_and_the_challenge_answered_plays(
    port: int, zone: FakeZone, commit: Any, alice: Any, bob: Any
) -> None:
    game, player, turn = _turn(commit, alice, bob)
    zone.add("example.com", "TXT", "v=spf1 ip4:192.0.2.0/24 -all")  # not the forger's server
    raw = reply_bytes(turn, sender=player.email, body="take WUG", authenticated=False)
    _send(port, raw, mail_from="eve@evil.example", to=turn.reply_to[0])
    assert InboundMessage.objects.get().status == Status.CHALLENGED
    assert not Move.objects.filter(game=game).exists()
    challenge = latest(player, "Please confirm: play take WUG")
    code = next(line.split()[1] for line in challenge.body.splitlines() if line.strip().startswith("confirm "))
    _send(port, reply_bytes(challenge, sender=player.email, body=f"confirm {code}", authenticated=False),
          mail_from=player.email, to=challenge.reply_to[0])  # fmt: skip
    assert list(Move.objects.filter(game=game).values_list("text", flat=True)) == ["take WUG"]


def test_results_handed_over_by_a_client_that_is_not_a_trusted_relay_are_not_believed(
    port: int, commit: Any, alice: Any, bob: Any, settings: Any
) -> None:
    settings.INBOUND_TRUSTED_RELAYS = []
    game, player, turn = _turn(commit, alice, bob)
    _send(port, reply_bytes(turn, sender=player.email, body="take WUG"), mail_from=player.email, to=turn.reply_to[0])
    assert InboundMessage.objects.get().status == Status.CHALLENGED
    assert not Move.objects.filter(game=game).exists()


def test_results_handed_over_by_a_trusted_relay_are_believed(
    port: int, commit: Any, alice: Any, bob: Any, settings: Any
) -> None:
    import ipaddress

    settings.INBOUND_TRUSTED_RELAYS = [ipaddress.ip_network("127.0.0.0/8")]
    game, player, turn = _turn(commit, alice, bob)
    _send(port, reply_bytes(turn, sender=player.email, body="take WUG"), mail_from=player.email, to=turn.reply_to[0])
    assert InboundMessage.objects.get().status == Status.APPLIED
    raw = reply_bytes(turn, sender=player.email, body="take RR", authenticated=False,
                      headers=(authentication_results(player.email, result="fail"),))  # fmt: skip
    _send(port, raw, mail_from=player.email, to=turn.reply_to[0])
    assert Move.objects.filter(game=game).count() == 1


def test_the_receiver_logs_no_token_and_no_whole_address(
    port: int, zone: FakeZone, commit: Any, alice: Any, bob: Any, caplog: Any, log_format: str
) -> None:
    game, player, turn = _turn(commit, alice, bob)
    publish_key(zone, "example.com")
    caplog.set_level("DEBUG")
    caplog.set_level("DEBUG", logger="mail.log")
    reply_to = str(turn.reply_to[0])
    token = reply_to.split("+", 1)[1].split("@")[0]
    raw = dkim_signed(reply_bytes(turn, sender=player.email, body="take WUG", authenticated=False), "example.com")
    _send(port, raw, mail_from=player.email, to=reply_to)
    _send(port, reply_bytes(turn, sender="eve@evil.example", body="take RR", authenticated=False),
          mail_from="eve@evil.example", to=reply_to)  # fmt: skip
    with pytest.raises(smtplib.SMTPRecipientsRefused):
        _send(port, raw, mail_from=player.email, to="someone@elsewhere.example")
    assert Move.objects.filter(game=game).count() == 1
    assert len(mail.outbox) > 2 and caplog.records
    for secret in (token, reply_to, player.email, "eve@evil.example", "someone@elsewhere.example"):
        assert secret not in caplog.text, secret
