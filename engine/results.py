"""The typed shape of everything the engine hands out as data: why a game ended
(:class:`EndReason`), how it came out (:class:`Outcome`), what a move did
(:class:`MoveDetails`) and what a seat sees (:class:`BoardView` and its parts).

At run time they are plain JSON-ready dicts (``EndReason`` is a ``str``); the
classes only name their keys, so the service can annotate against them.
Keys only one variant has are ``NotRequired``; keys both have are required.
Token and colour maps are keyed by the variant's letters (base ``W U G R K``,
Marvel ``Y U O R P``; ``J`` the joker, ``T`` the Time Stone); seats are 0-based.

No ``from __future__ import annotations`` here, on purpose: with string
annotations Python 3.11 cannot see ``NotRequired`` when it builds a TypedDict,
and ``__required_keys__`` / ``__optional_keys__`` (read by schema generators and
by ``tests/engine/test_typed_results.py``) would call every key required.
"""

import enum
from typing import Literal, NotRequired, TypedDict, final


class EndReason(enum.StrEnum):
    """Why a game ended. A ``str``: it serialises (``to_dict``, ``outcome``, JSON)
    as its value, and compares equal to it."""

    POINTS = "points"  # B-END-1: the round in which someone reached the target is complete
    GAUNTLET = "gauntlet"  # M-END-2: the round is complete and someone holds the Gauntlet
    ALL_PASSED = "all-passed"  # B-PASS-2: every seat passed in a row
    ROUND_LIMIT = "round-limit"  # B-END-3: the round limit was reached


class Outcome(TypedDict):
    """How a finished game came out (``outcome``); seats are 0-based.

    ``winners``: the seats in first place (more than one on a tie), ascending.
    ``scores``: each seat's points, Avengers Assemble included, by seat.
    ``ranking``: every seat, best first (ties in seat order).
    ``places``: each seat's place, by seat; equal players share a place (1, 1, 3).
    ``reason``: why the game ended.
    """

    winners: list[int]
    scores: list[int]
    ranking: list[int]
    places: list[int]
    reason: EndReason


class MoveDetails(TypedDict):
    """What one move did (``move_details``), for the move log.

    ``seat``: who moved. ``move``: the move's canonical text.
    ``private_card``: the card a blind reservation drew, else ``None``; only the
    seat that reserved it may see it (B-RESERVE-3).
    ``tile``: the noble or location the mover received, else ``None``.
    ``time_stone``: whether the mover gained the Time Stone (M-TIME-1).
    ``avengers``: the seat that newly took Avengers Assemble, else ``None``.
    ``over``: whether the move ended the game.
    """

    seat: int
    move: str
    private_card: str | None
    tile: str | None
    time_stone: bool
    avengers: int | None
    over: bool


class CardView(TypedDict):
    """A face-up development card or character (``card_view``).

    ``id``: the card id (``2-13``). ``level``: 1 to 3. ``color``: the letter of
    the bonus it gives. ``points``: its prestige / Infinity Points. ``cost``:
    gems by letter, colours it does not cost left out.
    Marvel only: ``name`` (the character), ``avengers`` (Avengers icons on it),
    ``time_stone`` (whether recruiting it can bring the Time Stone).
    """

    id: str
    level: int
    color: str
    points: int
    cost: dict[str, int]
    name: NotRequired[str]
    avengers: NotRequired[int]
    time_stone: NotRequired[bool]


class MarketCardView(CardView):
    """A card face up in the market: a :class:`CardView` plus its ``slot``
    (``2c``: level 2, third slot), the name a player can type for it."""

    slot: str


@final
class ReservedCardView(CardView):
    """A reserved card its viewer may see: a :class:`CardView` plus ``slot``
    (``h1`` to ``h3``, in reservation order) and ``blind`` (whether it was
    reserved from the top of a deck)."""

    slot: str
    blind: bool


@final
class HiddenReservedView(TypedDict):
    """Another seat's blind reservation (B-RESERVE-3): only its ``slot``
    (``h1`` to ``h3``) and ``level`` show; ``hidden`` is always true."""

    slot: str
    level: int
    hidden: Literal[True]


class TileView(TypedDict):
    """A noble (base) or location (Marvel) tile on the table (``tile_view``).

    ``id``: ``N01`` or ``L1A``. ``points``: what it is worth. ``requires``:
    the bonuses (cards) of each colour it needs, by letter, zeros left out.
    Marvel only: ``name`` (the location).
    """

    id: str
    points: int
    requires: dict[str, int]
    name: NotRequired[str]


class GauntletView(TypedDict):
    """Marvel: how far a seat is from the Infinity Gauntlet (M-END-1).

    ``points``: the seat's score. ``points_needed``: points still missing to
    the target (0 once reached). ``missing_colors``: letters of the colours it
    has no bonus in. ``time_stone``: whether it holds the Time Stone.
    ``meets``: whether it meets every condition now.
    """

    points: int
    points_needed: int
    missing_colors: list[str]
    time_stone: bool
    meets: bool


class SeatView(TypedDict):
    """One seat as the viewer sees it.

    ``seat``: its index. ``points``: its score (Avengers Assemble included).
    ``tokens``: tokens held, by letter (jokers and, in Marvel, the Time Stone
    included). ``token_count``: their total. ``bonuses``: cards owned per
    colour, by letter. ``cards``: ids of the cards it bought, in order.
    ``card_count``: how many. ``reserved``: its reserved cards, hidden when
    reserved blind by another seat. ``nobles`` (base) / ``locations``
    (Marvel): ids of the tiles it received; exactly one of the two is present.
    Marvel only: ``avengers_icons`` (icons on its characters),
    ``avengers_assemble`` (whether it holds the tile), ``time_stone``
    (whether it holds the Time Stone), ``gauntlet`` (see :class:`GauntletView`).
    """

    seat: int
    points: int
    tokens: dict[str, int]
    token_count: int
    bonuses: dict[str, int]
    cards: list[str]
    card_count: int
    reserved: list[ReservedCardView | HiddenReservedView]
    nobles: NotRequired[list[str]]
    locations: NotRequired[list[str]]
    avengers_icons: NotRequired[int]
    avengers_assemble: NotRequired[bool]
    time_stone: NotRequired[bool]
    gauntlet: NotRequired[GauntletView]


class BoardView(TypedDict):
    """The whole game as one seat (or a spectator) sees it (``observe``).

    ``variant``: ``base`` or ``marvel``. ``players``: the number of seats.
    ``seat``: the viewer, ``None`` for a spectator. ``ply``: moves played so
    far. ``round``: the round being played, from 1. ``to_move``: the seat to
    play, ``None`` once over. ``over``: whether the game has ended.
    ``outcome``: the :class:`Outcome` once over, else ``None``. ``final_round``:
    whether the end has been triggered and the round is being finished.
    ``forced_passes``: passes in a row so far (B-PASS-2). ``supply``: tokens
    in the bank, by letter. ``market``: per level ("1" to "3"), its four slots
    a..d, ``None`` for an empty slot. ``decks``: cards left per level.
    ``nobles`` (base) / ``locations`` (Marvel): the tiles on the table;
    exactly one of the two is present. ``seats``: every seat, by index.
    ``joker``: the joker's letter. Marvel only: ``avengers_assemble`` (the
    seat holding Avengers Assemble, or ``None``).
    """

    variant: str
    players: int
    seat: int | None
    ply: int
    round: int
    to_move: int | None
    over: bool
    outcome: Outcome | None
    final_round: bool
    forced_passes: int
    supply: dict[str, int]
    market: dict[str, list[MarketCardView | None]]
    decks: dict[str, int]
    nobles: NotRequired[list[TileView]]
    locations: NotRequired[list[TileView]]
    seats: list[SeatView]
    joker: str
    avengers_assemble: NotRequired[int | None]
