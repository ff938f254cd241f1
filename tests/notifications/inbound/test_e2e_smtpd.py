"""`manage.py smtpd` as a real process on a free port, against a database of
its own: a reply sent with smtplib plays the move, and the sender's
confirmation is written by the file email backend."""

from __future__ import annotations

import smtplib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.e2e_support.processes import PYTHON, Process, emails, free_port, manage, message_id_of, site_env, wait_for

pytestmark = [pytest.mark.e2e]

DOMAIN = "reply.splendor.test"
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
    )
    manage(env, "migrate", "--verbosity", "0")
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
        lambda: next((m for m in emails(mail_dir) if str(m["Subject"]).startswith("Your turn")), None),
        timeout=30, what="the first turn email",
    )  # fmt: skip
    player = str(turn["To"])
    reply = (
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
    wait_for(
        lambda: any(str(m["Subject"]).startswith("Played take WUG") and str(m["To"]) == player for m in emails(mail_dir)),
        timeout=30, what="the confirmation email", explain=process.tail,
    )  # fmt: skip
