"""`manage.py smtpd` as a real process on a free port, against a database of
its own, set up as it runs behind a Postfix with OpenDKIM/OpenDMARC: the relay
(127.0.0.1 here) is trusted, and its Authentication-Results (RELAY_ID) are
believed. A reply sent with smtplib that the relay found authenticated plays
the move, and the sender's confirmation is written by the file email backend;
a forged From: with a valid token, or a forged token-less command, plays
nothing, and the owner gets a challenge whose answer plays. The receiver's
output names no token and no whole address."""

from __future__ import annotations

import smtplib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e_support.databases import migrated
from tests.e2e_support.processes import (
    PYTHON,
    Process,
    emails,
    headline_of,
    free_port,
    manage,
    message_id_of,
    site_env,
    text_of,
    wait_for,
)

pytestmark = [pytest.mark.e2e]

DOMAIN = "reply.splendor.test"
RELAY_ID = "mx.splendor.test"
MAKE_GAME = """
from accounts.services import player_create
from games import services
alice = player_create(username="alice", email="alice@example.com", display_name="Alice")
bob = player_create(username="bob", email="bob@example.com", display_name="Bob")
game = services.game_create(creator=alice, variant="base", seats=2, invited=[bob])
services.seat_join(game=game, user=bob)
print(game.pk)
"""


@pytest.fixture
def smtpd(tmp_path: Path) -> Iterator[tuple[Process, int, dict[str, str], Path]]:
    database = tmp_path / "db.sqlite3"
    env = site_env(
        tmp_path,
        database_url=f"sqlite:///{database}",
        broker_url="memory://",
        CELERY_TASK_ALWAYS_EAGER="true",
        EMAIL_REPLY_DOMAIN=DOMAIN,
        INBOUND_TRUSTED_RELAYS="127.0.0.1",
        INBOUND_AUTHSERV_ID=RELAY_ID,
    )
    migrated(env)
    port = free_port()
    process = Process("smtpd", [PYTHON, "manage.py", "smtpd", "--host", "127.0.0.1", "--port", str(port)], env,
                      tmp_path / "smtpd.log")  # fmt: skip
    process.start()
    try:
        wait_for(lambda: "smtpd listening" in process.output(), timeout=60, what="smtpd started", explain=process.tail)
        yield process, port, env, database
    finally:
        process.stop()


def test_a_reply_sent_over_smtp_plays_the_move_and_the_sender_is_told(
    smtpd: tuple[Process, int, dict[str, str], Path],
) -> None:
    process, port, env, database = smtpd
    game_id = manage(env, "shell", "-c", MAKE_GAME).strip().splitlines()[-1]
    mail_dir = Path(env["EMAIL_FILE_PATH"])
    turn = wait_for(
        lambda: next((m for m in emails(mail_dir) if headline_of(m).startswith("Your turn")), None),
        timeout=30, what="the first turn email",
    )  # fmt: skip
    player = str(turn["To"])
    reply = (
        f"Authentication-Results: {RELAY_ID}; dkim=pass header.d=example.com; dmarc=pass header.from=example.com\r\n"
        f"From: {player}\r\nTo: {turn['Reply-To']}\r\nSubject: Re: {turn['Subject']}\r\n"
        f"Message-ID: <e2e-reply@example.com>\r\nIn-Reply-To: {message_id_of(turn)}\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n\r\ntake white blue green\r\n\r\n"
        "On Mon, 2 Mar 2026, Splendor wrote:\r\n> buy 1-07\r\n"
    )
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        refused = client.sendmail(player, [str(turn["Reply-To"])], reply.encode())
        assert refused == {}
        with pytest.raises(smtplib.SMTPRecipientsRefused):
            client.sendmail(player, ["someone@example.org"], reply.encode())

    def moves() -> list[str]:
        with sqlite3.connect(database) as connection:
            rows = connection.execute("SELECT text FROM games_move WHERE game_id = ? ORDER BY ply", (game_id,))
            return [row[0] for row in rows]

    assert wait_for(moves, timeout=30, what="the move in the game", explain=process.tail) == ["take WUG"]
    confirmation = wait_for(
        lambda: next((m for m in emails(mail_dir) if str(m["In-Reply-To"]) == "<e2e-reply@example.com>"), None),
        timeout=30, what="the confirmation email", explain=process.tail,
    )  # fmt: skip
    # It threads under the reply, as a person's answer would.
    assert str(confirmation["To"]) == player and str(confirmation["Subject"]) == f"Re: {turn['Subject']}"
    assert str(confirmation["References"]).split()[-1] == "<e2e-reply@example.com>"
    assert "Your move take white, blue and green is played" in text_of(confirmation)


def _moves(database: Path, game_id: str) -> list[str]:
    with sqlite3.connect(database) as connection:
        rows = connection.execute("SELECT text FROM games_move WHERE game_id = ? ORDER BY ply", (game_id,))
        return [row[0] for row in rows]


def _challenge(mail_dir: Path, to: str, subject: str) -> tuple[Any, str]:
    message = wait_for(
        lambda: next((m for m in emails(mail_dir) if str(m["To"]) == to and subject in (str(m["Subject"]), headline_of(m))),
                     None),
        timeout=30, what=f"the challenge {subject!r}",
    )  # fmt: skip
    code = next(line.split()[1] for line in text_of(message).splitlines() if line.strip().startswith("confirm "))
    return message, code


def test_a_forged_from_with_a_valid_token_plays_nothing_and_the_owners_answer_to_the_challenge_plays(
    smtpd: tuple[Process, int, dict[str, str], Path],
) -> None:
    process, port, env, database = smtpd
    game_id = manage(env, "shell", "-c", MAKE_GAME).strip().splitlines()[-1]
    mail_dir = Path(env["EMAIL_FILE_PATH"])
    turn = wait_for(
        lambda: next((m for m in emails(mail_dir) if headline_of(m).startswith("Your turn")), None),
        timeout=30, what="the first turn email",
    )  # fmt: skip
    player, reply_address = str(turn["To"]), str(turn["Reply-To"])
    token = reply_address.split("+", 1)[1].split("@")[0]
    # The forger has the reply address (a forwarded turn email) and writes the player's From:;
    # the relay found nothing that proves it, so it wrote no pass.
    forged = (
        f"Authentication-Results: {RELAY_ID}; dkim=none; spf=fail smtp.mailfrom=evil.example; dmarc=fail "
        f"header.from=example.com\r\nFrom: {player}\r\nTo: {reply_address}\r\nSubject: Re: {turn['Subject']}\r\n"
        f"Message-ID: <e2e-forged@evil.example>\r\nIn-Reply-To: {message_id_of(turn)}\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n\r\ntake white blue green\r\n"
    )
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        assert client.sendmail("eve@evil.example", [reply_address], forged.encode()) == {}
    challenge, code = _challenge(mail_dir, player, f"Please confirm: play take white blue green in game {game_id}")
    assert _moves(database, game_id) == []
    assert not any(str(m["To"]) == "eve@evil.example" for m in emails(mail_dir))
    # The owner answers from their own client: no pass needed, the code alone acts.
    answer = (
        f"From: {player}\r\nTo: {challenge['Reply-To']}\r\nSubject: Re: {challenge['Subject']}\r\n"
        "Message-ID: <e2e-confirm@example.com>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
        f"confirm {code}\r\n"
    )
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        assert client.sendmail(player, [str(challenge["Reply-To"])], answer.encode()) == {}
    assert wait_for(lambda: _moves(database, game_id) or None, timeout=30, what="the move",
                    explain=process.tail) == ["take WUG"]  # fmt: skip
    assert token not in process.output() and player not in process.output()


def test_a_forged_vacation_without_a_token_pauses_nothing_and_the_owner_is_challenged(
    smtpd: tuple[Process, int, dict[str, str], Path],
) -> None:
    process, port, env, database = smtpd
    manage(env, "shell", "-c", MAKE_GAME)
    mail_dir = Path(env["EMAIL_FILE_PATH"])
    forged = (
        f"From: bob@example.com\r\nTo: new@{DOMAIN}\r\nSubject: away\r\nMessage-ID: <e2e-vacation@evil.example>\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n\r\nvacation 14\r\n"
    )
    for number in range(3):
        with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
            message = forged.replace("e2e-vacation@", f"e2e-vacation{number}@").encode()
            assert client.sendmail("eve@evil.example", [f"new@{DOMAIN}"], message) == {}
    _challenge(mail_dir, "bob@example.com", "Please confirm: pause your games for 14 days")

    def vacations() -> int:
        with sqlite3.connect(database) as connection:
            return int(connection.execute("SELECT COUNT(*) FROM games_vacation").fetchone()[0])

    def handled() -> int:
        with sqlite3.connect(database) as connection:
            return int(connection.execute("SELECT COUNT(*) FROM notifications_inboundmessage WHERE status != 'received'")
                       .fetchone()[0])  # fmt: skip

    wait_for(lambda: handled() == 3, timeout=30, what="the three messages handled", explain=process.tail)
    assert vacations() == 0
    assert "bob@example.com" not in process.output()
