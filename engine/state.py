"""Game state as a value: :class:`State` and :class:`Player`, set-up and serialisation.

States are never mutated once built; the rules module builds new ones. The only
private slots that change are memos of the rules module (the legal moves, the
market as a bit mask, the plain reservations), each a pure function of the rest
of the state.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any, Mapping, Sequence

from .results import EndReason
from .variants import SLOTS, Variant, get_variant

Tokens = tuple[int, ...]  # seven slots, see variants.SLOTS
Reserved = tuple[tuple[str, bool], ...]  # (card id, reserved blind?) in reservation order


class Player:
    """One seat's holdings.

    ``engine.rules.apply_legal`` builds players (and states) slot by slot, without
    ``__init__``: a new slot is set there too.
    """

    __slots__ = ("tokens", "bonuses", "points", "cards", "reserved", "tiles", "icons",
                 "_tile_memo", "_reserved_bits")
    FIELDS = ("tokens", "bonuses", "points", "cards", "reserved", "tiles", "icons")

    def __init__(
        self,
        tokens: Tokens,
        bonuses: tuple[int, ...],
        points: int,
        cards: tuple[str, ...],
        reserved: Reserved,
        tiles: tuple[str, ...],
        icons: int,
    ) -> None:
        self.tokens = tokens
        self.bonuses = bonuses  # derivable from cards; kept because every move reads it
        self.points = points  # cards + tiles (Avengers Assemble is added by score())
        self.cards = cards
        self.reserved = reserved
        self.tiles = tiles
        self.icons = icons  # Avengers icons on recruited characters
        # Memos of the rules module: (the tiles on the table, what these bonuses
        # make of them), and the reserved cards as a bit mask; functions of the
        # fields above, never part of the value.
        self._tile_memo: Any = None
        self._reserved_bits: Any = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Player) and all(
            getattr(self, a) == getattr(other, a) for a in Player.FIELDS
        )

    def __hash__(self) -> int:
        return hash((self.tokens, self.cards, self.reserved, self.tiles))

    def __repr__(self) -> str:
        return (
            f"Player(tokens={self.tokens}, points={self.points}, cards={len(self.cards)}, "
            f"reserved={self.reserved}, tiles={self.tiles})"
        )


EMPTY_PLAYER = Player((0,) * SLOTS, (0,) * 5, 0, (), (), (), 0)


class State:
    """A whole game position, hidden information included (server side only).

    ``engine.rules.apply_legal`` builds states slot by slot, without
    ``__init__``: a new slot is set there too.
    """

    __slots__ = (
        "variant", "n", "ply", "supply", "decks", "market", "tiles", "players",
        "passes", "end_triggered", "over", "reason", "avengers",
        "_legal", "_index", "_market_bits", "_reserves",
    )

    def __init__(
        self,
        variant: Variant,
        n: int,
        ply: int,
        supply: Tokens,
        decks: tuple[tuple[str, ...], ...],
        market: tuple[tuple[str | None, ...], ...],
        tiles: tuple[str, ...],
        players: tuple[Player, ...],
        passes: int = 0,
        end_triggered: bool = False,
        over: bool = False,
        reason: EndReason | None = None,
        avengers: int | None = None,
    ) -> None:
        self.variant = variant
        self.n = n
        self.ply = ply
        self.supply = supply
        self.decks = decks  # per level, top card first
        self.market = market  # per level, four slots a..d; None = empty slot
        self.tiles = tiles  # nobles / locations still on the table
        self.players = players
        self.passes = passes  # forced passes in a row (B-PASS-2)
        self.end_triggered = end_triggered  # B-END-1 / M-END-2: the round is being finished
        self.over = over
        self.reason = reason  # None until the game is over
        self.avengers = avengers  # seat holding Avengers Assemble (M-AVENGERS)
        # Memos of the rules module: functions of the fields above, never part of the value.
        self._legal: Any = None
        self._index: Any = None
        self._market_bits: Any = None
        self._reserves: Any = None

    @property
    def seat(self) -> int:
        return self.ply % self.n

    def _key(self) -> tuple[Any, ...]:
        return (
            self.variant.name, self.n, self.ply, self.supply, self.decks, self.market,
            self.tiles, self.players, self.passes, self.end_triggered, self.over,
            self.reason, self.avengers,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"<State {self.variant.name} players={self.n} ply={self.ply} over={self.over}>"


def clear_memos(state: State) -> None:
    """Forget what the rules module memoised on ``state`` and its seats, so the
    next query computes it from scratch (``python -m engine bench`` times it so)."""
    state._legal = state._index = state._market_bits = state._reserves = None
    for p in state.players:
        p._tile_memo = p._reserved_bits = None


def score(state: State, seat: int) -> int:
    """Prestige / Infinity Points of a seat, Avengers Assemble included (M-AVENGERS-1)."""
    return state.players[seat].points + (3 if state.avengers == seat else 0)


def new_game(
    variant: str = "base",
    players: int = 2,
    seed: int | None = None,
    deal: Mapping[str, Any] | None = None,
) -> State:
    """Set up a game (B-SETUP, M-SETUP) from a seed, or from an explicit ``deal``.

    A seed shuffles each level's deck and draws the tiles with a private
    ``random.Random(seed)``; an explicit deal names the decks top first (the first
    four of each level go face up) and the revealed nobles or locations. Exactly
    one of ``seed`` and ``deal`` must be given.
    """
    v = get_variant(variant)
    if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 4:
        raise ValueError(f"B-SETUP-1: a game has 2 to 4 players, not {players!r}")
    if (seed is None) == (deal is None):
        raise ValueError("give exactly one of seed and deal")
    if seed is not None:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"the seed must be an integer, not {seed!r}")
        rng = random.Random(seed)
        decks = []
        for level in (1, 2, 3):
            deck = list(v.decks[level])
            rng.shuffle(deck)
            decks.append(deck)
        tiles = v.deal_tiles(rng, players)
    else:
        assert deal is not None
        decks, tiles = _check_deal(v, players, deal)
    market = []
    rest = []
    for deck in decks:
        face_up = list(deck[:4]) + [None] * (4 - min(4, len(deck)))
        market.append(tuple(face_up))
        rest.append(tuple(deck[4:]))
    return State(
        variant=v,
        n=players,
        ply=0,
        supply=v.supply(players),
        decks=tuple(rest),
        market=tuple(market),
        tiles=tuple(tiles),
        players=tuple(EMPTY_PLAYER for _ in range(players)),
    )


def _check_deal(v: Variant, players: int, deal: Mapping[str, Any]) -> tuple[list[list[str]], list[str]]:
    if not isinstance(deal, Mapping):
        raise ValueError("deal must be a mapping with 'decks' and the tiles")
    tile_key = v.tile_word + "s"
    unknown = set(deal) - {"decks", tile_key}
    if unknown:
        raise ValueError(f"unknown deal keys {sorted(unknown)}; expected 'decks' and {tile_key!r}")
    raw_decks = deal.get("decks")
    if not isinstance(raw_decks, Mapping):
        raise ValueError("deal['decks'] must map levels 1, 2, 3 to lists of card ids")
    decks: list[list[str]] = []
    seen: set[str] = set()
    for level in (1, 2, 3):
        ids = raw_decks.get(level, raw_decks.get(str(level), []))
        if not isinstance(ids, Sequence) or isinstance(ids, str):
            raise ValueError(f"deal deck {level} must be a list of card ids")
        for cid in ids:
            card = v.cards.get(cid) if isinstance(cid, str) else None
            if card is None or card.level != level:
                raise ValueError(f"{cid!r} is not a level-{level} card of the {v.name} game")
            if cid in seen:
                raise ValueError(f"card {cid} is dealt twice")
            seen.add(cid)
        decks.append(list(ids))
    tiles = deal.get(tile_key)
    expected = v.tiles_in_game(players)
    if not isinstance(tiles, Sequence) or isinstance(tiles, str) or len(tiles) != expected:
        raise ValueError(f"deal[{tile_key!r}] must list exactly {expected} {tile_key} for {players} players")
    groups = set()
    for tid in tiles:
        tile = v.tiles.get(tid) if isinstance(tid, str) else None
        if tile is None:
            raise ValueError(f"{tid!r} is not one of the {v.name} game's {tile_key}")
        key = tile.group or tile.id
        if key in groups:
            raise ValueError(f"{tid} is dealt twice (or both sides of one tile)")
        groups.add(key)
    return decks, list(tiles)


def seat_permutation(seed: int, players: int) -> list[int]:
    """A verifiable seat order from a game's seed: ``result[seat]`` is the index of
    the joined player (in join order) who gets that seat.

    It uses its own stream (derived from the seed by SHA-256) so that it does not
    change the deal.
    """
    digest = hashlib.sha256(f"seats:{seed}".encode()).digest()
    order = list(range(players))
    random.Random(int.from_bytes(digest, "big")).shuffle(order)
    return order


# --- serialisation -----------------------------------------------------------

def to_dict(state: State) -> dict[str, Any]:
    """The full state as JSON-ready data (hidden information included: server only).

    ``reason`` is the :class:`EndReason`'s plain string value (or ``None``).
    """
    return {
        "variant": state.variant.name,
        "players": state.n,
        "ply": state.ply,
        "supply": list(state.supply),
        "decks": [list(d) for d in state.decks],
        "market": [list(m) for m in state.market],
        "tiles": list(state.tiles),
        "seats": [
            {
                "tokens": list(p.tokens),
                "cards": list(p.cards),
                "reserved": [[cid, blind] for cid, blind in p.reserved],
                "tiles": list(p.tiles),
            }
            for p in state.players
        ],
        "passes": state.passes,
        "end_triggered": state.end_triggered,
        "over": state.over,
        "reason": None if state.reason is None else state.reason.value,
        "avengers": state.avengers,
    }


def from_dict(d: Mapping[str, Any]) -> State:
    """Rebuild a state from :func:`to_dict` output; bad data raises ``ValueError``."""
    try:
        v = get_variant(d["variant"])
        players = []
        for s in d["seats"]:
            cards = tuple(s["cards"])
            bonuses = [0] * 5
            points = 0
            icons = 0
            for cid in cards:
                c = v.cards[cid]
                bonuses[c.color] += 1
                points += c.points
                icons += c.avengers
            tiles = tuple(s["tiles"])
            points += sum(v.tiles[t].points for t in tiles)
            players.append(Player(
                tokens=tuple(int(x) for x in s["tokens"]),
                bonuses=tuple(bonuses),
                points=points,
                cards=cards,
                reserved=tuple((str(cid), bool(blind)) for cid, blind in s["reserved"]),
                tiles=tiles,
                icons=icons,
            ))
        state = State(
            variant=v,
            n=int(d["players"]),
            ply=int(d["ply"]),
            supply=tuple(int(x) for x in d["supply"]),
            decks=tuple(tuple(x) for x in d["decks"]),
            market=tuple(tuple(x) for x in d["market"]),
            tiles=tuple(d["tiles"]),
            players=tuple(players),
            passes=int(d["passes"]),
            end_triggered=bool(d["end_triggered"]),
            over=bool(d["over"]),
            reason=None if d["reason"] is None else EndReason(d["reason"]),
            avengers=d["avengers"],
        )
    except (KeyError, TypeError, IndexError, ValueError) as exc:
        raise ValueError(f"not a state dictionary: {exc}") from None
    _check_state(state)
    return state


def _check_state(state: State) -> None:
    """Refuse data that names unknown cards or tiles or has the wrong shape."""
    v = state.variant

    def bad(why: str) -> ValueError:
        return ValueError(f"not a state dictionary: {why}")

    if not 2 <= state.n <= 4 or len(state.players) != state.n:
        raise bad("the number of seats does not match 'players'")
    if len(state.supply) != SLOTS or any(len(p.tokens) != SLOTS for p in state.players):
        raise bad(f"token vectors must have {SLOTS} slots")
    if len(state.decks) != 3 or len(state.market) != 3 or any(len(r) != 4 for r in state.market):
        raise bad("there must be three decks and three market rows of four slots")
    for level, (deck, row) in enumerate(zip(state.decks, state.market), start=1):
        for cid in list(deck) + [c for c in row if c is not None]:
            if cid not in v.cards or v.cards[cid].level != level:
                raise bad(f"{cid!r} is not a level-{level} card of the {v.name} game")
    for p in state.players:
        for cid in list(p.cards) + [c for c, _ in p.reserved]:
            if cid not in v.cards:
                raise bad(f"{cid!r} is not a card of the {v.name} game")
        for tid in p.tiles:
            if tid not in v.tiles:
                raise bad(f"{tid!r} is not a tile of the {v.name} game")
    for tid in state.tiles:
        if tid not in v.tiles:
            raise bad(f"{tid!r} is not a tile of the {v.name} game")
    if state.avengers is not None and state.avengers not in range(state.n):
        raise bad("'avengers' must be a seat or null")
    if state.over != (state.reason is not None):
        raise bad("'reason' must be given exactly when 'over' is true")
