"""Request validation and response shapes of the games API.

Output serializers render the dicts that ``games.selectors`` build; they never
see a model's stored state or seed. The board and the result pass through
unchanged; the schema-only serializers in the middle section describe them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

import engine
from django.conf import settings
from django.contrib.auth import get_user_model
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from accounts.serializers import AccountExportSerializer, TokenSerializer
from api.serializers import JSONIntegerField, JSONStringField, StrictInputSerializer
from core.text import counted, listed
from engine.variants import BASE, JOKER, MARVEL, Variant
from games.models import Game, GamePause, ModerationEntry, PlayedBy
from games.results import GameResult, ResultReason
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


class TimeoutPolicyInputSerializer(StrictInputSerializer):
    forfeit_after = JSONIntegerField(
        min_value=1,
        max_value=MAX_FORFEIT_AFTER,
        help_text="The timeout in a row that forfeits a seat; the ones before it are played by the built-in bot. "
        "1: the first missed deadline forfeits.",
    )


class GameCreateInputSerializer(StrictInputSerializer):
    variant = serializers.ChoiceField(choices=Game.Variant.choices, default=Game.Variant.BASE)
    seats = serializers.IntegerField(min_value=MIN_SEATS, max_value=MAX_SEATS, default=2)
    invited = UsernamesField(
        max_length=MAX_INVITED,
        default=list,
        help_text="Usernames to reserve seats for (at most seats - 1, each once); they take them with "
        "POST .../join/.",
        error_messages={
            "max_length": f"You can invite at most {counted(MAX_INVITED, 'player')}: a game has at most "
            f"{counted(MAX_SEATS, 'seat')}, and one of them is yours.",
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

    def validate(self, attrs: _Input) -> _Input:
        """The time control in seconds; then the invitees, checked against the seats
        and each other before any is looked up, and looked up together, in one query."""
        attrs = {**attrs, **_time_control(attrs)}
        names: list[str] = attrs["invited"]
        seats: int = attrs["seats"]
        if len(names) > seats - 1:
            raise serializers.ValidationError(
                {
                    "invited": [
                        f"You invited {counted(len(names), 'player')}, but a game of {counted(seats, 'seat')} "
                        f"has only {counted(seats - 1, 'seat')} besides yours."
                    ]
                }
            )
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise serializers.ValidationError(
                {"invited": [f"You invited {listed(twice)} more than once; invite each player once."]}
            )
        users = {user.username: user for user in _active_users_named(names)}
        unknown = [name for name in names if name not in users]
        if unknown:
            raise serializers.ValidationError(
                {"invited": [f"There is no player with the username {name}." for name in unknown]}
            )
        return {**attrs, "invited": [users[name] for name in names]}


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
                f"Times in seconds are taken only by a server set up for tests in real time (GAME_CLOCK_SECONDS); "
                f"give `{hours_name}` instead."
            ]
        elif hours_name in attrs:
            errors[seconds_name] = [f"Give `{seconds_name}` or `{hours_name}`, not both."]
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
    return list(get_user_model().objects.filter(is_active=True, username__in=names))


class GameListQuerySerializer(serializers.Serializer[_Input]):
    # Not a StrictInputSerializer: the query string also carries limit and offset,
    # which the paginator reads.
    mine = serializers.BooleanField(default=False, help_text="Only games where you hold or are invited to a seat.")
    my_turn = serializers.BooleanField(default=False, help_text="Only active games where it is your turn.")
    status = serializers.ChoiceField(choices=Game.Status.choices, required=False)


class JoinInputSerializer(StrictInputSerializer):
    expected_version = JSONIntegerField(min_value=0, required=False)


class MoveInputSerializer(StrictInputSerializer):
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


# --- output: the board and the result, described for the schema ---------------
#
# ``board`` is what ``engine.observe`` returns and ``result`` what the services
# store when a game ends. Both reach the response untouched (BoardField and
# GameResultField are JSONFields), so the serializers in this section never run:
# they describe that JSON in the OpenAPI schema as named components, which a
# generated client turns into typed models. tests/schema/test_board_and_result_
# match_the_schema.py checks real boards and results against them. Letters, slots
# and keys are the engine's: engine/observation.py, engine/variants.py and its
# notation (engine/notation.py).

LEVELS = ("1", "2", "3")
MARKET_SLOTS = tuple(f"{level}{column}" for level in LEVELS for column in "abcd")
HAND_SLOTS = ("h1", "h2", "h3")  # B-RESERVE-2
JOKER_LETTERS = sorted({variant.letters[JOKER] for variant in (BASE, MARVEL)})
# From the enums themselves, so that the schema cannot drift from the code.
BOARD_END_REASONS = tuple(reason.value for reason in engine.EndReason)
RESULT_END_REASONS = tuple(reason.value for reason in ResultReason)


def _enum_field(component: str, values: Sequence[str], description: str) -> Callable[..., serializers.ChoiceField]:
    """A choice field whose values the schema publishes once, as the enum ``component``.

    drf-spectacular names an inline enum after its property and warns when one
    property name carries two sets (``color`` is a base letter on one card and a
    Marvel letter on another); a named component avoids that and gives a client
    one type per set.
    """

    schema = {"type": "string", "enum": list(values), "description": description}

    @extend_schema_field(schema, component_name=component)
    class EnumField(serializers.ChoiceField):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(choices=list(values), **kwargs)

    EnumField.__name__ = EnumField.__qualname__ = f"{component}Field"
    return EnumField


def _json_field(
    name: str, schema: type[serializers.Serializer[Any]] | PolymorphicProxySerializer
) -> type[serializers.JSONField]:
    """A field that renders its value as it is and that the schema describes with
    ``schema``: for list items that may be null or have one of several shapes,
    which a nested serializer cannot say."""
    return extend_schema_field(schema)(type(name, (serializers.JSONField,), {"__module__": __name__}))


def _letter_counts(
    name: str, letters: str, *, required: bool, doc: str
) -> type[serializers.Serializer[dict[str, int]]]:
    """One integer property per letter: the set of letters is fixed, so a client gets
    an object with named fields rather than a free-form map."""
    fields = {letter: serializers.IntegerField(min_value=0, required=required) for letter in letters}
    return type(name, (serializers.Serializer,), {"__doc__": doc, "__module__": __name__, **fields})


def _seat_list(help_text: str, *, min_length: int | None = MIN_SEATS) -> serializers.ListField:
    return serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=MAX_SEATS - 1),
        min_length=min_length,
        max_length=MAX_SEATS,
        help_text=help_text,
    )


def _per_seat(help_text: str, *, min_value: int = 0) -> serializers.ListField:
    return serializers.ListField(
        child=serializers.IntegerField(min_value=min_value),
        min_length=MIN_SEATS,
        max_length=MAX_SEATS,
        help_text=help_text,
    )


def _colours(variant: Variant) -> str:
    return variant.letters[:JOKER]


def _colour_words(variant: Variant) -> str:
    return ", ".join(f"{letter} {colour}" for letter, colour in zip(variant.letters, variant.colours))


BaseColourField = _enum_field("BaseColour", _colours(BASE), f"A colour by its letter: {_colour_words(BASE)}.")
MarvelColourField = _enum_field(
    "MarvelColour", _colours(MARVEL), f"A colour by its letter: {_colour_words(MARVEL)}."
)
MarketSlotField = _enum_field("MarketSlot", MARKET_SLOTS, "A market slot: the level, then a-d left to right.")
HandSlotField = _enum_field("HandSlot", HAND_SLOTS, "A reserved card's slot, in the order the cards were reserved.")

BaseTokensSerializer = _letter_counts(
    "BaseTokensSerializer",
    BASE.letters,
    required=True,
    doc=f"Tokens by letter: {_colour_words(BASE)}; J the {BASE.joker_name} joker.",
)
MarvelTokensSerializer = _letter_counts(
    "MarvelTokensSerializer",
    MARVEL.letters + MARVEL.time_letter,
    required=True,
    doc=f"Tokens by letter: {_colour_words(MARVEL)}; J the {MARVEL.joker_name} joker; "
    f"{MARVEL.time_letter} the green Time Stone (M-TIME).",
)
_BONUSES = "Cards owned, by colour letter."
BaseBonusesSerializer = _letter_counts("BaseBonusesSerializer", _colours(BASE), required=True, doc=_BONUSES)
MarvelBonusesSerializer = _letter_counts("MarvelBonusesSerializer", _colours(MARVEL), required=True, doc=_BONUSES)
_COST = "Gems by colour letter; colours with none are left out."
BaseCostSerializer = _letter_counts("BaseCostSerializer", _colours(BASE), required=False, doc=_COST)
MarvelCostSerializer = _letter_counts("MarvelCostSerializer", _colours(MARVEL), required=False, doc=_COST)


class LevelCountsSerializer(serializers.Serializer[dict[str, int]]):
    """Cards left in each level's deck, keyed "1", "2", "3" (never their order)."""

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        return {level: serializers.IntegerField(min_value=0) for level in LEVELS}


class BoardOutcomeSerializer(serializers.Serializer[engine.Outcome]):
    """How the game ended on the board (``engine.outcome``). Resignations and
    timeouts are not here: the game's ``result`` has them."""

    winners = _seat_list("Seats sharing first place.", min_length=1)
    scores = _per_seat("Points, by seat.")
    ranking = _seat_list("Seats, best first.")
    places = _per_seat("By seat: 1 is first; equal players share a place.", min_value=1)
    reason = serializers.ChoiceField(choices=BOARD_END_REASONS)


# Cards and tiles


class HiddenReservedCardSerializer(serializers.Serializer[engine.HiddenReservedView]):
    """Another seat's card reserved blind from a deck: only its level shows (B-RESERVE-3)."""

    slot = HandSlotField()
    level = serializers.IntegerField(min_value=1, max_value=3)
    hidden = serializers.BooleanField(help_text="Always true.")


class BaseMarketCardSerializer(serializers.Serializer[engine.MarketCardView]):
    """A development card face up in the market."""

    slot = MarketSlotField()
    id = serializers.CharField(help_text='The card id, e.g. "1-07".')
    level = serializers.IntegerField(min_value=1, max_value=3)
    color = BaseColourField(help_text="The bonus it gives.")
    points = serializers.IntegerField(min_value=0)
    cost = BaseCostSerializer()


class BaseReservedCardSerializer(BaseMarketCardSerializer):
    """A reserved development card the viewer may see."""

    slot = HandSlotField()
    blind = serializers.BooleanField(help_text="Reserved face down from a deck: only its holder sees it.")


class MarvelMarketCardSerializer(BaseMarketCardSerializer):
    """A character card face up in the market."""

    color = MarvelColourField(help_text="The bonus it gives.")
    cost = MarvelCostSerializer()
    name = serializers.CharField(help_text="The character.")
    avengers = serializers.IntegerField(min_value=0, help_text="Avengers icons on the card (M-AVENGERS).")
    time_stone = serializers.BooleanField(help_text="Shows the Time Stone icon (M-TIME-1).")


class MarvelReservedCardSerializer(MarvelMarketCardSerializer):
    """A reserved character card the viewer may see."""

    slot = HandSlotField()
    blind = serializers.BooleanField(help_text="Reserved face down from a deck: only its holder sees it.")


class NobleSerializer(serializers.Serializer[engine.TileView]):
    """A noble on the table (B-NOBLE-1)."""

    id = serializers.CharField(help_text='e.g. "N04".')
    points = serializers.IntegerField(min_value=0)
    requires = BaseCostSerializer(help_text="Bonuses (cards, never tokens) needed, by colour.")


class LocationSerializer(serializers.Serializer[engine.TileView]):
    """A location on the table (M-LOCATION-1)."""

    id = serializers.CharField(help_text='e.g. "L1A".')
    points = serializers.IntegerField(min_value=0)
    requires = MarvelCostSerializer(help_text="Bonuses (cards, never tokens) needed, by colour.")
    name = serializers.CharField()


_BaseMarketSlotField = _json_field("_BaseMarketSlotField", BaseMarketCardSerializer)
_MarvelMarketSlotField = _json_field("_MarvelMarketSlotField", MarvelMarketCardSerializer)


def _market_row(slot_field: type[serializers.JSONField]) -> serializers.ListField:
    return serializers.ListField(child=slot_field(allow_null=True), min_length=4, max_length=4)


class BaseMarketSerializer(serializers.Serializer[dict[str, list[engine.MarketCardView | None]]]):
    """The market by level, keyed "1", "2", "3": slots a-d in order, null where the
    deck ran out (B-MARKET-1)."""

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        return {level: _market_row(_BaseMarketSlotField) for level in LEVELS}


class MarvelMarketSerializer(serializers.Serializer[dict[str, list[engine.MarketCardView | None]]]):
    """The market by level, keyed "1", "2", "3": slots a-d in order, null where the
    deck ran out (B-MARKET-1)."""

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        return {level: _market_row(_MarvelMarketSlotField) for level in LEVELS}


# A reserved card shows in full, or (another seat's blind reservation) only its level.
_BaseHandCardField = _json_field(
    "_BaseHandCardField",
    PolymorphicProxySerializer(
        component_name="BaseHandCard",
        serializers=[BaseReservedCardSerializer, HiddenReservedCardSerializer],
        resource_type_field_name=None,
    ),
)
_MarvelHandCardField = _json_field(
    "_MarvelHandCardField",
    PolymorphicProxySerializer(
        component_name="MarvelHandCard",
        serializers=[MarvelReservedCardSerializer, HiddenReservedCardSerializer],
        resource_type_field_name=None,
    ),
)


# Seats and the board


class GauntletSerializer(serializers.Serializer[engine.GauntletView]):
    """How far a seat is from the Infinity Gauntlet condition (M-END-1)."""

    points = serializers.IntegerField(min_value=0)
    points_needed = serializers.IntegerField(min_value=0, help_text="0 once the target is reached.")
    missing_colors = serializers.ListField(child=MarvelColourField(), help_text="Colours it has no bonus in.")
    time_stone = serializers.BooleanField()
    meets = serializers.BooleanField(help_text="Meets the whole condition now.")


class _SeatCommonSerializer(serializers.Serializer[engine.SeatView]):
    seat = serializers.IntegerField(min_value=0, max_value=MAX_SEATS - 1)
    points = serializers.IntegerField(min_value=0, help_text="Its score, Avengers Assemble included (Marvel).")
    token_count = serializers.IntegerField(min_value=0)
    cards = serializers.ListField(child=serializers.CharField(), help_text="Ids of the cards it bought, in order.")
    card_count = serializers.IntegerField(min_value=0)


class BasePlayerSerializer(_SeatCommonSerializer):
    """One seat's holdings in a base game, as the viewer may see them."""

    tokens = BaseTokensSerializer()
    bonuses = BaseBonusesSerializer()
    reserved = serializers.ListField(child=_BaseHandCardField(), max_length=len(HAND_SLOTS))
    nobles = serializers.ListField(child=serializers.CharField(), help_text="Ids of the nobles it received.")


class MarvelPlayerSerializer(_SeatCommonSerializer):
    """One seat's holdings in a Marvel game, as the viewer may see them."""

    tokens = MarvelTokensSerializer()
    bonuses = MarvelBonusesSerializer()
    reserved = serializers.ListField(child=_MarvelHandCardField(), max_length=len(HAND_SLOTS))
    locations = serializers.ListField(child=serializers.CharField(), help_text="Ids of the locations it took.")
    avengers_icons = serializers.IntegerField(min_value=0, help_text="Avengers icons on its characters.")
    avengers_assemble = serializers.BooleanField(help_text="Holds the Avengers Assemble tile (M-AVENGERS).")
    time_stone = serializers.BooleanField(help_text="Holds the green Time Stone (M-TIME).")
    gauntlet = GauntletSerializer()


class _BoardCommonSerializer(serializers.Serializer[engine.BoardView]):
    variant = serializers.ChoiceField(choices=Game.Variant.choices)
    players = serializers.IntegerField(min_value=MIN_SEATS, max_value=MAX_SEATS)
    seat = serializers.IntegerField(
        min_value=0, max_value=MAX_SEATS - 1, allow_null=True, help_text="The viewer's seat; null for a spectator."
    )
    ply = serializers.IntegerField(min_value=0, help_text="Moves played since the deal.")
    round = serializers.IntegerField(min_value=1)
    to_move = serializers.IntegerField(
        min_value=0, max_value=MAX_SEATS - 1, allow_null=True, help_text="Null once the game is over."
    )
    over = serializers.BooleanField()
    outcome = BoardOutcomeSerializer(allow_null=True, help_text="Null until the game is over.")
    final_round = serializers.BooleanField(
        help_text="The end was triggered and the round is being finished (B-END-1, M-END-2)."
    )
    forced_passes = serializers.IntegerField(min_value=0, help_text="Forced passes in a row (B-PASS-2).")
    decks = LevelCountsSerializer()
    joker = serializers.ChoiceField(choices=JOKER_LETTERS, help_text="The joker's letter.")


class BaseBoardSerializer(_BoardCommonSerializer):
    """A base game as one seat, or a spectator, may see it."""

    supply = BaseTokensSerializer()
    market = BaseMarketSerializer()
    nobles = NobleSerializer(many=True)
    seats = serializers.ListField(
        child=BasePlayerSerializer(), min_length=MIN_SEATS, max_length=MAX_SEATS, help_text="By seat index."
    )


class MarvelBoardSerializer(_BoardCommonSerializer):
    """A Splendor: Marvel game as one seat, or a spectator, may see it."""

    supply = MarvelTokensSerializer()
    market = MarvelMarketSerializer()
    locations = LocationSerializer(many=True)
    seats = serializers.ListField(
        child=MarvelPlayerSerializer(), min_length=MIN_SEATS, max_length=MAX_SEATS, help_text="By seat index."
    )
    avengers_assemble = serializers.IntegerField(
        min_value=0,
        max_value=MAX_SEATS - 1,
        allow_null=True,
        help_text="The seat holding Avengers Assemble (M-AVENGERS); null while nobody does.",
    )


@extend_schema_field(
    PolymorphicProxySerializer(
        component_name="Board",
        serializers={BASE.name: BaseBoardSerializer, MARVEL.name: MarvelBoardSerializer},
        resource_type_field_name="variant",
    )
)
class BoardField(serializers.JSONField):
    """``engine.observe``'s view, rendered as it is; the schema describes it by variant."""


class GameResultSerializer(serializers.Serializer[GameResult]):
    """How a finished game ended: one shape whatever the ending."""

    winners = _seat_list("Seats sharing first place.", min_length=1)
    scores = _per_seat("Points, by seat.")
    places = _per_seat("By seat: 1 is first; equal players share a place.", min_value=1)
    ranking = _seat_list("Seats, best first.")
    reason = serializers.ChoiceField(
        choices=RESULT_END_REASONS,
        help_text="resignation: every other player resigned; timeout: the last of them ran out of time; "
        "account-disabled: the last of them left because their account was disabled; "
        "adjudicated: a moderator decided the places.",
    )
    resigned = _seat_list("Seats that left the game, by resigning or on time.", min_length=None)
    timed_out = _seat_list("Those of them that ran out of time.", min_length=None)


@extend_schema_field(GameResultSerializer)
class GameResultField(serializers.JSONField):
    """The stored result, rendered as it is; the schema describes it as GameResult."""


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
        help_text="A moderator handed the seat to the built-in bot, which plays its turns (the seat stays "
        "recorded as its player's)."
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


class GameSummarySerializer(serializers.Serializer[GameSummary]):
    id = serializers.CharField()
    variant = serializers.ChoiceField(choices=Game.Variant.choices)
    status = serializers.ChoiceField(choices=Game.Status.choices)
    version = serializers.IntegerField(help_text="Goes up with every change; send it back as expected_version.")
    seat_count = serializers.IntegerField()
    open_seats = serializers.IntegerField()
    seats = SeatSerializer(many=True)
    to_move = serializers.IntegerField(allow_null=True, help_text="The seat whose turn it is.")
    your_seat = serializers.IntegerField(allow_null=True)
    move_timeout_hours = serializers.IntegerField(help_text="Time per move in whole hours (time_control has seconds).")
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


class GameExportSerializer(serializers.Serializer[GameExport]):
    id = serializers.CharField()
    variant = serializers.ChoiceField(choices=Game.Variant.choices)
    players = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Game.Status.choices)
    seed_commitment = serializers.CharField(allow_null=True)
    seed = serializers.CharField(allow_null=True, help_text="Decimal text; null until the game is over.")
    seats = ExportSeatSerializer(many=True)
    moves = serializers.ListField(child=serializers.CharField())
    result = GameResultField(allow_null=True, help_text="Null until the game is over.")
    moderation = ModerationExportEntrySerializer(
        many=True, help_text="What moderators did to the game, oldest first (people by user id)."
    )


# --- players -------------------------------------------------------------------


class PlayerGameSerializer(GameSummarySerializer):
    """One of your games in your export: no board, no other player's blind-reserved card."""

    seed = serializers.CharField(allow_null=True, help_text="Revealed once the game is over.")
    moves = MoveHistoryEntrySerializer(many=True)


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
