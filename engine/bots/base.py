"""The interface every bot implements."""

from __future__ import annotations

import random
from typing import Sequence

from ..results import BoardView


class Bot:
    """Chooses one of the legal moves from what its seat may see."""

    name = "bot"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: BoardView, legal: Sequence[str]) -> str:
        """One of ``legal`` (canonical texts), given the seat's ``view``."""
        raise NotImplementedError
