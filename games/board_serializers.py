"""The board and the result of a game in the OpenAPI schema: serializers that
describe the JSON ``engine.observe`` and ``games.results`` build, as named
components a generated client turns into typed models (the API passes the
board and the result through unchanged; these only describe them)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import engine
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from engine.variants import BASE, JOKER, MARVEL, Variant
from games.models import Game
from games.results import GameResult, ResultReason
from games.services import (
    MAX_SEATS,
    MIN_SEATS,
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


@extend_schema_field(
    {
        "type": "array",
        "items": {"oneOf": [{"type": "string"}, {"type": "boolean"}]},
        "minItems": 2,
        "maxItems": 2,
        "description": "[card id, reserved blind?]",
    }
)
class _ReservationField(serializers.JSONField):
    pass


class StateSeatSerializer(serializers.Serializer[dict[str, Any]]):
    """One seat of a full engine state (engine.to_dict)."""

    tokens = serializers.ListField(child=serializers.IntegerField(), help_text="Seven slots: five colours, joker, Time Stone.")
    cards = serializers.ListField(child=serializers.CharField(), help_text="Cards bought, in order.")
    reserved = serializers.ListField(child=_ReservationField(), help_text="Reserved cards, in order.")
    tiles = serializers.ListField(child=serializers.CharField(), help_text="Nobles or locations received.")


class StateSerializer(serializers.Serializer[dict[str, Any]]):
    """A full engine state, hidden cards included (engine.to_dict; engine.from_dict reads it)."""

    variant = serializers.CharField()
    players = serializers.IntegerField()
    ply = serializers.IntegerField()
    supply = serializers.ListField(child=serializers.IntegerField())
    decks = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()), help_text="Per level, top card first."
    )
    market = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField(allow_null=True)),
        help_text="Per level, slots a to d (null: empty).",
    )
    tiles = serializers.ListField(child=serializers.CharField(), help_text="Nobles or locations on the table.")
    seats = StateSeatSerializer(many=True)
    passes = serializers.IntegerField()
    end_triggered = serializers.BooleanField()
    over = serializers.BooleanField()
    reason = serializers.CharField(allow_null=True)
    avengers = serializers.IntegerField(allow_null=True)


@extend_schema_field(StateSerializer)
class StateField(serializers.JSONField):
    """A stored engine state, rendered as it is; the schema describes it as State."""
