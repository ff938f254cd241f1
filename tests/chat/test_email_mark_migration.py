"""chat/migrations/0002_email_mark_by_line_id: each reader's mark starts where the
lines of their last game email about the game ended, so no line already emailed
goes again and none written since is skipped."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("chat", "0001_initial")]
AFTER = [("chat", "0002_email_mark_by_line_id")]


@pytest.mark.django_db(transaction=True)
def test_each_readers_mark_starts_after_the_last_lines_their_email_carried() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    apps = executor.loader.project_state(BEFORE).apps
    User, Game, ChatEmailed = (
        apps.get_model(app, name) for app, name in (("auth", "User"), ("games", "Game"), ("chat", "ChatEmailed"))
    )
    alice = User.objects.create(username="alice")
    bob = User.objects.create(username="bob")
    game = Game.objects.create(seat_count=2, created_by_id=alice.pk, status="active", to_move=0)
    ChatEmailed.objects.create(notification_id=1, user_id=bob.pk, game=game, after_id=0, up_to_id=4)
    ChatEmailed.objects.create(notification_id=2, user_id=bob.pk, game=game, after_id=4, up_to_id=9)
    ChatEmailed.objects.create(notification_id=3, user_id=alice.pk, game=game, after_id=0, up_to_id=7)

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    apps = executor.loader.project_state(AFTER).apps
    ChatEmailMark = apps.get_model("chat", "ChatEmailMark")
    marks = dict(ChatEmailMark.objects.filter(game_id=game.pk).values_list("user_id", "last_mailed_id"))
    assert marks == {bob.pk: 9, alice.pk: 7}
    assert not ChatEmailMark.objects.exclude(carrying_notification_id=None).exists()
    call_command("migrate", verbosity=0)  # leave the database at the latest state for the next test
