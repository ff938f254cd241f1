"""Numbers from a seat's view: the observation of :class:`splendor_client.env.SplendorEnv`.

An :class:`ObservationEncoder` turns one ``engine.observe(state, seat)`` view (a
:class:`engine.BoardView`, never the full state) into ``float32`` numpy arrays,
one per feature of :attr:`ObservationEncoder.space` (a ``gymnasium.spaces.Dict``),
or into one flat vector (:attr:`ObservationEncoder.flat_space`, a ``Box``).
docs/actions.md ("Observation") documents every feature. Seats are written
starting from the observer: row 0 is the observer, row 1 the seat after it,
and so on, so a policy reads "me" and "the next player" the same way from every
seat.

What a view hides stays hidden: the decks are counts, another seat's blind
reservation is only its level (``hidden`` = 1). The numbers of a card or a tile
are read from the view's card (its level, colour, points, cost, and in Marvel
its Avengers icons and Time Stone) and kept by card id, the first time it is
seen, since a card's printed numbers never change.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
from engine import BoardView
from engine.variants import get_variant
from gymnasium import spaces

LEVELS = 3
MARKET_SLOTS = 4  # per level (B-SETUP-2)
MAX_RESERVED = 3  # B-RESERVE-2
GAME_FEATURES = ("ply", "round", "final_round", "forced_passes", "over")


class ObservationEncoder:
    """The features of ``variant`` with ``players`` seats: their space and the
    encoder of a view into them."""

    def __init__(self, variant: str, players: int, tile_slots: int) -> None:
        v = get_variant(variant)
        self.marvel = bool(v.avengers)
        self.colours = v.letters[:5]
        # Marvel's supply and hands also hold the Time Stone (M-TIME-1).
        self.token_letters = v.letters[:6] + (v.time_letter or "")
        self.tile_key = "locations" if v.tile_word == "location" else "nobles"
        self.players = players
        self.tile_slots = tile_slots
        self.card_width = 8 + 5 + (2 if self.marvel else 0)  # present, level, colour(5), points, cost(5)[, icons, stone]
        self.seat_width = 5 + (3 if self.marvel else 0)
        ntok = len(self.token_letters)
        plies = v.round_limit * players
        shapes: dict[str, tuple[tuple[int, ...], float]] = {
            # name: (shape, high); every feature is >= 0
            "game": ((len(GAME_FEATURES),), float(plies + 1)),
            "supply": ((ntok,), 10.0),
            "decks": ((LEVELS,), 60.0),
            "market": ((LEVELS * MARKET_SLOTS, self.card_width), 30.0),
            "tiles": ((tile_slots, 7), 10.0),
            "seats": ((players, self.seat_width), 200.0),
            "tokens": ((players, ntok), 10.0),
            "bonuses": ((players, 5), 90.0),
            "reserved": ((players, MAX_RESERVED, self.card_width + 2), 30.0),
        }
        self.space = spaces.Dict({
            name: spaces.Box(0.0, high, shape=shape, dtype=np.float32) for name, (shape, high) in shapes.items()
        })
        # Dict sorts its keys: the flat vector follows that order.
        self.layout: list[tuple[str, int, int, tuple[int, ...]]] = []
        at = 0
        for name, box in self.space.spaces.items():
            assert box.shape is not None
            size = int(np.prod(box.shape))
            self.layout.append((name, at, at + size, box.shape))
            at += size
        self.size = at
        boxes = [cast(spaces.Box, b) for b in self.space.spaces.values()]
        self.flat_space = spaces.Box(
            np.concatenate([b.low.ravel() for b in boxes]),
            np.concatenate([b.high.ravel() for b in boxes]),
            dtype=np.float32,
        )
        self._cards: dict[str, list[float]] = {}
        self._tiles: dict[str, list[float]] = {}
        self._empty_card = [0.0] * self.card_width
        self._empty_reserved = [0.0] * (self.card_width + 2)
        self._empty_tile = [0.0] * 7

    # --- one view ------------------------------------------------------------------

    def flat(self, view: BoardView) -> np.ndarray[Any, np.dtype[np.float32]]:
        """The view as one vector in the order of :attr:`flat_space`."""
        parts = self._parts(view)
        out: list[float] = []
        for name, _, _, _ in self.layout:
            out.extend(parts[name])
        return np.array(out, dtype=np.float32)

    def encode(self, view: BoardView) -> dict[str, np.ndarray[Any, np.dtype[np.float32]]]:
        """The view as the arrays of :attr:`space` (views into one new buffer)."""
        flat = self.flat(view)
        return {name: flat[start:stop].reshape(shape) for name, start, stop, shape in self.layout}

    def _parts(self, view: BoardView) -> dict[str, list[float]]:
        letters = self.token_letters
        colours = self.colours
        seat = view["seat"] or 0
        n = self.players
        order = [(seat + k) % n for k in range(n)]
        seats_view = view["seats"]
        game = [float(view["ply"]), float(view["round"]), float(view["final_round"]),
                float(view["forced_passes"]), float(view["over"])]
        supply = view["supply"]
        market: list[float] = []
        card = self._card
        for level in ("1", "2", "3"):
            for c in view["market"][level]:
                market.extend(self._empty_card if c is None else card(c))
        tiles: list[float] = []
        shown: list[Any] = view[self.tile_key]  # type: ignore[literal-required]
        for t in shown:
            tiles.extend(self._tile(t))
        tiles.extend(self._empty_tile * (self.tile_slots - len(shown)))
        seats: list[float] = []
        tokens: list[float] = []
        bonuses: list[float] = []
        reserved: list[float] = []
        tile_key = self.tile_key
        marvel = self.marvel
        for s in order:
            sv: Any = seats_view[s]
            held = sv["reserved"]
            seats.extend((sv["points"], sv["token_count"], sv["card_count"], len(held), len(sv[tile_key])))
            if marvel:
                seats.extend((sv["avengers_icons"], float(sv["avengers_assemble"]), float(sv["time_stone"])))
            have = sv["tokens"]
            tokens.extend([have[x] for x in letters])
            b = sv["bonuses"]
            bonuses.extend([b[x] for x in colours])
            for r in held:
                if r.get("hidden"):
                    row = [1.0, float(r["level"])] + [0.0] * (self.card_width - 2) + [1.0, 1.0]
                else:
                    row = card(r) + [0.0, float(r["blind"])]
                reserved.extend(row)
            reserved.extend(self._empty_reserved * (MAX_RESERVED - len(held)))
        return {
            "game": game,
            "supply": [supply[x] for x in letters],
            "decks": [view["decks"]["1"], view["decks"]["2"], view["decks"]["3"]],
            "market": market,
            "tiles": tiles,
            "seats": seats,
            "tokens": tokens,
            "bonuses": bonuses,
            "reserved": reserved,
        }

    def _card(self, c: Any) -> list[float]:
        found = self._cards.get(c["id"])
        if found is None:
            colour = self.colours.index(c["color"])
            cost = c["cost"]
            found = [1.0, float(c["level"])] + [1.0 if i == colour else 0.0 for i in range(5)]
            found += [float(c["points"])] + [float(cost.get(x, 0)) for x in self.colours]
            if self.marvel:
                found += [float(c["avengers"]), float(c["time_stone"])]
            self._cards[c["id"]] = found
        return found

    def _tile(self, t: Any) -> list[float]:
        found = self._tiles.get(t["id"])
        if found is None:
            req = t["requires"]
            found = [1.0, float(t["points"])] + [float(req.get(x, 0)) for x in self.colours]
            self._tiles[t["id"]] = found
        return found


__all__ = ["GAME_FEATURES", "ObservationEncoder"]
