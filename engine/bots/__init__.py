"""Built-in bots. A bot sees only a seat's view (``observe``) and the legal moves
in canonical text, like any API client would."""

from __future__ import annotations

from typing import Any

from .base import Bot
from .greedy import GreedyBot
from .ismcts import ISMCTSBot
from .random_bot import RandomBot

BOTS: dict[str, type[Bot]] = {"random": RandomBot, "greedy": GreedyBot, "ismcts": ISMCTSBot}


def make_bot(name: str, seed: int = 0, **budget: Any) -> Bot:
    """A bot by name (``random``, ``greedy`` or ``ismcts``), with its own seeded
    generator. ``budget`` goes to the search bot (``playouts=``, ``seconds=``,
    ``clock=``); the other bots take none."""
    try:
        cls = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; known bots: {', '.join(sorted(BOTS))}") from None
    if budget and cls is not ISMCTSBot:
        raise ValueError(f"the {name} bot takes no budget ({', '.join(sorted(budget))})")
    return cls(seed, **budget) if budget else cls(seed)


__all__ = ["BOTS", "Bot", "GreedyBot", "ISMCTSBot", "RandomBot", "make_bot"]
