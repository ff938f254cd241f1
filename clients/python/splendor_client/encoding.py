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

from collections.abc import Callable
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
        self._flat_shape = (self.size,)
        self.layout: list[tuple[str, int, tuple[int, ...]]] = []  # name, byte offset, shape
        at = 0
        for f in self.features.items:
            self.layout.append((f.name, at, f.shape))
            at += 4 * f.size
        #: ``encode_state(state, seat)``: ``seat``'s view of ``state`` as the arrays of
        #: :attr:`space` (views into one new buffer).
        self.encode_state: Callable[[State, int], dict[str, Array]] = self._dict_encoder(self.features.encode)
        #: ``encode_state`` and ``flat_state`` without the checks of ``Features.encode``
        #: (``Features.encode_trusted``): for an environment, which encodes the states of
        #: its own game for its own seats on every step.
        self.trusted_dict: Callable[[State, int], dict[str, Array]] = self._dict_encoder(self.features.encode_trusted)
        self.trusted_flat: Callable[[State, int], Array] = self._flat_encoder(self.features.encode_trusted)

    # --- from the state (what the environment uses) -------------------------------------

    def flat_state(self, state: State, seat: int) -> Array:
        """``seat``'s view of ``state`` as one vector in the order of :attr:`flat_space`."""
        return np.ndarray(self._flat_shape, np.float32, self.features.encode(state, seat))

    def _flat_encoder(self, encode: Callable[[State, int], bytearray]) -> Callable[[State, int], Array]:
        # The dtype as an object, not the scalar type: numpy then need not look it up.
        shape, nd, f32 = self._flat_shape, np.ndarray, np.dtype(np.float32)

        def flat_state(state: State, seat: int) -> Array:
            return nd(shape, f32, encode(state, seat))

        return flat_state

    def _dict_encoder(self, encode: Callable[[State, int], bytearray]) -> Callable[[State, int], dict[str, Array]]:
        # The five arrays written out: a dict display is cheaper than a comprehension,
        # and this runs on every step.
        (k0, o0, s0), (k1, o1, s1), (k2, o2, s2), (k3, o3, s3), (k4, o4, s4) = self.layout
        nd, f32 = np.ndarray, np.dtype(np.float32)

        def encode_state(state: State, seat: int) -> dict[str, Array]:
            b = encode(state, seat)
            return {k0: nd(s0, f32, b, o0), k1: nd(s1, f32, b, o1), k2: nd(s2, f32, b, o2),
                    k3: nd(s3, f32, b, o3), k4: nd(s4, f32, b, o4)}

        return encode_state

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
