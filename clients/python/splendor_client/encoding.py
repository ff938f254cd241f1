"""Numbers from a seat's view: the observation of :class:`splendor_client.env.SplendorEnv`.

The numbers are the engine's (:mod:`engine.features`): a seat's view of the
game, never the full state (the decks are counts, another seat's blind
reservation only its level). An :class:`ObservationEncoder` gives them as
``float32`` numpy arrays, one per feature of :attr:`ObservationEncoder.space`
(a ``gymnasium.spaces.Dict``), or as one flat vector
(:attr:`ObservationEncoder.flat_space`, a ``Box``). docs/actions.md
("Observation") documents every number.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
from engine import BoardView, State
from engine.features import Features
from gymnasium import spaces

Array = np.ndarray[Any, np.dtype[np.float32]]


class ObservationEncoder:
    """The features of ``variant`` with ``players`` seats: their spaces, and the
    encoders of a seat's view (from the state, or from an ``engine.observe`` view)."""

    def __init__(self, variant: str, players: int) -> None:
        # An encoder of its own: the engine's memos of the last market and seats
        # then serve this environment's game alone.
        self.features = Features(variant, players)
        self.size = self.features.size
        self.space = spaces.Dict({
            f.name: spaces.Box(0.0, f.high, shape=f.shape, dtype=np.float32) for f in self.features.items
        })
        # Dict sorts its keys; the engine writes its features in that order.
        assert list(self.space.spaces) == [f.name for f in self.features.items]
        boxes = [cast(spaces.Box, b) for b in self.space.spaces.values()]
        self.flat_space = spaces.Box(
            np.concatenate([b.low.ravel() for b in boxes]),
            np.concatenate([b.high.ravel() for b in boxes]),
            dtype=np.float32,
        )
        self.layout: list[tuple[str, int, tuple[int, ...]]] = []  # name, byte offset, shape
        at = 0
        for f in self.features.items:
            self.layout.append((f.name, at, f.shape))
            at += 4 * f.size

    # --- from the state (what the environment uses) -------------------------------------

    def flat_state(self, state: State, seat: int) -> Array:
        """``seat``'s view of ``state`` as one vector in the order of :attr:`flat_space`."""
        return np.frombuffer(self.features.encode(state, seat), dtype=np.float32)

    def encode_state(self, state: State, seat: int) -> dict[str, Array]:
        """``seat``'s view of ``state`` as the arrays of :attr:`space` (views into one new buffer)."""
        buf = self.features.encode(state, seat)
        f32 = np.float32
        return {name: np.ndarray(shape, f32, buf, offset) for name, offset, shape in self.layout}

    # --- from a view -----------------------------------------------------------------

    def flat(self, view: BoardView) -> Array:
        """A seat's ``engine.observe`` view as one vector in the order of :attr:`flat_space`."""
        return np.array(self.features.encode_view(view), dtype=np.float32)

    def encode(self, view: BoardView) -> dict[str, Array]:
        """A seat's ``engine.observe`` view as the arrays of :attr:`space`."""
        flat = self.flat(view)
        out: dict[str, Array] = {}
        for name, offset, shape in self.layout:
            start = offset // 4
            out[name] = flat[start:start + int(np.prod(shape))].reshape(shape)
        return out


__all__ = ["ObservationEncoder"]
