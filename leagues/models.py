"""Leagues, their seasons and members, the games a season scheduled, and ratings.

A league's games are ordinary games (games.Game) created with the league's
settings; the link from a game to its season lives here (``LeagueGame``), since
games knows nothing of leagues. Ratings are kept per player and variant
(``PlayerRating``), with one ``RatingChange`` per rated game and player.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from chat.models import ChatMessage
from games.models import Game, ModerationEntry

DEFAULT_POINTS = {2: [3, 1], 3: [3, 1, 0], 4: [4, 2, 1, 0]}


def default_points() -> list[int]:
    return list(DEFAULT_POINTS[2])


class League(models.Model):
    name = models.CharField(max_length=100, unique=True)
    description = models.TextField(blank=True, default="")
    variant = models.CharField(max_length=16, choices=Game.Variant.choices, default=Game.Variant.BASE)
    players_per_game = models.PositiveSmallIntegerField(default=2)
    # The time control every game of the league is created with (games.services.game_create).
    move_seconds = models.PositiveIntegerField(default=72 * 3600)
    bank_seconds = models.PositiveIntegerField(default=0)
    bank_cap_seconds = models.PositiveIntegerField(default=0)
    # The timeout policy: the K-th timeout in a row forfeits the seat.
    forfeit_after = models.PositiveSmallIntegerField(default=3)
    rated = models.BooleanField(default=True)
    public = models.BooleanField(default=True)
    # Two-player leagues: every pair meets twice, once with each player first.
    double_round_robin = models.BooleanField(default=False)
    # Points by place: the first for first place, and so on; places past the list score 0.
    points_for_place = models.JSONField(default=default_points)
    # League rules. Stored and shown; see docs/leagues.md for what enforces them.
    vacation_allowed = models.BooleanField(default=True)
    pauses_allowed = models.BooleanField(default=True)
    longest_waiting_first = models.BooleanField(default=False)
    # The least share of turns (percent) a player must have played before the
    # deadline to be let in; null: anyone.
    min_reliability = models.PositiveSmallIntegerField(null=True, blank=True)
    # More active members than this at a season's start: divisions of this size, by rating.
    division_size = models.PositiveSmallIntegerField(null=True, blank=True)
    admins = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="leagues_administered")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(players_per_game__gte=2) & Q(players_per_game__lte=4), name="league_players_2_to_4"
            ),
            models.CheckConstraint(
                condition=Q(min_reliability__isnull=True) | Q(min_reliability__lte=100), name="league_reliability_pct"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        errors: dict[str, str] = {}
        points = self.points_for_place
        if not isinstance(points, list) or not all(isinstance(p, int) and not isinstance(p, bool) for p in points):
            errors["points_for_place"] = "A list of whole numbers, one for each place: [3, 1] or [4, 2, 1, 0]."
        elif len(points) > self.players_per_game:
            errors["points_for_place"] = f"A game has {self.players_per_game} places; you gave {len(points)} values."
        elif any(a < b for a, b in zip(points, points[1:])):
            errors["points_for_place"] = "A better place never scores fewer points than a worse one."
        if self.division_size is not None and self.division_size < self.players_per_game:
            errors["division_size"] = f"A division needs at least {self.players_per_game} players for one game."
        if errors:
            raise ValidationError(errors)


class Division(models.Model):
    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="divisions")
    # 1 is the top division.
    level = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=100)

    class Meta:
        ordering = ["league", "level"]
        constraints = [models.UniqueConstraint(fields=["league", "level"], name="division_unique_level")]

    def __str__(self) -> str:
        return f"{self.league}: {self.name}"


class Membership(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Asked to join"
        ACTIVE = "active", "Member"
        LEAVING = "leaving", "Asked to leave"
        LEFT = "left", "Left"
        REJECTED = "rejected", "Turned down"

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="league_memberships")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    requested_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # Suspended from this league by one of its admins (leagues.services.membership_suspend):
    # no joining it again, no new pairings in it; the games already running go on and
    # time out as usual. Apart from the status, so that leaving does not end it.
    suspended_at = models.DateTimeField(null=True, blank=True)
    suspended_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["league", "requested_at", "id"]
        constraints = [models.UniqueConstraint(fields=["league", "user"], name="membership_unique_user")]

    def __str__(self) -> str:
        return f"{self.user} in {self.league} ({self.status})"


class Season(models.Model):
    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="seasons")
    # 1, 2, ... within the league: the {n} of /leagues/{id}/seasons/{n}/.
    number = models.PositiveSmallIntegerField()
    starts_on = models.DateField()
    ends_on = models.DateField()
    # Set by leagues.services.season_start, when the games are created.
    started_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["league", "number"]
        constraints = [
            models.UniqueConstraint(fields=["league", "number"], name="season_unique_number"),
            models.CheckConstraint(condition=Q(ends_on__gte=models.F("starts_on")), name="season_ends_after_start"),
        ]

    def __str__(self) -> str:
        return f"{self.league}, season {self.number}"


class SeasonEntry(models.Model):
    """A player in a season: those active at its start, and late joiners."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="season_entries")
    division = models.ForeignKey(Division, on_delete=models.SET_NULL, null=True, blank=True, related_name="entries")
    joined_at = models.DateTimeField()
    late = models.BooleanField(default=False)
    # Left the league during the season: the games still running were forfeited.
    dropped_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["season", "id"]
        constraints = [models.UniqueConstraint(fields=["season", "user"], name="seasonentry_unique_user")]
        verbose_name_plural = "season entries"

    def __str__(self) -> str:
        return f"{self.user} in {self.season}"


class LeagueGame(models.Model):
    """A game that a season scheduled."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="league_games")
    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="league_game")
    division = models.ForeignKey(Division, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    round = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["season", "round", "id"]

    def __str__(self) -> str:
        return f"{self.season}, round {self.round}: {self.game_id}"


class PlayerRating(models.Model):
    """A player's Glicko-2 rating in one variant (leagues.glicko2)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings")
    variant = models.CharField(max_length=16, choices=Game.Variant.choices)
    rating = models.FloatField(default=1500.0)
    rd = models.FloatField(default=350.0)
    volatility = models.FloatField(default=0.06)
    games = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["user", "variant"]
        constraints = [models.UniqueConstraint(fields=["user", "variant"], name="playerrating_unique_variant")]

    def __str__(self) -> str:
        return f"{self.user} {self.variant}: {self.rating:.0f} ± {self.rd:.0f}"


class RatedGame(models.Model):
    """A game whose ratings were applied: written with its RatingChange rows, so
    that a repeated delivery of game_finished changes nothing."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, primary_key=True, related_name="+")
    rated_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.game_id} rated"


class RatingChange(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rating_changes")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes")
    variant = models.CharField(max_length=16, choices=Game.Variant.choices)
    rating_before = models.FloatField()
    rating_after = models.FloatField()
    rd_before = models.FloatField()
    rd_after = models.FloatField()
    volatility_before = models.FloatField()
    volatility_after = models.FloatField()
    # [{"user_id", "score", "counted"}]: the pairwise results, and whether each counted.
    results = models.JSONField(default=list)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [models.UniqueConstraint(fields=["game", "user"], name="ratingchange_unique_game_user")]
        indexes = [models.Index(fields=["user", "variant", "created_at"], name="ratingchange_user_idx")]

    def __str__(self) -> str:
        return f"{self.user} in {self.game_id}: {self.rating_before:.0f} -> {self.rating_after:.0f}"


class TimeoutCredit(models.Model):
    """A win counted for ``user`` because ``opponent`` timed out: at most one per
    pair and variant per month (``period``, "YYYY-MM"), so a player who times out
    of many games does not hand the same opponents rating again and again."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    opponent = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    variant = models.CharField(max_length=16, choices=Game.Variant.choices)
    period = models.CharField(max_length=7)
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "opponent", "variant", "period"], name="timeoutcredit_once_per_period"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} over {self.opponent} on time ({self.period})"


class LeagueScopedGame(Game):
    """The games of leagues, as the league admin sees them (leagues.admin): a
    proxy, so that the admin can list them apart from the site's game admin and
    scope them to the leagues the user administers."""

    class Meta:
        proxy = True
        verbose_name = "league game to moderate"
        verbose_name_plural = "league games to moderate"


class LeagueChatMessage(ChatMessage):
    """The table talk of league games, as the league admin sees it (leagues.admin):
    a proxy of chat.ChatMessage, so that its permission is the leagues' own and the
    admin lists only the lines of the games of the leagues the user administers."""

    class Meta:
        proxy = True
        verbose_name = "league chat message"
        verbose_name_plural = "league chat messages"


class LeagueModerationEntry(ModerationEntry):
    """The moderation log as a league admin sees it (leagues.admin): a proxy of
    games.ModerationEntry, listing only the entries about the games of the leagues
    the user administers and the warnings and suspensions of their members."""

    class Meta:
        proxy = True
        verbose_name = "league moderation entry"
        verbose_name_plural = "league moderation entries"
