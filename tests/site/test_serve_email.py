"""What `manage.py serve` prints of each email (splendor_site.console_email): a
framed block of the To, the Subject and the lines with a link or a code, apart
from the workers' lines, whose routine ones serve leaves out."""

from __future__ import annotations

import io

from django.core.mail import EmailMessage, EmailMultiAlternatives

from splendor_site.console_email import EmailBackend, email_block
from splendor_site.management.commands import serve
from tests.site.test_settings_from_environment import run_manage

CODE_EMAIL = EmailMessage(
    subject="Your Splendor by post verification code",
    body=(
        "Hello Carol,\n\n"
        "Your Splendor by post verification code for the username carol is:\n\n"
        "    K7M2P9QRST\n\n"
        "Signing up in a browser? Type it on the page that asked for it (http://127.0.0.1:8000/accounts/signup/verify/).\n"
        "If you did not sign up, ignore this email.\n"
    ),
    to=["carol@example.com"],
)


def test_the_block_holds_the_to_the_subject_and_only_the_lines_with_a_link_or_a_code() -> None:
    block = email_block(CODE_EMAIL).splitlines()
    assert block[0].startswith("+-- email ---") and block[-1].startswith("+-----")
    assert block[1:-1] == [
        "| To: carol@example.com",
        "| Subject: Your Splendor by post verification code",
        "| K7M2P9QRST",
        "| Signing up in a browser? Type it on the page that asked for it (http://127.0.0.1:8000/accounts/signup/verify/).",
    ]
    text = "\n".join(block)
    assert "Hello Carol" not in text and "ignore this email" not in text and "for the username carol" not in text


def test_a_turn_email_keeps_its_game_link_and_leaves_out_its_board_and_its_html() -> None:
    message = EmailMultiAlternatives(
        subject="Your turn in game g123",
        body="It is your turn.\n\nMarket:\n  1-07 1-12 1-30\nOpen the game: https://splendor.test/games/g123/?seat=abc\nTAKE WUG\n",
        to=["bob@example.com"],
    )
    message.attach_alternative("<p>https://splendor.test/hidden-in-html</p>", "text/html")
    block = email_block(message)
    assert "| Open the game: https://splendor.test/games/g123/?seat=abc\n" in block
    assert "Market" not in block and "1-07" not in block and "hidden-in-html" not in block
    assert "TAKE WUG" not in block  # two words: not a code


def test_the_backend_prints_each_message_as_a_block_set_apart_by_blank_lines() -> None:
    stream = io.StringIO()
    assert EmailBackend(stream=stream).send_messages([CODE_EMAIL, CODE_EMAIL]) == 2
    printed = stream.getvalue()
    assert printed == 2 * ("\n" + email_block(CODE_EMAIL) + "\n")


def test_serve_gives_its_processes_the_block_printer_and_quiet_routine_lines_unless_told_otherwise() -> None:
    chosen = serve.serve_environment({"PATH": "/usr/bin", "EMAIL_BACKEND": " "})
    assert chosen == {
        "PATH": "/usr/bin",
        "EMAIL_BACKEND": "splendor_site.console_email.EmailBackend",
        "WORKER_ROUTINE_LOG_LEVEL": "WARNING",
    }
    assert len(serve.serve_notice(chosen)) == 2
    told = {"EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend", "WORKER_ROUTINE_LOG_LEVEL": "INFO"}
    assert serve.serve_environment(told) == told
    assert serve.serve_notice(told) == []


def test_worker_routine_log_level_sets_the_level_of_beats_and_the_task_lines() -> None:
    shown = run_manage(
        "shell", "-c",
        "import logging; print([logging.getLogger(n).level for n in "
        "('celery.beat', 'celery.worker.strategy', 'celery.app.trace', 'notifications')])",
        WORKER_ROUTINE_LOG_LEVEL="warning",
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip().splitlines()[-1] == "[30, 30, 30, 0]"
    refused = run_manage("check", WORKER_ROUTINE_LOG_LEVEL="chatty")
    assert refused.returncode != 0 and "WORKER_ROUTINE_LOG_LEVEL='CHATTY'" in refused.stderr
