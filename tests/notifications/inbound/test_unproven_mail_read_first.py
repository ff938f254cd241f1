"""Mail that is not proven to come from its sender (no DKIM signature or aligned
SPF pass, docs/email.md "Who is believed") is read before anything is asked:
what changes nothing (a typo, an illegal move, a turn that has passed, ``moves``)
is answered at once, with no code, at the account's address, saying that the
email was not proven to be theirs; only a command that would act asks for a
code. Past the hour's codes the player is told once when codes work again.

Personas: alice and bob play (in Italian, or alice alone in Latvian);
eve@evil.example is nobody's address.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from tests.factories import seat_to_move
from tests.notifications.email_helpers import start_game
from tests.notifications.inbound.mail_helpers import answer, receive, reply_bytes

from accounts.models import Player
from games.models import Game, Move, Vacation
from notifications.inbound.commands import CODE_ALPHABET
from notifications.inbound.reply_tokens import reply_token_for
from notifications.models import InboundMessage, Notification, PendingConfirmation

pytestmark = pytest.mark.django_db

Status = InboundMessage.Status
SERVICE = "new@reply.splendor.test"
CODE = re.compile(rf"confirm ([{CODE_ALPHABET}]{{4}}-[{CODE_ALPHABET}]{{4}}-[{CODE_ALPHABET}]{{4}})")
NOT_PROVEN_IT = "Non è stato possibile dimostrare che la tua email venga da te"


def speaks(user: Any, language: str, time_zone: str = "UTC") -> Any:
    Player.objects.filter(user=user).update(language=language, time_zone=time_zone)
    user.player.refresh_from_db()
    return user


def turn_email(user: Any) -> Any:
    """The newest email to ``user`` about their seat (it has the seat's reply address)."""
    return [m for m in mail.outbox if user.email in m.to and m.reply_to and "+" in m.reply_to[0]][-1]


def unproven(message: Any, sender: str, body: str, **kwargs: Any) -> bytes:
    return reply_bytes(message, sender=sender, body=body, authenticated=False, **kwargs)


def answered_at_once(commit: Any, player: Any, raw: bytes, kind: str) -> tuple[InboundMessage, Any]:
    """Deliver ``raw``: it is answered with one email of ``kind``, to the player
    alone, with no code made or shown."""
    codes, before = PendingConfirmation.objects.count(), len(mail.outbox)
    inbound = receive(commit, raw)
    assert inbound is not None
    sent = mail.outbox[before:]
    assert [m.to for m in sent] == [[player.email]], inbound.outcome
    reply = answer(player, kind)
    assert sent == [reply]
    assert PendingConfirmation.objects.count() == codes and not CODE.search(str(reply.body))
    return inbound, reply


def test_an_italian_player_without_dkim_gets_each_refusal_at_once_and_a_code_only_for_a_legal_move(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    speaks(alice, "it")
    speaks(bob, "it")
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    first_turn = turn_email(player)

    # A typo in the command word: nothing to read.
    inbound, reply = answered_at_once(commit, player, unproven(first_turn, player.email, "prendii WUG"), "reply_refused")
    assert inbound.status == Status.REFUSED
    assert NOT_PROVEN_IT in reply.body and "Nella tua email non c'è nessun comando" in reply.body, reply.body

    # A move the rules forbid: its rule id, in Italian words.
    inbound, reply = answered_at_once(commit, player, unproven(first_turn, player.email, "compra 1a"), "reply_refused")
    assert inbound.status == Status.REFUSED and inbound.outcome.startswith("illegal_move:")
    assert NOT_PROVEN_IT in reply.body and "Non è stato possibile farlo." in reply.body
    assert re.search(r"\(regola B-[A-Z0-9-]+\)", reply.body), reply.body

    # "mosse": the legal moves, answered.
    inbound, reply = answered_at_once(commit, player, unproven(first_turn, player.email, "mosse"), "reply_board")
    assert inbound.status == Status.APPLIED
    assert NOT_PROVEN_IT in reply.body and f"Le tue mosse legali nella partita {game.pk}:" in reply.body
    assert "\n  riserva " in reply.body and "\n  prendi " in reply.body  # the moves, in Italian words

    assert not Move.objects.filter(game=game).exists() and not PendingConfirmation.objects.exists()

    # A legal move: exactly one code, and it plays once the code comes back.
    before = len(mail.outbox)
    inbound = receive(commit, unproven(first_turn, player.email, "prendi bianco blu verde"))
    assert inbound is not None and inbound.status == Status.CHALLENGED
    assert not Move.objects.filter(game=game).exists()
    assert [m.to for m in mail.outbox[before:]] == [[player.email]]
    challenge = answer(player, "reply_confirm")
    assert PendingConfirmation.objects.filter(user=player).count() == 1
    code = CODE.search(str(challenge.body))
    assert code is not None, challenge.body
    confirmed = receive(commit, unproven(challenge, player.email, f"confirm {code.group(1)}"))
    assert confirmed is not None and confirmed.status == Status.APPLIED, confirmed and confirmed.outcome
    assert list(Move.objects.filter(game=game).values_list("text", flat=True)) == ["take WUG"]

    # A reply to the email of that earlier turn: the turn has passed.
    inbound, reply = answered_at_once(commit, player, unproven(first_turn, player.email, "prendi rosso rosso"),
                                      "reply_refused")  # fmt: skip
    assert inbound.status == Status.REFUSED and inbound.outcome.startswith("stale_version:")
    assert NOT_PROVEN_IT in reply.body and "Quel turno è passato." in reply.body
    assert Move.objects.filter(game=game).count() == 1 and PendingConfirmation.objects.count() == 1


def test_not_your_turn_and_a_game_over_are_answered_at_once(clock: Any, commit: Any, alice: Any, bob: Any) -> None:
    game = start_game(commit, alice, bob)
    seat = next(seat for seat in game.seats.all() if seat.index != game.to_move)
    waiting, address = seat.user, f"play+{reply_token_for(seat=seat)}@reply.splendor.test"
    _, reply = answered_at_once(commit, waiting, unproven(None, waiting.email, "take RR", to=address), "reply_refused")
    assert "It is not your turn" in reply.body and "could not be proven to come from you" in reply.body
    mover = seat_to_move(game).user
    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED, to_move=None)
    _, reply = answered_at_once(commit, mover, unproven(turn_email(mover), mover.email, "take WUG"), "reply_refused")
    assert "This game is over" in reply.body


def test_the_sixth_code_in_an_hour_is_refused_with_when_codes_work_again_once_in_the_players_language(
    clock: Any, commit: Any, alice: Any
) -> None:
    speaks(alice, "lv", "Europe/Riga")

    def vacation() -> InboundMessage:
        inbound = receive(commit, unproven(None, alice.email, "atvaļinājums 2", to=SERVICE))
        assert inbound is not None
        return inbound

    for _ in range(5):
        assert vacation().status == Status.CHALLENGED
    assert PendingConfirmation.objects.count() == 5 and len(mail.outbox) == 5

    sixth = vacation()
    assert sixth.status == Status.DROPPED and len(mail.outbox) == 6
    told = answer(alice, "reply_codes_limit")
    assert told.to == [alice.email]
    assert told.subject == "Šajā stundā apstiprinājuma kodu vairs nebūs"
    assert "pēdējā stundā tev jau nosūtīti 5 kodi" in told.body, told.body
    # 09:00 UTC and an hour: codes work again at 10:01 UTC, 12:01 in Riga.
    assert "12:01 (Europe/Riga)" in told.body
    assert "DKIM" in told.body and not CODE.search(str(told.body))

    seventh = vacation()
    assert seventh.status == Status.DROPPED and "nothing sent" in seventh.outcome
    assert len(mail.outbox) == 6
    assert Notification.objects.filter(kind="reply_codes_limit").count() == 1

    clock.shift(timedelta(hours=1))  # 10:00 UTC: not yet
    assert vacation().status == Status.DROPPED and len(mail.outbox) == 6
    clock.shift(timedelta(minutes=1))  # 10:01 UTC, the time the player was given
    assert vacation().status == Status.CHALLENGED
    assert CODE.search(str(answer(alice, "reply_confirm").body))
    assert PendingConfirmation.objects.count() == 6 and not Vacation.objects.exists()


def test_an_authenticated_command_past_the_limit_is_told_when_without_the_words_on_signed_mail(
    clock: Any, commit: Any, alice: Any, settings: Any
) -> None:
    settings.INBOUND_CHALLENGES_PER_HOUR = 1
    for _ in range(2):
        receive(commit, reply_bytes(None, sender=alice.email, body="new base 2", to=SERVICE))
    told = answer(alice, "reply_codes_limit")
    assert "1 code has already been sent to you" in told.body
    assert "DKIM" not in told.body


def test_a_refusal_never_reaches_a_sender_who_is_not_the_seat_holder(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    before = len(mail.outbox)
    # Someone with the seat's reply address: the player is warned, the sender gets nothing.
    receive(commit, unproven(turn_email(player), "eve@evil.example", "take WUGG"))
    sent = mail.outbox[before:]
    assert [m.to for m in sent] == [[player.email]]
    assert sent == [answer(player, "reply_unauthorised")]
    assert not Notification.objects.filter(kind="reply_refused").exists()
    # The player's address forged, asking for answers elsewhere: the refusal goes
    # to the account's address, and nowhere else.
    before = len(mail.outbox)
    raw = unproven(turn_email(player), player.email, "take WUGG",
                   headers=("Reply-To: eve@evil.example", "Sender: eve@evil.example"))  # fmt: skip
    inbound = receive(commit, raw)
    assert inbound is not None and inbound.status == Status.REFUSED
    sent = mail.outbox[before:]
    assert [(m.to, m.cc, m.bcc) for m in sent] == [([player.email], [], [])]
    assert "could not be proven to come from you" in sent[0].body
    assert not any("eve@evil.example" in " ".join(m.recipients()) for m in mail.outbox)
    assert not PendingConfirmation.objects.exists() and not Move.objects.filter(game=game).exists()


def test_refusals_to_mail_not_proven_keep_the_hours_error_replies_limit(
    clock: Any, commit: Any, alice: Any, bob: Any, settings: Any
) -> None:
    settings.INBOUND_ERROR_REPLIES_PER_HOUR = 2
    game = start_game(commit, alice, bob)
    player = seat_to_move(game).user
    before = len(mail.outbox)
    for _ in range(4):
        receive(commit, unproven(turn_email(player), player.email, "hello there"))
    assert len(mail.outbox) - before == 2
    assert InboundMessage.objects.filter(outcome__startswith="error replies limit reached").count() == 2


SUGGESTED_IT = "Alcune mosse che potresti giocare:"


def suggested_in(message: Any) -> list[str]:
    """The moves an Italian turn email suggests, as it writes them."""
    lines = str(message.body).splitlines()
    start = lines.index(SUGGESTED_IT) + 1
    return [line.strip() for line in lines[start:] if line.startswith("  ")][:4]


@pytest.mark.slow
def test_a_whole_game_by_email_in_italian_without_dkim_one_code_a_move_and_refusals_at_once(
    clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    """Both players write from mail no host vouches for, copying a move their turn
    email suggests, in Italian words: each move needs exactly one code; a typo now
    and then is refused at once with none; the sixth code of an hour is answered
    once with when codes work again, and an hour later the game goes on."""
    speaks(alice, "it")
    speaks(bob, "it")
    game = start_game(commit, alice, bob)
    moves = refusals = limits = 0
    codes_this_hour = {alice.pk: 0, bob.pk: 0}  # the limit counts each account's codes
    while game.status == Game.Status.ACTIVE:
        player = seat_to_move(game).user
        turn = turn_email(player)
        if moves % 7 == 3:
            inbound, reply = answered_at_once(commit, player, unproven(turn, player.email, "prendii tutto"),
                                              "reply_refused")  # fmt: skip
            assert inbound.status == Status.REFUSED and NOT_PROVEN_IT in reply.body
            refusals += 1
        if codes_this_hour[player.pk] == 5:
            # The sixth code of the hour: told once, at the account's address, in Italian; then nothing.
            for attempt in range(2):
                before = len(mail.outbox)
                over = receive(commit, unproven(turn, player.email, suggested_in(turn)[0]))
                assert over is not None and over.status == Status.DROPPED
                told = mail.outbox[before:]
                assert [m.to for m in told] == ([[player.email]] if attempt == 0 else [])
                if attempt == 0:
                    body = str(told[0].body).replace("\n", " ")
                    assert told[0] == answer(player, "reply_codes_limit") and "DKIM" in body
                    assert "ti sono già stati inviati 5 codici" in body, body
            limits += 1
            clock.shift(timedelta(hours=1, minutes=1))
            codes_this_hour = dict.fromkeys(codes_this_hour, 0)
        suggested = suggested_in(turn)
        written = next((text for text in suggested if text.startswith("compra ")), suggested[0])
        codes = PendingConfirmation.objects.count()
        asked = receive(commit, unproven(turn, player.email, written))
        assert asked is not None and asked.status == Status.CHALLENGED, (written, asked and asked.outcome)
        assert PendingConfirmation.objects.count() == codes + 1
        code = CODE.search(str(answer(player, "reply_confirm").body))
        assert code is not None
        codes_this_hour[player.pk] += 1
        confirmed = receive(commit, unproven(answer(player, "reply_confirm"), player.email, f"conferma {code.group(1)}"))
        assert confirmed is not None and confirmed.status == Status.APPLIED, (written, confirmed and confirmed.outcome)
        moves += 1
        game.refresh_from_db()
        assert Move.objects.filter(game=game).count() == moves, written
        assert moves < 300, "the game did not end"
    assert game.status == Game.Status.FINISHED
    assert refusals > 3 and limits > 3
    # Each played move needed exactly one code; the limit was told once per player and hour.
    assert PendingConfirmation.objects.count() >= moves
    assert Notification.objects.filter(kind="reply_codes_limit").count() == limits
