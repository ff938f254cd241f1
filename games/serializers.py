"""Request validation and response shapes of the games API.

Output serializers render the dicts that ``games.selectors`` build; they never
see a model's stored state or seed. The board and the result pass through
unchanged; the schema-only serializers in games.board_serializers describe them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils.functional import lazy
from django.utils.translation import gettext, ngettext
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from accounts.serializers import AccountExportSerializer, TokenSerializer
from api.serializers import JSONIntegerField, JSONStringField, StrictInputSerializer
from core.text import listed
from games.models import Game, GamePause, ModerationEntry, PlayedBy
from games.board_serializers import BoardField, GameResultField, StateField
from games.notes.serializers import NotesTextSerializer
from games.selectors import (
    ExportSeat,
    GameExport,
    ModerationExportEntry,
    GameSummary,
    GameView,
    LegalMoves,
    MoveHistoryEntry,
    PlayerExport,
    PauseSummary,
    PlayerProfile,
    SeatSummary,
    TimeControl,
    TimeoutPolicy,
    VacationPeriod,
    VacationSummary,
    VariantRecord,
)
from games.services import (
    DEFAULT_FORFEIT_AFTER,
    DEFAULT_MOVE_TIMEOUT_HOURS,
    MAX_BANK_HOURS,
    MAX_FORFEIT_AFTER,
    MAX_MOVE_TIMEOUT_HOURS,
    MAX_SEATS,
    MIN_SEATS,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# Input serializers are never given an instance, only data; the schema-only and
# output serializers are parametrised with the shape of the dict they render.
_Input = dict[str, Any]

# --- input ---------------------------------------------------------------------

MAX_INVITED = MAX_SEATS - 1  # every seat but the creator's


class UsernamesField(serializers.ListField):
    """Usernames as a list of strings. Its length is checked before its items, so a
    list of thousands is refused at once, and the items' errors come as one flat
    list of sentences rather than keyed by position."""

    child = JSONStringField(max_length=150)

    def run_child_validation(self, data: Any) -> list[Any]:
        items = list(data)
        if self.max_length is not None and len(items) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        names: list[str] = []
        messages: list[str] = []
        for item in items:
            try:
                names.append(self.child.run_validation(item))
            except serializers.ValidationError as exc:
                details = exc.detail if isinstance(exc.detail, list) else [exc.detail]
                messages.extend(str(message) for message in details if str(message) not in messages)
        if messages:
            raise serializers.ValidationError(messages)
        return names


class BotNamesField(serializers.ListField):
    child = JSONStringField(max_length=32)


class TimeoutPolicyInputSerializer(StrictInputSerializer):
    """What a missed deadline costs in the new game."""

    forfeit_after = JSONIntegerField(
        min_value=1,
        max_value=MAX_FORFEIT_AFTER,
        help_text="The timeout in a row that forfeits a seat; the ones before it are played by the built-in bot. "
        "1: the first missed deadline forfeits.",
    )


def _invite_limit() -> str:
    return ngettext(
        "You can invite at most %(n)s player: a game has at most %(seats)s, and one of them is yours.",
        "You can invite at most %(n)s players: a game has at most %(seats)s, and one of them is yours.",
        MAX_INVITED,
    ) % {"n": MAX_INVITED, "seats": ngettext("%(n)s seat", "%(n)s seats", MAX_SEATS) % {"n": MAX_SEATS}}


_lazy_invite_limit = lazy(_invite_limit, str)


class GameCreateInputSerializer(StrictInputSerializer):
    """Create a game: the variant, the seats and who is invited to them, the time control and
    the timeout policy; or, with `bots`, a practice game against bots."""

    variant = serializers.ChoiceField(choices=Game.Variant.choices, default=Game.Variant.BASE)
    seats = serializers.IntegerField(min_value=MIN_SEATS, max_value=MAX_SEATS, default=2)
    invited = UsernamesField(
        max_length=MAX_INVITED,
        default=list,
        help_text="Usernames to reserve seats for (at most seats - 1, each once); they take them with "
        "POST .../join/.",
        error_messages={
            "max_length": _lazy_invite_limit(),
        },
    )
    open_seats = serializers.IntegerField(
        min_value=0,
        required=False,
        help_text="Seats anyone may join. Optional: it is always seats - 1 - len(invited).",
    )
    move_timeout_hours = serializers.IntegerField(
        min_value=1,
        max_value=MAX_MOVE_TIMEOUT_HOURS,
        required=False,
        help_text="Time per move, in hours (default 72).",
    )
    time_bank_hours = JSONIntegerField(
        min_value=0,
        max_value=MAX_BANK_HOURS,
        required=False,
        help_text="Each seat's time bank at the start, in hours (default 0: no bank).",
    )
    time_bank_cap_hours = JSONIntegerField(
        min_value=0,
        max_value=MAX_BANK_HOURS,
        required=False,
        help_text="The most a bank can hold, in hours (default: the bank at the start). Unused time of a turn "
        "is added to the seat's bank up to this cap.",
    )
    public = serializers.BooleanField(
        default=False,
        help_text="true: the game is listed to everyone and anyone may watch it (the spectator view) and its replay "
        "once it is over. false (the default): only its seat holders, moderators and the admins of its league see "
        "it; to anyone else it does not exist (404 game_not_found), except that an open seat can still be joined by "
        "whoever has the game's id.",
    )
    rated = serializers.BooleanField(default=False, help_text="The result counts towards the players' ratings.")
    timeout_policy = TimeoutPolicyInputSerializer(
        required=False, help_text=f"What a missed deadline costs (default forfeit_after {DEFAULT_FORFEIT_AFTER})."
    )
    move_timeout_seconds = JSONIntegerField(
        min_value=1, required=False, help_text="Time per move in seconds: only on a server with GAME_CLOCK_SECONDS."
    )
    time_bank_seconds = JSONIntegerField(
        min_value=0, required=False, help_text="The bank at the start in seconds: only with GAME_CLOCK_SECONDS."
    )
    time_bank_cap_seconds = JSONIntegerField(
        min_value=0, required=False, help_text="The bank's cap in seconds: only with GAME_CLOCK_SECONDS."
    )
    bots = BotNamesField(
        max_length=MAX_SEATS - 1,
        required=False,
        help_text="A practice game: the bots (random, greedy, ismcts) that take the other seats, one each; "
        "seats is then 1 + their number. It starts at once, private, with no clock, invitations or rating.",
    )

    def validate(self, attrs: _Input) -> _Input:
        """The time control in seconds; then the invitees, checked against the seats
        and each other before any is looked up, and looked up together, in one query."""
        if "bots" in attrs:
            given = sorted(set(self.initial_data) & _NOT_FOR_PRACTICE)
            if given:
                raise serializers.ValidationError(
                    {
                        name: [gettext("A practice game has no clock, invitations or spectators; leave this out.")]
                        for name in given
                    }
                )
        attrs = {**attrs, **_time_control(attrs)}
        names: list[str] = attrs["invited"]
        seats: int = attrs["seats"]
        if len(names) > seats - 1:
            raise serializers.ValidationError(
                {
                    "invited": [
                        ngettext(
                            "You invited %(invited)s, but a game of %(seats)s has only %(n)s seat besides yours.",
                            "You invited %(invited)s, but a game of %(seats)s has only %(n)s seats besides yours.",
                            seats - 1,
                        )
                        % {
                            "invited": ngettext("%(n)s player", "%(n)s players", len(names)) % {"n": len(names)},
                            "seats": ngettext("%(n)s seat", "%(n)s seats", seats) % {"n": seats},
                            "n": seats - 1,
                        }
                    ]
                }
            )
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise serializers.ValidationError(
                {
                    "invited": [
                        gettext("You invited %(names)s more than once; invite each player once.")
                        % {"names": listed(twice)}
                    ]
                }
            )
        users = {user.username: user for user in _active_users_named(names)}
        unknown = [name for name in names if name not in users]
        if unknown:
            raise serializers.ValidationError(
                {
                    "invited": [
                        gettext("There is no player with the username %(name)s.") % {"name": name} for name in unknown
                    ]
                }
            )
        return {**attrs, "invited": [users[name] for name in names]}


# What a practice game (``bots``) has no use for.
_NOT_FOR_PRACTICE = {
    "invited", "open_seats", "public", "timeout_policy",
    "move_timeout_hours", "time_bank_hours", "time_bank_cap_hours",
    "move_timeout_seconds", "time_bank_seconds", "time_bank_cap_seconds",
}

_IN_SECONDS = {
    "move_timeout_seconds": "move_timeout_hours",
    "time_bank_seconds": "time_bank_hours",
    "time_bank_cap_seconds": "time_bank_cap_hours",
}


def _time_control(attrs: _Input) -> dict[str, int | None]:
    """The time control in seconds, from hours (or, with GAME_CLOCK_SECONDS, seconds)."""
    errors: dict[str, list[str]] = {}
    for seconds_name, hours_name in _IN_SECONDS.items():
        if seconds_name not in attrs:
            continue
        if not settings.GAME_CLOCK_SECONDS:
            errors[seconds_name] = [
                gettext(
                    "Times in seconds are taken only by a server set up for tests in real time "
                    "(GAME_CLOCK_SECONDS); give `%(name)s` instead."
                )
                % {"name": hours_name}
            ]
        elif hours_name in attrs:
            errors[seconds_name] = [
                gettext("Give `%(seconds)s` or `%(hours)s`, not both.") % {"seconds": seconds_name, "hours": hours_name}
            ]
    if errors:
        raise serializers.ValidationError(errors)

    def seconds(name: str) -> int | None:
        if name in attrs:
            return int(attrs[name])
        hours = attrs.get(_IN_SECONDS[name])
        return int(hours) * 3600 if hours is not None else None

    move = seconds("move_timeout_seconds")
    bank = seconds("time_bank_seconds")
    policy = attrs.get("timeout_policy") or {}
    return {
        "move_seconds": move if move is not None else DEFAULT_MOVE_TIMEOUT_HOURS * 3600,
        "bank_seconds": bank if bank is not None else 0,
        "bank_cap_seconds": seconds("time_bank_cap_seconds"),
        "forfeit_after": policy.get("forfeit_after", DEFAULT_FORFEIT_AFTER),
    }


def _active_users_named(names: list[str]) -> list[User]:
    if not names:
        return []
    # The service's own accounts (bots, hot seats) are nobody to invite.
    return list(get_user_model().objects.filter(is_active=True, username__in=names).exclude(player__system=True))


class GameListQuerySerializer(serializers.Serializer[_Input]):
    # Not a StrictInputSerializer: the query string also carries limit and offset,
    # which the paginator reads.
    mine = serializers.BooleanField(default=False, help_text="Only games where you hold or are invited to a seat.")
    my_turn = serializers.BooleanField(default=False, help_text="Only active games where it is your turn.")
    status = serializers.ChoiceField(choices=Game.Status.choices, required=False)
    kind = serializers.ChoiceField(
        choices=Game.Kind.choices,
        default=Game.Kind.REAL,
        help_text="real (the default): games between people. practice or sandbox: your own practice games or "
        "sandboxes, which are listed to nobody else.",
    )


class SandboxInputSerializer(StrictInputSerializer):
    """Make a sandbox from a game's position: the position, your seat and the bots, if any."""

    bots = BotNamesField(
        max_length=MAX_SEATS - 1,
        default=list,
        help_text="Bots (random, greedy, ismcts) for the other seats, in play order after yours; the seats left "
        "are hot seats, which you play too. Empty (the default): you play every seat.",
    )
    seat = JSONIntegerField(
        min_value=0,
        max_value=MAX_SEATS - 1,
        required=False,
        help_text="The seat you play, from a game that is over or public (the spectator's view); default 0. "
        "From an active game you play in, your own seat.",
    )
    ply = JSONIntegerField(
        min_value=0,
        required=False,
        help_text="The position after this many moves; default: the position now.",
    )


class JoinInputSerializer(StrictInputSerializer):
    """Take a seat in a game; optionally only at the version you saw."""

    expected_version = JSONIntegerField(min_value=0, required=False)


class MoveInputSerializer(StrictInputSerializer):
    """Play your turn: one complete move, and the version of the game it was chosen on."""

    move = JSONStringField(
        max_length=200,
        help_text='The move in canonical or friendly notation, e.g. "take WUG" or "buy 1-07".',
        error_messages={"not_a_string": 'Must be text in double quotes, such as "take WUG".'},
    )
    expected_version = JSONIntegerField(
        min_value=0,
        required=False,
        help_text="The game version the move was chosen on. Required unless an If-Match header is sent.",
    )


# --- output --------------------------------------------------------------------


class SeatSerializer(serializers.Serializer[SeatSummary]):
    seat = serializers.IntegerField(allow_null=True, help_text="Play order, 0 first; null until the game starts.")
    username = serializers.CharField()
    display_name = serializers.CharField()
    joined = serializers.BooleanField()
    invited = serializers.BooleanField()
    resigned = serializers.BooleanField()
    bank_seconds = serializers.IntegerField(min_value=0, help_text="The seat's time bank now.")
    consecutive_timeouts = serializers.IntegerField(
        min_value=0, help_text="Timeouts in a row; the seat's own move sets it back to 0."
    )
    bot = serializers.BooleanField(
        help_text="A bot plays the seat: a moderator handed it to the built-in bot, which plays its turns (the seat "
        "stays recorded as its player's), or it is a practice game's or a sandbox's bot (bot_name)."
    )
    bot_name = serializers.CharField(
        allow_null=True,
        help_text="In a practice game or a sandbox, the bot that plays the seat (random, greedy, ismcts); "
        "null for a person's seat.",
    )


class TimeControlSerializer(serializers.Serializer[TimeControl]):
    move_seconds = serializers.IntegerField(min_value=1, help_text="Time per move.")
    bank_seconds = serializers.IntegerField(min_value=0, help_text="Each seat's time bank at the start.")
    bank_cap_seconds = serializers.IntegerField(min_value=0, help_text="The most a seat's bank can hold.")


class TimeoutPolicySerializer(serializers.Serializer[TimeoutPolicy]):
    forfeit_after = serializers.IntegerField(
        min_value=1, help_text="The timeout in a row that forfeits a seat; before it the built-in bot plays the turn."
    )


class PauseSerializer(serializers.Serializer[PauseSummary]):
    reason = serializers.ChoiceField(choices=GamePause.Reason.choices)
    user = serializers.CharField(allow_null=True, help_text="The player on vacation; null for other reasons.")
    started_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField(allow_null=True, help_text="Null: until resumed.")


# move_timeout_hours is kept for clients written before the clock counted seconds.
@extend_schema_serializer(deprecate_fields=["move_timeout_hours"])
class GameSummarySerializer(serializers.Serializer[GameSummary]):
    id = serializers.CharField()
    kind = serializers.ChoiceField(
        choices=Game.Kind.choices,
        help_text="real: a game between people. practice: against bots. sandbox: a private copy of another game's "
        "position. Practice games and sandboxes have no clock, email or webhooks and count in no record.",
    )
    sandbox_of = serializers.CharField(allow_null=True, help_text="A sandbox's source game; null otherwise.")
    variant = serializers.ChoiceField(choices=Game.Variant.choices)
    status = serializers.ChoiceField(choices=Game.Status.choices)
    version = serializers.IntegerField(help_text="Goes up with every change; send it back as expected_version.")
    seat_count = serializers.IntegerField()
    open_seats = serializers.IntegerField()
    seats = SeatSerializer(many=True)
    to_move = serializers.IntegerField(allow_null=True, help_text="The seat whose turn it is.")
    your_seat = serializers.IntegerField(allow_null=True)
    move_timeout_hours = serializers.IntegerField(
        allow_null=True,
        help_text="Deprecated: read `time_control.move_seconds`. The time per move in hours; null when it is not "
        "a whole number of hours (a game made with `move_timeout_seconds`).",
    )
    time_control = TimeControlSerializer()
    timeout_policy = TimeoutPolicySerializer()
    public = serializers.BooleanField(
        help_text="Anyone may watch it. A private game is seen only by its seat holders, moderators and the admins "
        "of its league."
    )
    rated = serializers.BooleanField(help_text="The result counts towards ratings.")
    vacation_allowed = serializers.BooleanField(
        help_text="A vacation pauses this game's clock (false in a league that allows none: the clock runs)."
    )
    pauses_allowed = serializers.BooleanField(
        help_text="A moderator may pause this game's clock (false in a league that allows no pauses)."
    )
    deadline_at = serializers.DateTimeField(
        allow_null=True,
        help_text="When the turn to play times out: its start + move_seconds + the bank of the seat to move. "
        "Null while paused or not running.",
    )
    paused = serializers.BooleanField(help_text="The clock is stopped: see pauses.")
    pauses = PauseSerializer(many=True, help_text="The reasons the clock is stopped now.")
    seed_commitment = serializers.CharField(
        allow_null=True, help_text="SHA-256 hex of the seed's decimal text, published at the start."
    )
    created_by = serializers.CharField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    result = GameResultField(allow_null=True, help_text="Null until the game is over.")


class GameViewSerializer(GameSummarySerializer):
    board = BoardField(
        allow_null=True,
        help_text="What the caller may see: their seat's view if they play, the spectator view otherwise.",
    )
    seed = serializers.CharField(allow_null=True, help_text="Revealed once the game is over.")


class MoveCreated(TypedDict):
    move: str
    ply: int
    game: GameView


class MoveCreatedSerializer(serializers.Serializer[MoveCreated]):
    move = serializers.CharField(help_text="The move as recorded, in canonical notation.")
    ply = serializers.IntegerField()
    game = GameViewSerializer()


class MoveHistoryEntrySerializer(serializers.Serializer[MoveHistoryEntry]):
    ply = serializers.IntegerField()
    seat = serializers.IntegerField()
    move = serializers.CharField()
    automatic = serializers.BooleanField(help_text="Not chosen by the seat's player (played_by is not player).")
    played_by = serializers.ChoiceField(
        choices=PlayedBy.choices,
        help_text="player; bot: the built-in bot on a timeout; service: a quiet move for a seat that left, "
        "or a forced pass.",
    )
    created_at = serializers.DateTimeField()
    private_card = serializers.CharField(
        required=False, help_text="The card drawn by your own blind reserve; absent for everyone else."
    )


class LegalMovesSerializer(serializers.Serializer[LegalMoves]):
    version = serializers.IntegerField()
    to_move = serializers.IntegerField(allow_null=True)
    your_seat = serializers.IntegerField(allow_null=True)
    moves = serializers.ListField(child=serializers.CharField(), help_text="Canonical texts, sorted.")


class ExportSeatSerializer(serializers.Serializer[ExportSeat]):
    seat = serializers.IntegerField(allow_null=True)
    join_position = serializers.IntegerField()
    username = serializers.CharField()


class ModerationDetailsSerializer(serializers.Serializer[dict[str, Any]]):
    """What an action needed; each action writes only its own fields."""

    version = serializers.IntegerField(required=False, help_text="The game's version after the action.")
    status_before = serializers.CharField(required=False, help_text="abort: the status the game had.")
    places = serializers.ListField(
        child=serializers.IntegerField(min_value=1), required=False, help_text="adjudicate: the place of each seat."
    )
    hours = serializers.IntegerField(required=False, help_text="extend a deadline: the hours added.")
    seat = serializers.IntegerField(required=False, allow_null=True, help_text="The seat acted on.")
    deadline_at = serializers.CharField(required=False, allow_null=True, help_text="The new deadline (ISO 8601).")
    pause_id = serializers.IntegerField(required=False, help_text="pause: the pause it started.")
    new_user_id = serializers.IntegerField(required=False, allow_null=True, help_text="replace a seat: the new player.")
    bot = serializers.BooleanField(required=False, help_text="replace a seat: handed to the built-in bot.")


class ModerationExportEntrySerializer(serializers.Serializer[ModerationExportEntry]):
    at = serializers.DateTimeField()
    action = serializers.ChoiceField(choices=ModerationEntry.Action.choices)
    user_id = serializers.IntegerField(help_text="The moderator's user id.")
    target_user_id = serializers.IntegerField(allow_null=True, help_text="The player acted on, if any.")
    reason = serializers.CharField()
    details = ModerationDetailsSerializer(help_text="What the action needed.")


class ExportChatLineSerializer(serializers.Serializer[Any]):
    """A line of table talk as the export and ``GET .../chat/`` give it (chat.selectors.ChatLine)."""

    id = serializers.IntegerField(help_text="Grows with each line: send the last you have as `after`.")
    thread = serializers.ChoiceField(choices=["players", "spectators"])
    author_id = serializers.IntegerField()
    author = serializers.CharField(help_text='The author\'s display name ("deleted player N" once erased).')
    seat = serializers.IntegerField(allow_null=True, help_text="The author's seat; null for a spectator.")
    text = serializers.CharField(
        allow_blank=True, help_text="Plain text as written; empty when hidden by a moderator or erased."
    )
    hidden = serializers.BooleanField(help_text="Hidden by a moderator: shown as such, without its text.")
    erased = serializers.BooleanField(help_text="Its author's account was erased: no text.")
    created_at = serializers.DateTimeField()


class GameExportSerializer(serializers.Serializer[GameExport]):
    id = serializers.CharField()
    variant = serializers.ChoiceField(choices=Game.Variant.choices)
    players = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Game.Status.choices)
    seed_commitment = serializers.CharField(allow_null=True)
    seed = serializers.CharField(allow_null=True, help_text="Decimal text; null until the game is over.")
    seat_order = serializers.ChoiceField(
        choices=["drawn", "joined"],
        help_text="drawn: the play order was shuffled with the seed (engine.seat_permutation); joined: it is the "
        "order the players joined (a knockout match's games, which alternate who moves first).",
    )
    start_state = StateField(
        allow_null=True,
        help_text=(
            "A sandbox's starting position (engine.to_dict: its hidden cards as they were dealt for the sandbox), "
            "once it is over, to replay its moves from with engine.from_dict and engine.apply; null otherwise "
            "(a game from a seed replays from the seed)."
        ),
    )
    seats = ExportSeatSerializer(many=True)
    moves = serializers.ListField(child=serializers.CharField())
    from_plan = serializers.ListField(
        child=serializers.IntegerField(),
        allow_null=True,
        required=False,
        help_text="The plies (indexes in `moves`) of the moves a player's plan played (docs/plans.md), once the "
        "game is over; null while it runs.",
    )
    chat = ExportChatLineSerializer(
        many=True,
        allow_null=True,
        required=False,
        help_text="The game's table talk once it is over (null while it runs; docs/chat.md): the lines of the threads "
        "the reader may read, oldest first, each as `GET .../chat/` gives it (`id`, `thread`, `author_id`, `author`, "
        "`seat`, `text`, `hidden`, `erased`, `created_at`): the players' thread for its players and moderators, a "
        "public game's spectators' thread for whoever sees the game.",
    )
    result = GameResultField(allow_null=True, help_text="Null until the game is over.")
    moderation = ModerationExportEntrySerializer(
        many=True, help_text="What moderators did to the game, oldest first (people by user id)."
    )


# --- players -------------------------------------------------------------------


class PlayerGameSerializer(GameSummarySerializer):
    """One of your games in your export: no board, no other player's blind-reserved card."""

    seed = serializers.CharField(allow_null=True, help_text="Revealed once the game is over.")
    moves = MoveHistoryEntrySerializer(many=True)
    notes = NotesTextSerializer(help_text="Your private notes on the game and its moves (empty: none).")


class PlayerExportSerializer(serializers.Serializer[PlayerExport]):
    account = AccountExportSerializer()
    tokens = TokenSerializer(many=True, help_text="Your tokens, never their secrets.")
    games = PlayerGameSerializer(many=True, help_text="Every game you hold or held a seat or an invitation in.")


class VariantRecordSerializer(serializers.Serializer[VariantRecord]):
    played = serializers.IntegerField(min_value=0, help_text="Finished games played (resigned ones included).")
    won = serializers.IntegerField(min_value=0, help_text="Of those, the ones won (a shared first place counts).")


class VariantRecordsSerializer(serializers.Serializer[dict[str, VariantRecord]]):
    """By variant: every variant, with zeros where the player has no finished game."""

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        return {variant: VariantRecordSerializer() for variant in Game.Variant.values}


class PlayerRatingSerializer(serializers.Serializer[dict[str, float]]):
    rating = serializers.FloatField(help_text="Glicko-2 rating.")
    rd = serializers.FloatField(help_text="Rating deviation: the uncertainty.")
    volatility = serializers.FloatField()
    games = serializers.IntegerField(help_text="Rated games counted.")


class PlayerProfileSerializer(serializers.Serializer[PlayerProfile]):
    username = serializers.CharField()
    display_name = serializers.CharField()
    joined_at = serializers.DateTimeField()
    games = VariantRecordsSerializer()
    ratings = serializers.DictField(
        child=PlayerRatingSerializer(),
        required=False,
        help_text="Ratings by variant, from rated games (docs/leagues.md); a variant never rated is absent.",
    )


# --- vacation ------------------------------------------------------------------


class VacationInputSerializer(StrictInputSerializer):
    """Take vacation days: your clocks stop in all your active games meanwhile."""

    days = JSONIntegerField(help_text="Whole days from now (after your current vacation, if you are on one).")


class VacationPeriodSerializer(serializers.Serializer[VacationPeriod]):
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField()
    days = serializers.IntegerField(min_value=1)
    automatic = serializers.BooleanField(help_text="Taken by the server when a deadline would have passed.")


class VacationSummarySerializer(serializers.Serializer[VacationSummary]):
    year = serializers.IntegerField(help_text="The calendar year (UTC) counted.")
    days_per_year = serializers.IntegerField(min_value=0)
    days_used = serializers.IntegerField(min_value=0)
    days_left = serializers.IntegerField(min_value=0)
    current = VacationPeriodSerializer(allow_null=True, help_text="The vacation you are on now, if any.")
    planned = VacationPeriodSerializer(many=True, help_text="Vacations still to come.")
