"""A seat's view as numbers: the observation of learning environments.

``features(variant, players)`` gives the :class:`Features` of that game: the
named arrays an observation is made of (:attr:`Features.items`, each a
:class:`Feature` with its shape and bound) and two encoders of one seat's view
into ``float32`` numbers, written one feature after another in the order of
:attr:`Features.items` (which is alphabetical):

- :meth:`Features.encode_view` reads a view that ``observe`` made: the
  definition, and the reference that the tests hold the other to;
- :meth:`Features.encode` reads the state directly, but only what
  ``observe(state, seat)`` shows (deck sizes, never their order; another seat's
  blind reservation as its level alone, B-RESERVE-3), for the cost of a few
  microseconds instead of building the view. Its result equals the first's
  for every state and seat.

Seats are written starting from the observer: row 0 is the observer, row 1 the
seat after it in turn order, and so on, so a policy reads "me" and "the next
player" the same way from every seat. docs/actions.md ("Observation") lists
every number.

The engine stays free of numpy: ``encode`` returns a ``bytearray`` of native
``float32`` values, which ``numpy.frombuffer(buf, numpy.float32)`` reads
without a copy.
"""

from __future__ import annotations

import struct
from functools import cache
from typing import Any, Callable, NamedTuple

from .results import BoardView
from .state import Player, State, new_game
from .variants import TIME, get_variant

LEVELS = 3
MARKET_SLOTS = 4  # per level (B-SETUP-2)
MAX_RESERVED = 3  # B-RESERVE-2
BOARD_NUMBERS = ("ply", "round", "final_round", "forced_passes", "over")
TILE_WIDTH = 7  # present, points, required bonuses (5)


class Feature(NamedTuple):
    """One named array of an observation: its shape and the largest value it takes
    (every value is at least 0)."""

    name: str
    shape: tuple[int, ...]
    high: float

    @property
    def size(self) -> int:
        size = 1
        for n in self.shape:
            size *= n
        return size


class Features:
    """The numbers of ``variant`` with ``players`` seats (2-4)."""

    def __init__(self, variant: str, players: int) -> None:
        v = get_variant(variant)
        self.variant = v
        self.players = players
        self.marvel = bool(v.avengers)
        colours = v.letters[:5]
        self.colours = colours
        # Marvel's supply and hands also hold the Time Stone (M-TIME-1), the slot after the joker.
        self.token_letters = v.letters[:6] + (v.time_letter or "")
        ntok = len(self.token_letters)
        assert ntok == (TIME + 1 if self.marvel else TIME)
        self.tile_key = "locations" if v.tile_word == "location" else "nobles"
        self.tile_slots = len(new_game(variant=variant, players=players, seed=0).tiles)
        # A card row: present, level, colour (5, one-hot), points, cost (5)[, Avengers icons, Time Stone].
        self.card_width = 13 + (2 if self.marvel else 0)
        # A seat row: points, tokens held, cards, reserved, tiles[, icons, Avengers Assemble, Time Stone],
        # then its tokens (token-letter order) and its bonuses (colour order).
        self.seat_numbers = 5 + (3 if self.marvel else 0)
        self.seat_width = self.seat_numbers + ntok + 5
        plies = v.round_limit * players
        self.items: tuple[Feature, ...] = (
            Feature("board", (len(BOARD_NUMBERS) + ntok + LEVELS,), float(plies + 1)),
            Feature("market", (LEVELS * MARKET_SLOTS, self.card_width), 30.0),
            Feature("reserved", (players, MAX_RESERVED, self.card_width + 2), 30.0),
            Feature("seats", (players, self.seat_width), 200.0),
            Feature("tiles", (self.tile_slots, TILE_WIDTH), 10.0),
        )
        assert [f.name for f in self.items] == sorted(f.name for f in self.items)
        self.size = sum(f.size for f in self.items)

        # What encode() joins: every card's, tile's and empty row's bytes, made once.
        self._cards: dict[str, bytes] = {}
        self._reserved: dict[tuple[str, bool], bytes] = {}
        card_row = struct.Struct(f"={self.card_width}f").pack
        reserved_row = struct.Struct(f"={self.card_width + 2}f").pack
        for cid in v.cards:
            numbers = self._card_numbers(v.cards[cid])
            self._cards[cid] = card_row(*numbers)
            for blind in (False, True):
                self._reserved[(cid, blind)] = reserved_row(*numbers, 0.0, float(blind))
        # Another seat's blind reservation: present, level, hidden and blind (B-RESERVE-3).
        self._hidden = {
            level: reserved_row(1.0, float(level), *[0.0] * (self.card_width - 2), 1.0, 1.0)
            for level in range(1, LEVELS + 1)
        }
        tile_row = struct.Struct(f"={TILE_WIDTH}f").pack
        self._tiles = {tid: tile_row(1.0, float(t.points), *t.requires[:5]) for tid, t in v.tiles.items()}
        self._empty_card = bytes(4 * self.card_width)
        self._empty_reserved = [bytes(4 * (self.card_width + 2) * k) for k in range(MAX_RESERVED + 1)]
        self._empty_tiles = [bytes(4 * TILE_WIDTH * k) for k in range(self.tile_slots + 1)]
        self._board = struct.Struct(f"={len(BOARD_NUMBERS) + ntok + LEVELS}f").pack
        self._seat = struct.Struct(f"={self.seat_width}f").pack
        #: ``encode`` without its checks, for a caller that knows ``state`` is a game of
        #: this variant and player count and ``seat`` one of its seats (an environment
        #: encoding its own game): the same bytes, a few tenths of a microsecond sooner.
        self.encode_trusted: Callable[[State, int], bytearray] = self._state_encoder()

    def __reduce__(self) -> tuple[Any, ...]:
        # Built again where it is unpickled (its packers are not picklable; its memos need not travel).
        return (Features, (self.variant.name, self.players))

    def _card_numbers(self, card: Any) -> list[float]:
        numbers = [1.0, float(card.level)] + [1.0 if i == card.color else 0.0 for i in range(5)]
        numbers += [float(card.points)] + [float(x) for x in card.cost[:5]]
        if self.marvel:
            numbers += [float(card.avengers), float(card.time_stone)]
        return numbers

    # --- from the state, showing only what the seat may see ------------------------

    def encode(self, state: State, seat: int) -> bytearray:
        """``seat``'s view of ``state`` as ``float32`` numbers (native byte order),
        equal to ``encode_view(observe(state, seat))``."""
        n = self.players
        if state.variant.name != self.variant.name or state.n != n:  # by name: a copied state has its own Variant
            raise ValueError(f"these features are for {self.variant.name} with {n} players, "
                             f"not {state.variant.name} with {state.n}")
        if not (type(seat) is int and 0 <= seat < n):  # noqa: E721  (bool is not a seat)
            raise ValueError(f"seat must be 0..{n - 1}, not {seat!r}")
        return self.encode_trusted(state, seat)

    def _state_encoder(self) -> Callable[[State, int], bytearray]:
        """The body of ``encode``: a closure over the packers, the bytes made once and
        the memos, which runs on every step of an environment (a name in a closure is
        read faster than an attribute)."""
        n, marvel = self.players, self.marvel
        board, seat_row = self._board, self._seat
        cards, empty_card = self._cards, self._empty_card
        tile_rows, empty_tiles, tile_slots = self._tiles, self._empty_tiles, self.tile_slots
        reserved_rows, hidden, empty_reserved = self._reserved, self._hidden, self._empty_reserved
        others = [[(seat + k) % n for k in range(1, n)] for seat in range(n)]  # in turn order after each seat
        join = bytearray().join  # a new bytearray each call (the empty separator is never written to)
        seats = tuple(range(n))
        # The last market, each of its rows and the tiles, with their bytes, by identity:
        # states share the parts a move leaves alone (a market row included).
        market_key: Any = None
        market_bytes = b""
        row_keys: list[Any] = [None] * LEVELS
        row_bytes = [b""] * LEVELS
        tiles_key: Any = None
        tiles_bytes = b""
        # Per seat, the last: player, whether it held Avengers Assemble, seat row, reserved
        # rows as the seat itself sees them and as the others see them.
        seen: list[Any] = [None] * n
        assembled = [False] * n
        seat_rows = [b""] * n
        own_rows = [b""] * n
        other_rows = [b""] * n

        def reserved_bytes(reserved: Any, own: bool) -> bytes:
            rows = []
            for cid, blind in reserved:
                # Another seat's blind reservation: only its level (the card id's first digit).
                rows.append(hidden[int(cid[0])] if blind and not own else reserved_rows[(cid, blind)])
            rows.append(empty_reserved[MAX_RESERVED - len(reserved)])
            return b"".join(rows)

        def reserve_rows(s: int, reserved: Any) -> None:
            own_rows[s] = own = reserved_bytes(reserved, True)
            blind = False
            for _, b in reserved:
                blind = blind or b
            other_rows[s] = reserved_bytes(reserved, False) if blind else own

        def encode(state: State, seat: int) -> bytearray:
            nonlocal market_key, market_bytes, tiles_key, tiles_bytes
            decks = state.decks
            over = state.over
            ply = state.ply
            if marvel:
                head = board(ply, ply // n + 1, state.end_triggered and not over, state.passes, over,
                             *state.supply, len(decks[0]), len(decks[1]), len(decks[2]))
            else:
                s0, s1, s2, s3, s4, s5, _ = state.supply
                head = board(ply, ply // n + 1, state.end_triggered and not over, state.passes, over,
                             s0, s1, s2, s3, s4, s5, len(decks[0]), len(decks[1]), len(decks[2]))
            market = state.market
            if market is not market_key:
                for level in range(LEVELS):
                    row = market[level]
                    if row is not row_keys[level]:
                        row_keys[level] = row
                        row_bytes[level] = b"".join([empty_card if cid is None else cards[cid] for cid in row])
                market_key, market_bytes = market, b"".join(row_bytes)
            players = state.players
            avengers = state.avengers
            for s in seats:
                p = players[s]
                # A seat's numbers change only with its holdings and Avengers Assemble; its
                # reserved cards' rows, with its reserve.
                if p is not seen[s] or assembled[s] != (avengers == s):
                    before = seen[s]
                    reserved = p.reserved
                    if before is None or before.reserved is not reserved:
                        reserve_rows(s, reserved)
                    tokens = p.tokens
                    assembles = assembled[s] = avengers == s
                    points = p.points + (3 if assembles else 0)  # score() (M-AVENGERS-1)
                    if marvel:
                        seat_rows[s] = seat_row(points, sum(tokens), len(p.cards), len(reserved), len(p.tiles),
                                                p.icons, assembles, tokens[TIME] > 0, *tokens, *p.bonuses)
                    else:
                        t0, t1, t2, t3, t4, t5, t6 = tokens
                        seat_rows[s] = seat_row(points, t0 + t1 + t2 + t3 + t4 + t5 + t6, len(p.cards), len(reserved),
                                                len(p.tiles), t0, t1, t2, t3, t4, t5, *p.bonuses)
                    seen[s] = p
            tiles = state.tiles
            if tiles is not tiles_key:
                tiles_key = tiles
                tiles_bytes = b"".join([tile_rows[t] for t in tiles]) + empty_tiles[tile_slots - len(tiles)]
            # The observer's rows first, then the others' in turn order; the observer sees
            # its own reserved cards, the others' blind reservations are their level alone.
            if n == 2:
                o = 1 - seat
                return join((head, market_bytes, own_rows[seat], other_rows[o], seat_rows[seat], seat_rows[o],
                             tiles_bytes))
            rest = others[seat]
            return join([head, market_bytes, own_rows[seat], *[other_rows[s] for s in rest],
                         seat_rows[seat], *[seat_rows[s] for s in rest], tiles_bytes])

        return encode

    # --- from a view: the definition --------------------------------------------------

    def encode_view(self, view: BoardView) -> list[float]:
        """The numbers of a view made by ``observe(state, seat)`` for a seat (not a
        spectator's), in the order of :attr:`items`."""
        if view["variant"] != self.variant.name or view["players"] != self.players:
            raise ValueError(f"these features are for {self.variant.name} with {self.players} players, "
                             f"not {view['variant']} with {view['players']}")
        seat = view["seat"]
        if seat is None:
            raise ValueError("a spectator's view has no observer to start the seats from")
        letters, colours, n = self.token_letters, self.colours, self.players
        order = [(seat + k) % n for k in range(n)]
        board = [float(view[name]) for name in BOARD_NUMBERS]  # type: ignore[literal-required]
        board += [float(view["supply"][x]) for x in letters]
        board += [float(view["decks"][str(level)]) for level in range(1, LEVELS + 1)]
        market: list[float] = []
        for level in range(1, LEVELS + 1):
            for c in view["market"][str(level)]:
                market += [0.0] * self.card_width if c is None else self._view_card(c)
        reserved: list[float] = []
        seats: list[float] = []
        for s in order:
            sv: Any = view["seats"][s]
            held = sv["reserved"]
            for r in held:
                if r.get("hidden"):
                    reserved += [1.0, float(r["level"])] + [0.0] * (self.card_width - 2) + [1.0, 1.0]
                else:
                    reserved += self._view_card(r) + [0.0, float(r["blind"])]
            reserved += [0.0] * ((self.card_width + 2) * (MAX_RESERVED - len(held)))
            seats += [float(sv["points"]), float(sv["token_count"]), float(sv["card_count"]),
                      float(len(held)), float(len(sv[self.tile_key]))]
            if self.marvel:
                seats += [float(sv["avengers_icons"]), float(sv["avengers_assemble"]), float(sv["time_stone"])]
            seats += [float(sv["tokens"][x]) for x in letters]
            seats += [float(sv["bonuses"][x]) for x in colours]
        tiles: list[float] = []
        shown: list[Any] = view[self.tile_key]  # type: ignore[literal-required]
        for t in shown:
            tiles += [1.0, float(t["points"])] + [float(t["requires"].get(x, 0)) for x in colours]
        tiles += [0.0] * (TILE_WIDTH * (self.tile_slots - len(shown)))
        return board + market + reserved + seats + tiles

    def _view_card(self, c: Any) -> list[float]:
        colour = self.colours.index(c["color"])
        numbers = [1.0, float(c["level"])] + [1.0 if i == colour else 0.0 for i in range(5)]
        numbers += [float(c["points"])] + [float(c["cost"].get(x, 0)) for x in self.colours]
        if self.marvel:
            numbers += [float(c["avengers"]), float(c["time_stone"])]
        return numbers


@cache
def features(variant: str, players: int) -> Features:
    """The (shared, built once) :class:`Features` of ``variant`` with ``players`` seats."""
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4:
        raise ValueError(f"B-SETUP-1: a game has 2 to 4 players, not {players!r}")
    return Features(variant, players)


__all__ = ["BOARD_NUMBERS", "Feature", "Features", "features"]
