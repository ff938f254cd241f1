"""A finished game's review by the search bot (docs/review.md): one ``GameReview``
per game, shared by everyone who asks for it, and one ``ReviewPosition`` per move
reviewed. A position's row is written once, by the task that searched it (unique
per review and ply), so a task run twice or two at once store it once."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class GameReview(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending (positions being searched)"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    game = models.OneToOneField("games.Game", on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    # Who started the review last (a failed one is started again by whoever asks
    # next). REVIEWS_PER_DAY counts each start (ReviewStart), not this.
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    # The search's budget per position (REVIEW_PLAYOUTS when it was first asked for):
    # every position of one review is searched with the same.
    playouts = models.PositiveIntegerField()
    # The moves to review: the game's move log is complete once it is over.
    positions_total = models.PositiveIntegerField()
    # When a position was last stored (or the review started): a pending review that
    # has not moved on for REVIEW_STALE_SECONDS had its task lost and is queued again.
    progressed_at = models.DateTimeField()
    # Why it failed, for the operators (the exception's type and the ply); "" otherwise.
    failure = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        indexes = [
            # The sweep's look-up of pending reviews that stopped moving on.
            models.Index(fields=["progressed_at"], condition=Q(status="pending"), name="review_pending_progress_idx"),
            # Formerly REVIEWS_PER_DAY's look-up; kept for the admin's list by requester.
            models.Index(fields=["requested_by", "started_at"], name="review_requester_started_idx"),
        ]
        verbose_name = "game review"

    def __str__(self) -> str:
        return f"review of {self.game_id} ({self.status})"


class ReviewStart(models.Model):
    """One start of a review by one account: its first, or a failed review started
    again. REVIEWS_PER_DAY counts these over the last 24 hours, so starting a
    failed review again and again costs a start each time."""

    review = models.ForeignKey(GameReview, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    started_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["user", "started_at"], name="review_start_user_at_idx")]
        verbose_name = "review start"

    def __str__(self) -> str:
        return f"review {self.review_id} started by {self.user_id} at {self.started_at:%Y-%m-%d %H:%M}"


class ReviewPosition(models.Model):
    """The search's verdict on one move: every seat's chance of winning before it
    (under the bot's best play) and after it, from the mover's information set."""

    review = models.ForeignKey(GameReview, on_delete=models.CASCADE, related_name="positions")
    ply = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    move = models.CharField(max_length=120)
    before = models.JSONField()
    after = models.JSONField()
    # The bot's preferred move in canonical text when it differs from the move played.
    best = models.CharField(max_length=120, blank=True, default="")
    drop = models.FloatField()
    # The search's time for this position, summed into the review's run time.
    seconds = models.FloatField(default=0.0)

    class Meta:
        ordering = ["review", "ply"]
        verbose_name = "reviewed position"
        constraints = [models.UniqueConstraint(fields=["review", "ply"], name="review_position_unique_ply")]

    def __str__(self) -> str:
        return f"{self.review_id} #{self.ply}"
