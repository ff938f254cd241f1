"""A one-ply greedy bot: buys what scores, saves towards the cheapest good card.

It reads only its seat's view and the legal move texts, so it plays the same
through the REST API as in self-play.
"""

from __future__ import annotations

from typing import Sequence

from ..moves import move_from_text
from ..results import BoardView, CardView
from .base import Bot


class GreedyBot(Bot):
    """Scores every legal move with a short heuristic and plays the best."""

    name = "greedy"

    def choose(self, view: BoardView, legal: Sequence[str]) -> str:
        seat = view["seat"]
        if seat is None:
            raise ValueError("a bot plays a seat; this is a spectator's view")
        me = view["seats"][seat]
        letters = [k for k in me["bonuses"]]  # the five colour letters, in order
        bonus = me["bonuses"]
        tokens = me["tokens"]
        cards: dict[str, CardView] = {}
        for row in view["market"].values():
            for face_up in row:
                if face_up:
                    cards[face_up["id"]] = face_up
        for held in me["reserved"]:
            if "id" in held:  # not another seat's hidden blind reservation
                cards[held["id"]] = held
        tiles = view.get("nobles") or view.get("locations") or []

        def deficit(card: CardView) -> dict[str, int]:
            return {c: max(0, card["cost"].get(c, 0) - bonus[c] - tokens[c]) for c in letters}

        # Cards worth saving for: points (and bonuses nobles want) per missing gem.
        wanted: dict[str, float] = {c: 0.0 for c in letters}
        for known in cards.values():
            d = deficit(known)
            missing = sum(d.values())
            worth = (known["points"] + 1.0) / (missing + 1.0)
            for c, k in d.items():
                if k:
                    wanted[c] += worth * k / missing
        noble_want = {c: 0.0 for c in letters}
        for tile in tiles:
            for c, k in tile["requires"].items():
                if bonus[c] < k:
                    noble_want[c] += 0.5

        best: list[tuple[float, str]] = []
        for text in legal:
            m = move_from_text(text)
            value = 0.0
            if m.kind == "buy":
                card = cards.get(m.card or "")
                points = card["points"] if card else 0
                colour = card["color"] if card else ""
                value = 50 + 12 * points + 3 * noble_want.get(colour, 0) + wanted.get(colour, 0)
                value -= 2 * len(m.pay)
                if m.tile:
                    value += 36
            elif m.kind == "take":
                value = sum(wanted.get(c, 0.1) + 0.05 for c in m.take)
                value -= sum(wanted.get(c, 0.3) + 0.05 for c in m.ret)
            elif m.kind == "reserve":
                card = cards.get(m.card or "")
                value = 0.5 + (card["points"] * 0.8 if card else -0.3)
                if len(me["reserved"]) >= 2:
                    value -= 2
                value -= 0.4 * len(m.ret)
            best.append((value + self.rng.random() * 1e-3, text))
        return max(best)[1]
