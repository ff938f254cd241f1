"""Card, noble and location tables, read from the CSV files shipped in ``engine/data``."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from importlib import resources


@dataclass(frozen=True, slots=True)
class Card:
    """A development (base) or character (Marvel) card."""

    id: str
    level: int
    color: int  # index into the variant's five colours
    points: int
    cost: tuple[int, int, int, int, int]
    name: str = ""
    avengers: int = 0
    time_stone: bool = False


@dataclass(frozen=True, slots=True)
class Tile:
    """A noble (base) or location (Marvel): points for meeting a bonus requirement."""

    id: str
    points: int
    requires: tuple[int, int, int, int, int]
    name: str = ""
    group: str = ""  # Marvel: the physical double-sided tile a location is printed on


def _rows(filename: str) -> list[dict[str, str]]:
    text = resources.files("engine").joinpath("data").joinpath(filename).read_text(encoding="utf-8")
    return list(csv.DictReader(text.splitlines()))


def load_cards(filename: str, colours: tuple[str, ...]) -> dict[str, Card]:
    """Read a card table; ``colours`` names the five cost columns in order."""
    cards: dict[str, Card] = {}
    for row in _rows(filename):
        card = Card(
            id=row["id"],
            level=int(row["level"]),
            color=colours.index(row["color"]),
            points=int(row["points"]),
            cost=tuple(int(row[c]) for c in colours),  # type: ignore[arg-type]
            name=row.get("name", "") or "",
            avengers=int(row.get("avengers") or 0),
            time_stone=(row.get("grants_time_stone") or "0") == "1",
        )
        cards[card.id] = card
    return cards


def load_tiles(filename: str, colours: tuple[str, ...]) -> dict[str, Tile]:
    """Read a noble or location table."""
    tiles: dict[str, Tile] = {}
    for row in _rows(filename):
        tile = Tile(
            id=row["id"],
            points=int(row["points"]),
            requires=tuple(int(row[c]) for c in colours),  # type: ignore[arg-type]
            name=row.get("name", "") or "",
            group=row.get("tile", "") or "",
        )
        tiles[tile.id] = tile
    return tiles
