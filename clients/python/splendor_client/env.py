"""A seeded simulator with a legal-action mask, in the style of Gymnasium and
PettingZoo's AEC games (neither is needed): ``SplendorEnv(variant, players, seed)``.

The seats take turns; the seat to move (``env.agent_selection``, ``env.to_move``)
is the one whose action ``step`` plays. Actions are the stable integer ids of
:mod:`splendor_client.actions` (docs/actions.md): ``env.action_count`` of them,
``env.legal_actions()`` the mask. Observations are ``engine.observe`` views, so a
seat never sees the decks' order or another seat's blind reservation.

Rewards: 1.0 to each winner when the game ends, 0.0 otherwise. ``step`` returns
the reward of the seat that acted, and ``info["rewards"]`` every seat's. A game
always ends by the rules (B-END-3 caps its length), so ``truncated`` is never
true.

Only ``engine`` (the ``splendor-engine`` distribution) is needed.
"""

from __future__ import annotations

import random
from typing import TypedDict

import engine
from engine import AmbiguousMove, BoardView, HiddenSampler, IllegalMove, Outcome, State

from .actions import ActionTable, action_table

_SEED_BITS = 63  # the deal seed of each game after the first, drawn from the env's seed


class StepInfo(TypedDict):
    """The ``info`` of ``reset`` and ``step``."""

    action_mask: list[bool]  # env.legal_actions(): true at the ids the seat to move may play
    legal_moves: list[str]  # the same moves as canonical texts, sorted (ids increase along them)
    to_move: int | None  # the seat to act next; None once the game is over
    observer: int  # whose view the observation is (to_move, or the seat that acted last at the end)
    acted: int | None  # the seat whose action ``step`` played (None after reset)
    move: str | None  # that action's canonical text
    rewards: list[float]  # per seat, for this step: 1.0 to each winner at the end, else 0.0
    outcome: Outcome | None  # winners, scores, ranking, places, reason; None before the end
    game_seed: int  # the seed of this game's deal (engine.new_game)


class SplendorEnv:
    """One game of ``variant`` for ``players`` seats (2-4), dealt from ``seed``.

    ``reset()`` starts a game: with ``seed`` the game of that seed; without one,
    the constructor's game the first time and then the next game of a sequence
    drawn from the last seed given (``None``: from the system's randomness).
    """

    metadata: dict[str, object] = {"name": "splendor_v0", "render_modes": [], "is_parallelizable": False}

    def __init__(self, variant: str = "base", players: int = 2, seed: int | None = None) -> None:
        if variant not in engine.VARIANTS:
            raise ValueError(f"unknown variant {variant!r}; known variants: {', '.join(sorted(engine.VARIANTS))}")
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4:
            raise ValueError(f"B-SETUP-1: a game has 2 to 4 players, not {players!r}")
        self.variant = variant
        self.players = players
        self.possible_agents: list[int] = list(range(players))
        self.agents: list[int] = list(self.possible_agents)
        self.table: ActionTable = action_table(variant)
        self.action_count: int = len(self.table)
        self._seeds = random.Random(seed)
        self._state: State
        self.game_seed: int
        self.rewards: list[float] = [0.0] * players  # per seat, from the last step
        first = seed if seed is not None else self._seeds.getrandbits(_SEED_BITS)
        self._deal(first)
        self._fresh = True  # the constructor's game, not stepped yet: reset() keeps it

    # --- the game ---------------------------------------------------------------

    def reset(self, seed: int | None = None) -> tuple[BoardView, StepInfo]:
        """A new game: ``(observation, info)`` for the first seat to move."""
        if seed is not None:
            self._seeds = random.Random(seed)
            self._deal(seed)
        elif self._fresh:
            self._deal(self.game_seed)
        else:
            self._deal(self._seeds.getrandbits(_SEED_BITS))
        self._fresh = False
        seat = self._seat
        return engine.observe(self._state, seat), self._info(seat, None, None)

    def step(self, action: int) -> tuple[BoardView, float, bool, bool, StepInfo]:
        """Play ``action`` (an id) for the seat to move: ``(observation, reward,
        terminated, truncated, info)``. The observation is the view of the seat
        to move next, or, once the game is over, of the seat that acted; the
        reward is that of the seat that acted.

        An id that no move of this position has raises ``engine.IllegalMove`` (an
        ``AmbiguousMove`` when it lacks a required choice) naming the rule; an id
        out of range, or a step after the end, raises ``ValueError``.
        """
        if self._state.over:
            raise ValueError("the game is over; call reset() to start another")
        text = self.table.text_of(action)
        acted = self._seat
        try:
            self._state = engine.apply(self._state, engine.move_from_text(text))
        except AmbiguousMove as exc:
            raise AmbiguousMove(exc.rule, f"action {action} ({text!r}): {exc.message}", exc.choices) from None
        except IllegalMove as exc:
            raise IllegalMove(exc.rule, f"action {action} ({text!r}): {exc.message}") from None
        self._fresh = False
        state = self._state
        over = state.over
        result = engine.outcome(state)
        rewards = [0.0] * self.players
        if result is not None:
            for winner in result["winners"]:
                rewards[winner] = 1.0
            self.agents = []
        self.rewards = rewards
        observer = acted if over else self._seat
        info = self._info(observer, acted, text, rewards, result)
        return engine.observe(state, observer), rewards[acted], over, False, info

    # --- what the seats may know ------------------------------------------------

    @property
    def to_move(self) -> int | None:
        """The seat whose action ``step`` plays; ``None`` once the game is over."""
        return engine.to_move(self._state)

    @property
    def agent_selection(self) -> int | None:
        """PettingZoo's name for :attr:`to_move`."""
        return engine.to_move(self._state)

    @property
    def terminated(self) -> bool:
        """Whether the game is over."""
        return self._state.over

    @property
    def outcome(self) -> Outcome | None:
        """The result once the game is over (winners, scores, places, reason)."""
        return engine.outcome(self._state)

    @property
    def state(self) -> State:
        """The full state, hidden cards included: for the simulator's owner (and
        ``engine`` functions), never for a seat's agent, which reads ``observe``."""
        return self._state

    def observe(self, seat: int | None) -> BoardView:
        """What ``seat`` may see now (``None``: a spectator, who sees no blind reservation)."""
        return engine.observe(self._state, seat)

    def sample_hidden(self, seat: int | None, rng: random.Random) -> State:
        """A full state consistent with ``seat``'s view: the cards it cannot see
        (deck order, other seats' blind reservations) dealt again with ``rng``."""
        return engine.determinize(engine.observe(self._state, seat), rng)

    def hidden_sampler(self, seat: int | None) -> HiddenSampler:
        """The sampler behind :meth:`sample_hidden`, reading ``seat``'s view once,
        for drawing many deals (``.sample(rng)``) of the same position."""
        return HiddenSampler(engine.observe(self._state, seat))

    # --- actions -----------------------------------------------------------------

    def legal_actions(self) -> list[bool]:
        """The action mask: ``action_count`` booleans, true at the legal ids
        (all false once the game is over). A new list each call."""
        return self.table.mask(engine.legal_moves(self._state))

    def legal_action_ids(self) -> list[int]:
        """The legal ids, increasing (the order of ``engine.legal_moves``)."""
        ids = self.table.ids
        return [ids[move] for move in engine.legal_moves(self._state)]

    def legal_moves(self) -> list[str]:
        """The legal moves as canonical texts, sorted."""
        return [move.text for move in engine.legal_moves(self._state)]

    def action_id(self, text: str) -> int:
        """The id of a move in notation; ``ValueError`` when no position allows it."""
        return self.table.id_of(text)

    def action_text(self, action: int) -> str:
        """The canonical text of an id; ``ValueError`` out of range."""
        return self.table.text_of(action)

    # --- inside ------------------------------------------------------------------

    @property
    def _seat(self) -> int:
        return self._state.seat

    def _deal(self, seed: int) -> None:
        self.game_seed = seed
        self._state = engine.new_game(variant=self.variant, players=self.players, seed=seed)
        self.agents = list(self.possible_agents)
        self.rewards = [0.0] * self.players

    def _info(self, observer: int, acted: int | None, move: str | None,
              rewards: list[float] | None = None, result: Outcome | None = None) -> StepInfo:
        return {
            "action_mask": self.legal_actions(),
            "legal_moves": self.legal_moves(),
            "to_move": self.to_move,
            "observer": observer,
            "acted": acted,
            "move": move,
            "rewards": list(rewards) if rewards is not None else [0.0] * self.players,
            "outcome": result,
            "game_seed": self.game_seed,
        }


__all__ = ["SplendorEnv", "StepInfo"]
