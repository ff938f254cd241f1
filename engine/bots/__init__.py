"""Built-in bots. A bot sees only a seat's view (``observe``) and the legal moves
in canonical text, like any API client would."""

from __future__ import annotations

from .base import Bot
from .greedy import GreedyBot
from .random_bot import RandomBot

BOTS: dict[str, type[Bot]] = {"random": RandomBot, "greedy": GreedyBot}


def make_bot(name: str, seed: int = 0) -> Bot:
    """A bot by name (``random`` or ``greedy``), with its own seeded generator."""
    try:
        return BOTS[name](seed)
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; known bots: {', '.join(sorted(BOTS))}") from None


__all__ = ["BOTS", "Bot", "GreedyBot", "RandomBot", "make_bot"]
