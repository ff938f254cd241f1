"""Variants: everything that differs between Splendor and Splendor: Marvel, as data.

The rules code reads a :class:`Variant` and never tests a variant's name, so a
third variant is a new instance here, not a fork of the rules.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable

from .data import Card, Tile, load_cards, load_tiles

# Token vectors everywhere in the engine have seven slots: the five colours,
# the joker, then the Marvel Time Stone (always 0 in the base game).
JOKER = 5
TIME = 6
SLOTS = 7


@dataclass(frozen=True)
class Variant:
    """The components and end condition of one game variant."""

    name: str
    colours: tuple[str, str, str, str, str]
    letters: str  # six letters: the five colours, then the joker (notation.md)
    joker_name: str
    untakeable: str  # the tokens no take action can take, in words (B-TAKE-3, M-TAKE-1)
    time_letter: str  # "" when the variant has no Time Stone
    words: dict[str, str]  # lenient parser: word -> letter
    cards: dict[str, Card]
    tiles: dict[str, Tile]
    tile_word: str  # "noble" or "location" (notation suffix and deal key, plural)
    gems: Callable[[int], int]  # tokens per colour for N players
    jokers: int
    time_stones: Callable[[int], int]
    deal_tiles: Callable[[random.Random, int], list[str]]
    tiles_in_game: Callable[[int], int]
    end: str  # "points" (B-END-1) or "gauntlet" (M-END-1..5)
    target_points: int
    avengers: bool
    round_limit: int = 100  # B-END-3
    rules: dict[str, str] = field(default_factory=dict)
    decks: dict[int, tuple[str, ...]] = field(default_factory=dict)
    _costs: dict[str, tuple[int, ...]] = field(init=False, repr=False, compare=False, default_factory=dict)

    @property
    def costs(self) -> dict[str, tuple[int, ...]]:
        """Card id -> cost over the five colours (a hot-path shortcut)."""
        return self._costs

    @property
    def has_card_names(self) -> bool:
        """Whether cards have names a player may type (Marvel characters)."""
        return any(c.name for c in self.cards.values())

    def __post_init__(self) -> None:
        object.__setattr__(self, "_costs", {cid: c.cost for cid, c in self.cards.items()})

    def rule(self, key: str) -> str:
        """The rule id this variant cites for a kind of error (see ``RULE_KEYS``)."""
        return self.rules.get(key, BASE_RULES[key])

    @property
    def all_letters(self) -> str:
        return self.letters + self.time_letter

    def letter_index(self, letter: str) -> int:
        """Slot index of a token letter, or -1."""
        idx = self.all_letters.find(letter.upper())
        return idx

    def supply(self, players: int) -> tuple[int, ...]:
        g = self.gems(players)
        return (g, g, g, g, g, self.jokers, self.time_stones(players))


BASE_RULES = {
    "take3": "B-TAKE-3",
    "take2": "B-TAKE-2",
    "take_joker": "B-TAKE-3",
    "reserve": "B-RESERVE-1",
    "reserve_limit": "B-RESERVE-2",
    "buy": "B-BUY-1",
    "market": "B-MARKET-1",
    "limit": "B-LIMIT-1",
    "limit_time": "B-LIMIT-1",
    "tile": "B-NOBLE-1",
    "tile_choice": "B-NOBLE-2",
    "pass": "B-PASS-1",
    "over": "B-END-1",
}


def _decks(cards: dict[str, Card]) -> dict[int, tuple[str, ...]]:
    return {lvl: tuple(sorted(c.id for c in cards.values() if c.level == lvl)) for lvl in (1, 2, 3)}


def _gem_count(players: int) -> int:
    # B-SETUP-4 / M-SETUP-1
    return {2: 4, 3: 5, 4: 7}[players]


def _base_nobles(rng: random.Random, players: int) -> list[str]:
    # B-SETUP-3: players + 1 nobles at random
    return rng.sample(sorted(BASE_TILES), players + 1)


def _marvel_locations(rng: random.Random, players: int) -> list[str]:
    # M-SETUP-2: as many tiles as players, each showing a random side
    groups = sorted({t.group for t in MARVEL_TILES.values()})
    chosen = rng.sample(groups, players)
    return [f"L{g}{rng.choice('AB')}" for g in chosen]


BASE_COLOURS = ("white", "blue", "green", "red", "black")
MARVEL_COLOURS = ("yellow", "blue", "orange", "red", "purple")

BASE_CARDS = load_cards("base_cards.csv", BASE_COLOURS)
BASE_TILES = load_tiles("base_nobles.csv", BASE_COLOURS)
MARVEL_CARDS = load_cards("marvel_cards.csv", MARVEL_COLOURS)
MARVEL_TILES = load_tiles("marvel_locations.csv", MARVEL_COLOURS)

BASE = Variant(
    name="base",
    colours=BASE_COLOURS,
    letters="WUGRKJ",
    joker_name="gold",
    untakeable="gold",
    time_letter="",
    words={
        "white": "W", "diamond": "W", "diamonds": "W",
        "blue": "U", "sapphire": "U", "sapphires": "U",
        "green": "G", "emerald": "G", "emeralds": "G",
        "red": "R", "ruby": "R", "rubies": "R",
        "black": "K", "onyx": "K", "onyxes": "K",
        "gold": "J", "joker": "J", "jokers": "J",
    },
    cards=BASE_CARDS,
    tiles=BASE_TILES,
    tile_word="noble",
    gems=_gem_count,
    jokers=5,
    time_stones=lambda players: 0,
    deal_tiles=_base_nobles,
    tiles_in_game=lambda players: players + 1,
    end="points",
    target_points=15,
    avengers=False,
    decks=_decks(BASE_CARDS),
)

MARVEL = Variant(
    name="marvel",
    colours=MARVEL_COLOURS,
    letters="YUORPJ",
    joker_name="grey",
    untakeable="grey or green",
    time_letter="T",
    words={
        "yellow": "Y", "mind": "Y",
        "blue": "U", "space": "U",
        "orange": "O", "soul": "O",
        "red": "R", "reality": "R",
        "purple": "P", "power": "P",
        "grey": "J", "gray": "J", "shield": "J", "s.h.i.e.l.d.": "J", "joker": "J", "jokers": "J",
        "green": "T", "time": "T",
    },
    cards=MARVEL_CARDS,
    tiles=MARVEL_TILES,
    tile_word="location",
    gems=_gem_count,
    jokers=5,
    time_stones=lambda players: players,  # M-SETUP-1: one per player
    deal_tiles=_marvel_locations,
    tiles_in_game=lambda players: players,
    end="gauntlet",
    target_points=16,  # M-END-1
    avengers=True,
    rules={
        "take3": "M-TAKE-1",
        "take_joker": "M-TAKE-1",
        "reserve": "M-RESERVE-1",
        "buy": "M-BUY-1",
        "market": "M-MARKET-1",
        "limit_time": "M-TIME-3",
        "tile": "M-LOCATION-1",
        "tile_choice": "M-LOCATION-2",
        "over": "M-END-2",
    },
    decks=_decks(MARVEL_CARDS),
)

VARIANTS: dict[str, Variant] = {"base": BASE, "marvel": MARVEL}


def get_variant(name: str) -> Variant:
    """The variant called ``name``; a ``ValueError`` naming the known ones otherwise."""
    try:
        return VARIANTS[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(VARIANTS))
        raise ValueError(f"unknown variant {name!r}; known variants: {known}") from None
