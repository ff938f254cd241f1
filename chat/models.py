"""Table talk: the messages of a game's two threads, each person's choices about a
game's chat, the reports players make, and how far each person's game email has
carried the lines."""

from __future__ import annotations

from django.conf import settings
from django.db import models

# The longest message, in characters (docs/chat.md, "Table talk").
MAX_MESSAGE_LENGTH = 500
MAX_REPORT_REASON_LENGTH = 500


class ChatMessage(models.Model):
    """One line of table talk. The text is kept as written (control characters
    removed); a moderator may hide it (the text stays for the moderation log's
    readers, in the admin, and is shown to nobody else), and erasing its author's
    account blanks it for good."""

    class Thread(models.TextChoices):
        PLAYERS = "players"
        SPECTATORS = "spectators"

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    thread = models.CharField(max_length=16, choices=Thread.choices, default=Thread.PLAYERS)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # The author's seat when written (None: a spectator).
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    text = models.TextField(max_length=MAX_MESSAGE_LENGTH)
    created_at = models.DateTimeField(db_index=True)
    # Hidden by a moderator (the reason is in the game's moderation log too).
    hidden_at = models.DateTimeField(null=True, blank=True)
    hidden_by_id = models.IntegerField(null=True, blank=True, help_text="The moderator (a user id).")
    hidden_reason = models.TextField(blank=True, default="")
    # The author's account was erased: the text is gone.
    author_erased = models.BooleanField(default=False)

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["game", "thread", "id"], name="chat_message_thread_idx"),
            models.Index(fields=["author", "created_at"], name="chat_message_author_idx"),
        ]

    def __str__(self) -> str:
        return f"chat message {self.pk} in game {self.game_id}"

    @property
    def is_hidden(self) -> bool:
        return self.hidden_at is not None


class ChatPreference(models.Model):
    """One person's choices about one game's chat."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    # No chat of this game anywhere: not on the page, in email, the stream or webhooks.
    muted = models.BooleanField(default=False)
    # A player who does not want to read the spectators' thread of a public game.
    spectators_hidden = models.BooleanField(default=False)
    # An email for each new line instead of the lines in the next game email.
    email_each_line = models.BooleanField(default=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "game"], name="chat_preference_unique_user_game")]

    def __str__(self) -> str:
        return f"chat choices of {self.user_id} in game {self.game_id}"


class ChatReport(models.Model):
    """A player's report of a message to the moderators (one per message and reporter)."""

    message = models.ForeignKey(ChatMessage, on_delete=models.CASCADE, related_name="reports")
    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    reason = models.TextField(blank=True, default="", max_length=MAX_REPORT_REASON_LENGTH)
    created_at = models.DateTimeField()
    # Set when a moderator hid the message or decided to leave it.
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["message", "reporter"], name="chat_report_unique")]

    def __str__(self) -> str:
        return f"report of chat message {self.message_id} by {self.reporter_id}"


class ChatEmailMark(models.Model):
    """How far one person's game email has carried one game's table talk, by line
    id (never by time: a line written before a late email is in it, whatever the
    queue did). Every line up to ``last_mailed_id`` was sent to them, or passed over
    without sending (hidden, erased, their own, of a muted chat).

    One email at a time carries the lines after the mark: the one named in
    ``carrying_notification_id``, up to ``carrying_up_to_id``, claimed when it is
    rendered under this row's lock. The mark moves to them once that email is sent;
    if it is given up instead, the next game email takes them (chat.services)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    last_mailed_id = models.BigIntegerField(default=0)
    carrying_notification_id = models.BigIntegerField(null=True, blank=True)
    carrying_up_to_id = models.BigIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "game"], name="chat_email_mark_unique_user_game")]

    def __str__(self) -> str:
        return f"table talk mailed to {self.user_id} in game {self.game_id} up to line {self.last_mailed_id}"
