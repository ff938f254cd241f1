"""Hidden cards dealt again: full states that agree with what one seat may see.

A seat's view (``observe``) shows every card but the decks' order and the other
seats' blind reservations (B-RESERVE-3); a spectator's shows no blind reservation
at all. :func:`determinize` deals those unseen cards at random among the unseen
places, so that the state it returns gives back the same view. It reads only the
view, never a full state, so it cannot pass on the true hidden cards: the search
bot plans over such states, and a sandbox starts from one.
"""

from __future__ import annotations

import random
from typing import Any, Sequence

from .results import BoardView, EndReason
from .state import Player, State
from .variants import SLOTS, TIME, Variant, get_variant


class HiddenSampler:
    """Deals the cards that ``view`` hides, as often as asked.

    The view is read once; each :meth:`sample` then costs a shuffle per level and
    a new seat for each seat holding a hidden reservation, so a search can draw a
    fresh deal for every playout.
    """

    def __init__(self, view: BoardView) -> None:
        v = get_variant(view["variant"])
        self.variant = v
        self.n = int(view["players"])
        seen: set[str] = set()
        for row in view["market"].values():
            for face_up in row:
                if face_up is not None:
                    seen.add(face_up["id"])
        tile_key = v.tile_word + "s"
        players: list[Player] = []
        # (seat, reservation index, level) of each reservation the view hides
        self.hidden: list[tuple[int, int, int]] = []
        self.reserved: list[list[tuple[str, bool]]] = []
        for seat in view["seats"]:
            cards = tuple(seat["cards"])
            seen.update(cards)
            reserved: list[tuple[str, bool]] = []
            for k, held in enumerate(seat["reserved"]):
                if "id" in held:
                    cid = str(held["id"])
                    seen.add(cid)
                    reserved.append((cid, bool(held.get("blind", False))))
                else:
                    self.hidden.append((int(seat["seat"]), k, int(held["level"])))
                    reserved.append(("", True))
            self.reserved.append(reserved)
            tiles = tuple(seat.get("nobles") or seat.get("locations") or [])
            players.append(_player(v, seat["tokens"], cards, tuple(reserved), tiles))
        self.players = players
        self.deck_sizes = [int(view["decks"][str(level)]) for level in (1, 2, 3)]
        self.unseen: list[list[str]] = []
        for level in (1, 2, 3):
            pool = sorted(c for c in v.decks[level] if c not in seen)
            wanted = self.deck_sizes[level - 1] + sum(1 for h in self.hidden if h[2] == level)
            if len(pool) != wanted:
                raise ValueError(
                    f"the view hides {wanted} level-{level} cards but {len(pool)} are unseen"
                )
            self.unseen.append(pool)
        self.market = tuple(
            tuple(None if c is None else str(c["id"]) for c in view["market"][str(level)])
            for level in (1, 2, 3)
        )
        self.tiles = tuple(str(t["id"]) for t in view.get(tile_key, []))  # type: ignore[attr-defined]
        self.supply = _slots(v, view["supply"])
        self.ply = int(view["ply"])
        self.passes = int(view["forced_passes"])
        result = view["outcome"]
        self.over = bool(view["over"])
        self.reason = None if result is None else result["reason"]
        # B-END-1 / M-END-2: the final round is shown while it is played; at the end
        # of a points game the trigger stays set, as the rules leave it.
        self.end_triggered = bool(view["final_round"]) or (self.over and v.end == "points" and
                                                           self.reason == "points")
        self.avengers = view.get("avengers_assemble")

    def sample(self, rng: random.Random) -> State:
        """One deal of the hidden cards, drawn with ``rng``."""
        decks: list[tuple[str, ...]] = []
        dealt: dict[tuple[int, int], str] = {}
        for level in (1, 2, 3):
            pool = list(self.unseen[level - 1])
            rng.shuffle(pool)
            for seat, k, lvl in self.hidden:
                if lvl == level:
                    dealt[(seat, k)] = pool.pop()
            decks.append(tuple(pool))
        players = list(self.players)
        if dealt:
            for seat in {s for s, _ in dealt}:
                reserved = tuple(
                    (dealt[(seat, k)], True) if (seat, k) in dealt else held
                    for k, held in enumerate(self.reserved[seat])
                )
                p = players[seat]
                players[seat] = Player(p.tokens, p.bonuses, p.points, p.cards, reserved, p.tiles, p.icons)
        return State(
            variant=self.variant,
            n=self.n,
            ply=self.ply,
            supply=self.supply,
            decks=tuple(decks),
            market=self.market,
            tiles=self.tiles,
            players=tuple(players),
            passes=self.passes,
            end_triggered=self.end_triggered,
            over=self.over,
            reason=None if self.reason is None else EndReason(self.reason),
            avengers=self.avengers,
        )


def determinize(view: BoardView, rng: random.Random) -> State:
    """A full state that gives back ``view`` for its seat, the cards the view hides
    (deck order, others' blind reservations; all of them for a spectator) dealt
    at random with ``rng``. A view that does not add up raises ``ValueError``."""
    return HiddenSampler(view).sample(rng)


def _slots(v: Variant, tokens: Any) -> tuple[int, ...]:
    out = [0] * SLOTS
    for i in range(6):
        out[i] = int(tokens.get(v.letters[i], 0))
    if v.time_letter:
        out[TIME] = int(tokens.get(v.time_letter, 0))
    return tuple(out)


def _player(v: Variant, tokens: Any, cards: Sequence[str], reserved: tuple[tuple[str, bool], ...],
            tiles: tuple[str, ...]) -> Player:
    bonuses = [0] * 5
    points = icons = 0
    for cid in cards:
        c = v.cards[cid]
        bonuses[c.color] += 1
        points += c.points
        icons += c.avengers
    points += sum(v.tiles[t].points for t in tiles)
    return Player(_slots(v, tokens), tuple(bonuses), points, tuple(cards), reserved, tiles, icons)
