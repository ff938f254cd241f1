"""A bot that plays a uniformly random legal move."""

from __future__ import annotations

from typing import Sequence

from ..results import BoardView
from .base import Bot


class RandomBot(Bot):
    """Uniformly random among the legal moves."""

    name = "random"

    def choose(self, view: BoardView, legal: Sequence[str]) -> str:
        return self.rng.choice(list(legal))
