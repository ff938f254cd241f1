"""Tournaments, their entries, rounds, tables and games (docs/tournaments.md).

A tournament's games are ordinary games (games.Game) created with its time
control; the link from a game to its table lives here (``TournamentGame``), since
games knows nothing of tournaments. The players of the pairing core
(tournaments.pairing) are ``Entry`` ids, not accounts: an organiser may hand an
entry to someone else before a round (T-ADMIN-REPLACE), and the newcomer takes
its place in the standings.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q

from games.models import Game
from leagues.models import League


def new_tournament_seed() -> str:
    return secrets.token_hex(16)


class Tournament(models.Model):
    class Format(models.TextChoices):
        SWISS = "swiss", "Swiss"
        KNOCKOUT = "knockout", "Knockout"

    class Status(models.TextChoices):
        OPEN = "open", "Open for entries"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"
        CANCELLED = "cancelled", "Cancelled"

    class Rhythm(models.TextChoices):
        # T-RHYTHM-ENDED: a round starts once every game of the previous one has ended.
        ENDED = "ended", "When the previous round has ended"
        # T-RHYTHM-SCHEDULE: round n starts at round_starts[n - 1] (and not before
        # the previous round has ended).
        SCHEDULE = "schedule", "On a schedule"

    # The permissions a league admin holds for their league's tournaments: they
    # join the "League admins" group's managed set (leagues.services.league_admins_group
    # reads this attribute of every model), and the admin's querysets keep them to
    # their own leagues' tournaments.
    league_admin_permissions = (
        "view_tournament",
        "change_tournament",
        "withdraw_entry",
        "replace_entry",
        "adjudicate_tournament_game",
        "view_entry",
        "view_tournamentround",
        "view_tournamenttable",
        "view_tournamentgame",
    )

    name = models.CharField(max_length=100)
    description = models.TextField(blank=True, default="")
    format = models.CharField(max_length=16, choices=Format.choices)
    variant = models.CharField(max_length=16, choices=Game.Variant.choices, default=Game.Variant.BASE)
    # Seats at a table: 2-4 for Swiss, 2 for knockout.
    seats = models.PositiveSmallIntegerField(default=2)
    # Swiss: the number of rounds. Knockout: rounds follow from the bracket.
    rounds = models.PositiveSmallIntegerField(null=True, blank=True)
    # Knockout: games in a match (odd).
    games_per_match = models.PositiveSmallIntegerField(default=1)
    # The time control of every game (games.services.game_create) and the graduated timeouts.
    move_seconds = models.PositiveIntegerField(default=72 * 3600)
    bank_seconds = models.PositiveIntegerField(default=0)
    bank_cap_seconds = models.PositiveIntegerField(default=0)
    forfeit_after = models.PositiveSmallIntegerField(default=3)
    rated = models.BooleanField(default=False)
    # A vacation pauses the tournament's games (False: their clocks run, as a league may choose).
    vacation_allowed = models.BooleanField(default=True)
    max_players = models.PositiveSmallIntegerField(default=16)
    # Open: anyone may join and anyone may watch; private: by invitation, and seen by
    # its entrants and organisers only.
    public = models.BooleanField(default=True)
    # The first round starts at starts_at (beat's tournaments.tasks.start_due), or when
    # an organiser starts it; null: only by an organiser.
    starts_at = models.DateTimeField(null=True, blank=True)
    rhythm = models.CharField(max_length=16, choices=Rhythm.choices, default=Rhythm.ENDED)
    # With the schedule rhythm: one ISO time per round (the first is starts_at's).
    round_starts = models.JSONField(default=list, blank=True)
    league = models.ForeignKey(League, on_delete=models.PROTECT, null=True, blank=True, related_name="tournaments")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    # Every draw of the pairing core comes from it: private until the tournament ends.
    seed = models.CharField(max_length=64, default=new_tournament_seed, editable=False)
    winner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(seats__gte=2) & Q(seats__lte=4), name="tournament_seats_2_to_4"),
            models.CheckConstraint(condition=Q(max_players__gte=2), name="tournament_two_players_at_least"),
        ]
        permissions = [("adjudicate_tournament_game", "Can adjudicate a tournament's game")]

    def __str__(self) -> str:
        return self.name

    def seed_int(self) -> int:
        return int(self.seed, 16) if self.seed else 0


class Entry(models.Model):
    class Status(models.TextChoices):
        INVITED = "invited", "Invited"
        ACTIVE = "active", "Playing"
        # Not paired again (T-WITHDRAW): left, withdrawn by an organiser, forfeited
        # twice, or out of a knockout; finished games still count for others.
        WITHDRAWN = "withdrawn", "Withdrawn"
        ELIMINATED = "eliminated", "Out of the knockout"

    class Reason(models.TextChoices):
        NONE = "", "-"
        LEFT = "left", "Left the tournament"
        WITHDRAWN = "withdrawn", "Withdrawn by an organiser"
        FORFEITS = "forfeits", "Forfeited two games"
        REPLACED = "replaced", "Replaced by an organiser"
        DECLINED = "declined", "Declined the invitation"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tournament_entries")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    reason = models.CharField(max_length=16, choices=Reason.choices, blank=True, default="")
    # The rating in the tournament's variant when it started (seeds and tiebreaks).
    rating = models.FloatField(default=1500.0)
    joined_at = models.DateTimeField()
    left_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "id"]
        verbose_name_plural = "entries"
        constraints = [models.UniqueConstraint(fields=["tournament", "user"], name="entry_unique_user")]
        permissions = [
            ("withdraw_entry", "Can withdraw a player from a tournament"),
            ("replace_entry", "Can replace a player of a tournament before a round"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.tournament}"


class TournamentFollow(models.Model):
    """Someone who follows a public tournament: its round and end events reach them."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="follows")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "user"], name="follow_unique_user")]

    def __str__(self) -> str:
        return f"{self.user} follows {self.tournament}"


class TournamentRound(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField()
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    # Swiss: the entry that sat out (T-SWISS-BYE), worth a first place.
    bye = models.ForeignKey(Entry, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="round_unique_number")]

    def __str__(self) -> str:
        return f"{self.tournament}, round {self.number}"


class TournamentTable(models.Model):
    """A Swiss table or a knockout match: its entries in seat order (the better
    seed first for a match), and, for a match, its winner once decided."""

    round = models.ForeignKey(TournamentRound, on_delete=models.CASCADE, related_name="tables")
    position = models.PositiveSmallIntegerField()
    entries = models.JSONField(default=list)
    winner = models.ForeignKey(Entry, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    # Why the match was decided: "" (played), "bye", "forfeit".
    decided_by = models.CharField(max_length=16, blank=True, default="")
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["round", "position"]
        constraints = [models.UniqueConstraint(fields=["round", "position"], name="table_unique_position")]

    def __str__(self) -> str:
        return f"{self.round}, table {self.position}"


class TournamentGame(models.Model):
    """A game a table played: one for a Swiss table, one or more for a match.
    ``entries`` are the table's entries in the order they joined the game (the
    seats' ``join_position``)."""

    table = models.ForeignKey(TournamentTable, on_delete=models.CASCADE, related_name="games")
    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="tournament_game")
    number = models.PositiveSmallIntegerField(default=1)
    entries = models.JSONField(default=list)

    class Meta:
        ordering = ["table", "number"]
        constraints = [models.UniqueConstraint(fields=["table", "number"], name="tournamentgame_unique_number")]

    def __str__(self) -> str:
        return f"{self.table}, game {self.number}: {self.game_id}"
