"""Games, seats, the move log, the outbox and idempotency records.

The seed and the move log are the truth about a game; ``Game.state`` is a cache
of the engine state that ``games.services.game_rebuild_state`` can recompute.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q

# No 0/1/i/l/o: ids are read aloud and typed from emails.
PUBLIC_ID_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"
PUBLIC_ID_LENGTH = 10
# The column's width: room to lengthen new ids later without a migration.
PUBLIC_ID_MAX_LENGTH = 16
_PUBLIC_ID_CHARACTERS = frozenset(PUBLIC_ID_ALPHABET)


def new_public_id() -> str:
    return "".join(secrets.choice(PUBLIC_ID_ALPHABET) for _ in range(PUBLIC_ID_LENGTH))


def new_seat_key() -> str:
    """A per-seat secret (see Seat.link_key and Seat.reply_key)."""
    return secrets.token_urlsafe(24)


def is_public_id(text: str) -> bool:
    """True when ``text`` is shaped like an id this server mints.

    Lookups by id check this first: anything else names no game, and some text
    (NUL) PostgreSQL refuses outright, which would make a typo a server error.
    """
    return 0 < len(text) <= PUBLIC_ID_MAX_LENGTH and _PUBLIC_ID_CHARACTERS.issuperset(text)


class Game(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "Open (waiting for players)"
        ACTIVE = "active", "Active"
        FINISHED = "finished", "Finished"
        ABORTED = "aborted", "Aborted"

    class Variant(models.TextChoices):
        BASE = "base", "Splendor"
        MARVEL = "marvel", "Splendor: Marvel"

    class Kind(models.TextChoices):
        REAL = "real", "A game between people"
        # Against the service's bots (Seat.bot_name), started at once.
        PRACTICE = "practice", "A practice game against bots"
        # A private copy of another game's position (sandbox_of), its hidden cards dealt again.
        SANDBOX = "sandbox", "A sandbox from another game's position"

    id = models.CharField(primary_key=True, max_length=PUBLIC_ID_MAX_LENGTH, default=new_public_id, editable=False)
    variant = models.CharField(max_length=16, choices=Variant.choices, default=Variant.BASE)
    # Practice games and sandboxes have no clock, email, webhook or reminder, count
    # in no profile or rating and are listed apart from real games (docs/api.md).
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.REAL)
    # The game whose position a sandbox was made from; nothing of it changes.
    sandbox_of = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="sandboxes"
    )
    seat_count = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="games_created"
    )
    # The time control (docs/api.md, "Clocks and timeouts"): stored in seconds. move_timeout_hours
    # is kept for older clients and reads: the whole hours of move_seconds.
    move_timeout_hours = models.PositiveIntegerField(default=72)
    move_seconds = models.PositiveIntegerField(default=72 * 3600)
    # Each seat's bank at the start, and the most it can grow to.
    bank_start_seconds = models.PositiveIntegerField(default=0)
    bank_cap_seconds = models.PositiveIntegerField(default=0)
    # The K-th timeout in a row forfeits the seat; the ones before it are played by the bot.
    forfeit_after = models.PositiveSmallIntegerField(default=3)
    # Every seat but the creator's was reserved for an invitee: one who declines
    # ends the game (games.services.seat_decline).
    invite_only = models.BooleanField(default=False)
    # Anyone may watch: the spectator view (observe as nobody) and, once it is
    # over, the replay. Other games show nothing to those without a seat.
    public = models.BooleanField(default=False)
    # Counts towards ratings when it ends (a league's games follow the league).
    rated = models.BooleanField(default=False)
    # The play order is the order the players joined (a knockout match's games
    # alternate who moves first); otherwise it is drawn from the seed at the start.
    seat_order_joined = models.BooleanField(default=False, db_default=False)
    # The rules of a league's games (leagues.services.season_start sets them from
    # the league): a vacation never pauses a game that does not allow it (its
    # clock runs), and a moderator cannot pause a game that allows no pauses
    # (a pause for the server always can).
    vacation_allowed = models.BooleanField(default=True)
    pauses_allowed = models.BooleanField(default=True)
    # Swept periodically by a timeout job (games.tasks.sweep_deadlines), never a long-ETA task:
    # a deadline that moves (a pause, an extension) then needs no task revoked.
    # NULL while the game is paused (see GamePause) or not running.
    deadline_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # When the clock of the turn to play started: the deadline is this + move_seconds
    # + the bank of the seat to move (moved on when a pause ends).
    turn_started_at = models.DateTimeField(null=True, blank=True)
    # While paused: the time that was left on the clock of the seat to move.
    clock_remaining = models.DurationField(null=True, blank=True)
    # Decimal text of a 256-bit integer. Secret until the game is over.
    seed = models.CharField(max_length=80, blank=True, default="")
    seed_commitment = models.CharField(max_length=64, blank=True, default="")
    # engine.to_dict() of the state a game started from when no seed dealt it (a
    # sandbox): with the move log, the truth about it. Server-side only.
    start_state = models.JSONField(null=True, blank=True)
    # engine.to_dict() of the current state, hidden information included: server-side only.
    state = models.JSONField(null=True, blank=True)
    # Seat index to play, denormalised from the state so "my turn" is one query.
    to_move = models.PositiveSmallIntegerField(null=True, blank=True)
    version = models.PositiveIntegerField(default=0)
    result = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["status", "-created_at"], name="game_status_created_idx"),
            models.Index(fields=["kind", "status"], name="game_kind_status_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(seat_count__gte=2) & Q(seat_count__lte=4), name="game_seat_count_2_to_4"
            ),
        ]
        # Checked by the moderation actions in the admin (games.admin), with a
        # hook a scoped admin (a league's) can narrow.
        permissions = [("moderate_game", "Can moderate games (abort, adjudicate, extend, pause, replace seats)")]

    def __str__(self) -> str:
        return f"{self.id} ({self.get_variant_display()}, {self.status})"

    @property
    def is_over(self) -> bool:
        return self.status in (self.Status.FINISHED, self.Status.ABORTED)

    @property
    def is_practice(self) -> bool:
        """A practice game or a sandbox: nobody's clock, mail, webhooks or record."""
        return self.kind != self.Kind.REAL


class Seat(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="seats")
    # Position in play order; assigned by the seeded shuffle at start.
    index = models.PositiveSmallIntegerField(null=True, blank=True)
    # 0-based order in which players joined: the input of engine.seat_permutation.
    join_position = models.PositiveSmallIntegerField(null=True, blank=True)
    # An invited seat is reserved for its user and empty (joined_at NULL) until they join.
    invited = models.BooleanField(default=False)
    joined_at = models.DateTimeField(null=True, blank=True)
    # A seat that left the game: by resigning, or (timed_out too) on time.
    resigned = models.BooleanField(default=False)
    resigned_at = models.DateTimeField(null=True, blank=True)
    timed_out = models.BooleanField(default=False)
    # The seat's time bank (see Game.bank_cap_seconds) and its timeouts in a row.
    bank_seconds = models.PositiveIntegerField(default=0)
    consecutive_timeouts = models.PositiveSmallIntegerField(default=0)
    # A moderator handed the seat to the built-in greedy bot (games.moderation):
    # the server plays its turns at once; the user stays recorded as the seat's.
    bot = models.BooleanField(default=False)
    # In a practice game or a sandbox: the engine bot (engine.bots.BOTS) that plays
    # this seat, held by one of the service's bot accounts; "" for a person's seat.
    # Its turns are played by the task games.tasks.play_bots, never in a request.
    bot_name = models.CharField(max_length=16, blank=True, default="")
    # Signed per-seat links (games.links) are made with this key: rotating it
    # revokes every link sent so far for this seat.
    link_key = models.CharField(max_length=64, default=new_seat_key)
    # The secret behind the seat's email reply address (play by email); its own
    # key so that the page link and the reply address are revoked apart.
    reply_key = models.CharField(max_length=64, default=new_seat_key)
    # The seat's conditional moves (docs/plans.md): lines {"if", "then", "next"} in
    # canonical notation, played by games.services.turns.autoplay. Seen only by the
    # seat's holder until the game is over.
    plan = models.JSONField(default=list, blank=True)
    # What the plan did since it was last stored (played a line, or was cleared and
    # why), newest last, for its owner alone.
    plan_outcomes = models.JSONField(default=list, blank=True)
    # The seat holder's private notes (docs/api.md, "Notes"): one on the game and
    # some on moves, {"<ply>": "text"}. Read and written by the holder alone, kept
    # after the game, never exported, streamed or shown to anyone else.
    note = models.TextField(blank=True, default="")
    move_notes = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["index", "join_position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="seat_unique_user_per_game"),
            models.UniqueConstraint(
                fields=["game", "index"], condition=Q(index__isnull=False), name="seat_unique_index_per_game"
            ),
        ]

    def __str__(self) -> str:
        where = f"seat {self.index}" if self.index is not None else "unseated"
        return f"{self.user} in {self.game_id} ({where})"

    @property
    def has_joined(self) -> bool:
        return self.joined_at is not None


class PlayedBy(models.TextChoices):
    PLAYER = "player", "The seat's player"
    # The built-in greedy bot, for a player who let the deadline pass but is still in the game.
    BOT = "bot", "The bot, on a timeout"
    # The server's own move: a quiet move for a seat that left, or a forced pass.
    SERVICE = "service", "The server"


class Move(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="moves")
    ply = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    text = models.CharField(max_length=120)
    # The card drawn by a blind reserve: only the seat's own player may see it.
    private_card = models.CharField(max_length=16, blank=True, default="")
    # Played by the server for a seat that resigned (see docs/api.md, "Resigning").
    automatic = models.BooleanField(default=False)
    # Who chose the move; automatic is true unless it is the player.
    played_by = models.CharField(max_length=8, choices=PlayedBy.choices, default=PlayedBy.PLAYER)
    # Played from the seat's plan (docs/plans.md): private until the game is over,
    # when the export shows it.
    from_plan = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "ply"]
        constraints = [models.UniqueConstraint(fields=["game", "ply"], name="move_unique_ply_per_game")]

    def __str__(self) -> str:
        return f"{self.game_id} #{self.ply} seat {self.seat}: {self.text}"


class GameEvent(models.Model):
    """Outbox row, written in the same transaction as the change it reports: the
    one way news leaves the games app. docs/events.md lists the kinds and their
    payloads, which name people by user id and never carry hidden information.

    Each consumer (email, webhooks, ratings, ...) claims each event for itself
    with a ``GameEventClaim`` row, so one consumer's progress never hides an
    event from another.
    """

    class Kind(models.TextChoices):
        GAME_CREATED = "game_created"
        SEAT_JOINED = "seat_joined"
        GAME_STARTED = "game_started"
        MOVE_PLAYED = "move_played"
        SEAT_RESIGNED = "seat_resigned"
        GAME_FINISHED = "game_finished"
        SEAT_DECLINED = "seat_declined"
        SEAT_LEFT = "seat_left"
        GAME_ABORTED = "game_aborted"
        TURN_TIMED_OUT = "turn_timed_out"
        CLOCK_PAUSED = "clock_paused"
        CLOCK_RESUMED = "clock_resumed"
        # Moderation (games.moderation): each also has a ModerationEntry.
        GAME_ADJUDICATED = "game_adjudicated"
        DEADLINE_EXTENDED = "deadline_extended"
        SEAT_REPLACED = "seat_replaced"
        # Table talk: a message in the game's chat. It changes nothing in the game,
        # so it carries the version as it stands (GameWrites.note) and a move
        # chosen on that version is still accepted.
        CHAT = "chat"
        # Tournaments' own (tournaments.extension says who hears of them): a round
        # started, on its first game; the tournament ended, on its last game.
        TOURNAMENT_ROUND_STARTED = "tournament_round_started"
        TOURNAMENT_FINISHED = "tournament_finished"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=32, choices=Kind.choices)
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.kind} {self.game_id} {self.payload.get('version', '')}"

    def public_data(self) -> dict[str, Any]:
        """What webhooks and the event stream send of the event: the game's id, its
        version after the change, then the payload (public: people by user id, no
        board, no deck, no blind-reserved card)."""
        payload: dict[str, Any] = dict(self.payload) if isinstance(self.payload, dict) else {}
        data = {"game_id": self.game_id, "version": payload.pop("version", None), **payload}
        data["game_id"] = self.game_id
        return data


class GameEventClaim(models.Model):
    """One consumer's hold on one outbox event.

    The row is unique per (event, consumer): inserting it is the claim, and only
    one of several racing workers can. ``done_at`` is set once the consumer has
    handled the event; a claim left unfinished past its lease is retaken with a
    conditional UPDATE (see ``games.services.game_event_claim``).
    """

    event = models.ForeignKey(GameEvent, on_delete=models.CASCADE, related_name="claims")
    consumer = models.CharField(max_length=64)
    claimed_at = models.DateTimeField()
    done_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=1)
    # The token of the run that took the claim when several are taken at once
    # (games.services.outbox._claims_take): what tells it the pairs it holds.
    claimed_by = models.CharField(max_length=32, blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["event", "consumer"], name="gameeventclaim_unique_event_consumer"),
        ]
        indexes = [
            models.Index(
                fields=["consumer", "claimed_at"], condition=Q(done_at__isnull=True), name="gameeventclaim_open_idx"
            ),
        ]

    def __str__(self) -> str:
        state = "done" if self.done_at else "claimed"
        return f"{self.consumer}: event {self.event_id} {state}"


class GamePause(models.Model):
    """One reason the game's clock is stopped. Pauses overlap and combine: no clock
    runs while any of a game's pauses has not ended (``ended_at`` NULL); the rows
    stay, so that who paused a game, when and why can be looked up later."""

    class Reason(models.TextChoices):
        VACATION = "vacation"
        MODERATOR = "moderator"
        SERVER = "server"

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="pauses")
    reason = models.CharField(max_length=16, choices=Reason.choices)
    # The player on vacation, or the moderator or operator who paused the game.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    started_at = models.DateTimeField()
    # When it ends by itself (swept by games.tasks.end_pauses); NULL: when resumed.
    ends_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    note = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        ordering = ["started_at", "id"]
        indexes = [
            models.Index(fields=["ends_at"], condition=Q(ended_at__isnull=True), name="gamepause_open_ends_idx"),
            models.Index(fields=["game"], condition=Q(ended_at__isnull=True), name="gamepause_open_game_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id} paused ({self.reason}) from {self.started_at:%Y-%m-%d %H:%M}"


class Vacation(models.Model):
    """Days a player took off: their clocks stop in all their active games. Counted
    against VACATION_DAYS_PER_YEAR in the calendar year (UTC) it starts."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="vacations")
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    days = models.PositiveSmallIntegerField()
    # Taken by the server when a deadline would have passed, not asked for.
    automatic = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["starts_at", "id"]
        indexes = [models.Index(fields=["user", "starts_at"], name="vacation_user_starts_idx")]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.days} day(s) from {self.starts_at:%Y-%m-%d}"


class ModerationEntry(models.Model):
    """One thing a moderator did, or looked at: append-only (nothing updates or
    deletes a row; the admin shows them read-only, even to superusers). People are
    referred to by user id only, so an erased account leaves no name behind;
    ``game_id`` is kept as text, not a foreign key, so the entry outlives nothing
    it should not and stays when the game is deleted."""

    class Action(models.TextChoices):
        GAME_ABORTED = "game_aborted", "Aborted the game"
        GAME_ADJUDICATED = "game_adjudicated", "Adjudicated the result"
        DEADLINE_EXTENDED = "deadline_extended", "Extended the deadline"
        GAME_PAUSED = "game_paused", "Paused the game"
        GAME_RESUMED = "game_resumed", "Resumed the game"
        SEAT_REPLACED = "seat_replaced", "Replaced a seat"
        PLAYER_WARNED = "player_warned", "Warned a player"
        PLAYER_SUSPENDED = "player_suspended", "Suspended a player"
        PLAYER_UNSUSPENDED = "player_unsuspended", "Lifted a suspension"
        # A league admin's, from their league only (details: league_id, league).
        LEAGUE_SUSPENDED = "league_suspended", "Suspended a player from a league"
        LEAGUE_UNSUSPENDED = "league_unsuspended", "Lifted a suspension from a league"
        BOARD_VIEWED = "board_viewed", "Viewed the board as a seat"
        # Table talk (chat.services.chat_message_hide; details: message_id, thread).
        CHAT_MESSAGE_HIDDEN = "chat_message_hidden", "Hid a chat message"
        # A tournament's organiser (tournaments.services; details: tournament_id, tournament).
        TOURNAMENT_WITHDRAWN = "tournament_withdrawn", "Withdrew a player from a tournament"
        TOURNAMENT_REPLACED = "tournament_replaced", "Replaced a player of a tournament"

    user_id = models.IntegerField(help_text="The moderator (a user id).")
    action = models.CharField(max_length=32, choices=Action.choices)
    game_id = models.CharField(max_length=PUBLIC_ID_MAX_LENGTH, null=True, blank=True, db_index=True)
    target_user_id = models.IntegerField(null=True, blank=True, db_index=True)
    reason = models.TextField()
    details = models.JSONField(default=dict, blank=True)
    at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name_plural = "moderation entries"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            raise ValueError("The moderation log is append-only: an entry is never changed.")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise ValueError("The moderation log is append-only: an entry is never deleted.")

    def __str__(self) -> str:
        where = f" in {self.game_id}" if self.game_id else ""
        return f"{self.get_action_display()}{where} by user {self.user_id}"


class IdempotencyRecord(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    # SHA-256 hex of method, path and body: the same key with another request is refused.
    fingerprint = models.CharField(max_length=64)
    response_status = models.PositiveSmallIntegerField()
    response_body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="idempotency_unique_user_key")]

    def __str__(self) -> str:
        return f"{self.user_id}:{self.key}"


class PeriodicRun(models.Model):
    """When each of the beat's jobs last ran (the deadline sweep, the reminders,
    the outbox's redelivery): one row per job, written at the end of each run.
    ``/healthz`` reads the sweep's to tell whether deadlines are enforced, and
    ``/metrics`` shows them all (``splendor_beat_last_run_timestamp_seconds``)."""

    job = models.CharField(max_length=32, primary_key=True)
    last_run_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.job}: {self.last_run_at:%Y-%m-%d %H:%M:%S}"


class BotTurn(models.Model):
    """A bot's turn waiting for the bots worker (``games.services.bot_turns``): a
    practice game's or a sandbox's bot (``Seat.bot_name``), or a seat a moderator
    handed to the bot (``Seat.bot``). Written in the transaction of the change that
    makes the bot due; the dispatcher plays one move per task and writes the row
    again (at the back of its share's line) or deletes it.

    Work is shared fairly between ``account``s: the dispatcher serves the share
    served least recently (``served_at``, the same on every row of a share), its
    oldest due turn first. A practice game's or a sandbox's share is its person's;
    a real game's (a handed seat) has no account and is its own share."""

    class Kind(models.TextChoices):
        PRACTICE = "practice", "A practice game's or a sandbox's bot"
        MODERATOR = "moderator", "A seat a moderator handed to the bot"

    game = models.OneToOneField(Game, on_delete=models.CASCADE, primary_key=True, related_name="bot_turn")
    account = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    due_at = models.DateTimeField()
    # When a move of this share was last played; NULL: never (served first).
    served_at = models.DateTimeField(null=True, blank=True)
    # A dispatcher is playing it until then; a worker that died leaves it to the next after that.
    claimed_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["served_at", "due_at"], name="bot_turn_line"),
            models.Index(fields=["account"], name="bot_turn_account"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} bot turn of {self.game_id} due {self.due_at:%Y-%m-%d %H:%M:%S}"


class BotDispatchPending(models.Model):
    """One row at most: until when a message for the bots' dispatcher is waiting in
    the queue, not yet taken by a worker (NULL: none). A change that puts a bot's
    turn in line queues the dispatcher only when none is waiting, and the
    dispatcher clears it as it starts, so the `bots` queue holds one dispatcher
    message at a time however many turns are due (each run queues the next). A
    message lost on the way holds it only until then."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    until = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"bots' dispatcher waiting until {self.until}" if self.until else "no bots' dispatcher waiting"
