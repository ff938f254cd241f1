"""A seeded Gymnasium environment with a legal-action mask: ``SplendorEnv(variant, players, seed)``.

``SplendorEnv`` is a ``gymnasium.Env`` (registered as ``splendor/Base-v0`` and
``splendor/Marvel-v0`` when this module is imported). Actions are the stable
integer ids of :mod:`splendor_client.actions` (docs/actions.md):
``action_space = Discrete(action_count)``; ``info["action_mask"]`` and
``action_masks()`` (sb3-contrib's MaskablePPO) say which are legal now.

Without ``opponents`` the caller plays every seat in turn (self-play): the seat
to move (``env.agent_selection``, ``env.to_move``) is the one whose action
``step`` plays, and the observation is that seat's. With ``opponents`` (built-in
bot names, ``engine.bots`` bots or callables) the caller plays ``seat`` alone and
the others move inside ``step``.

Observations are the observing seat's view in numbers (``engine.features``,
through :mod:`splendor_client.encoding`): read from the state, but only what
``engine.observe`` shows that seat, so they never hold the decks' order or
another seat's blind reservation (tests hold them equal to the encoding of the
view). Rewards: 1.0 to each winner when the game ends, 0.0
otherwise; ``truncated`` is never true (B-END-3 ends every game).

Needs the ``env`` extra: ``pip install "splendor-client[env]"`` (numpy, gymnasium).
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Callable, Sequence
from numbers import Integral
from typing import Any, TypedDict, Union

import engine
import gymnasium
import numpy as np
from engine import AmbiguousMove, BoardView, HiddenSampler, IllegalMove, Outcome, State
from engine.bots import Bot, make_bot
from engine.rules import apply_legal, legal_moves
from gymnasium import spaces

from .actions import ActionTable, action_table
from .encoding import ObservationEncoder
from .render import render_text

_SEED_BITS = 63  # the deal seed of each game after the first, drawn from the env's seed

Mask = np.ndarray[Any, np.dtype[np.bool_]]
_bool_array, _BOOL = np.ndarray, np.dtype(np.bool_)  # the dtype object: numpy need not look it up
Observation = Union[dict[str, np.ndarray[Any, np.dtype[np.float32]]], np.ndarray[Any, np.dtype[np.float32]]]
# An opponent: a built-in bot's name ("random", "greedy", "ismcts"), a bot, or a
# callable given the seat's view and the legal moves' texts, answering a text or an id.
Opponent = Union[str, Bot, Callable[[BoardView, Sequence[str]], Union[str, int]]]


class StepInfo(TypedDict):
    """The ``info`` of ``reset`` and ``step``."""

    action_mask: Mask  # true at the ids the seat to move may play (the array action_masks() returns)
    to_move: int | None  # the seat to act next; None once the game is over
    observer: int  # whose view the observation is
    acted: int | None  # the seat whose action ``step`` played (None after reset)
    move: str | None  # that action's canonical text
    rewards: list[float]  # per seat, for this step: 1.0 to each winner at the end, else 0.0
    outcome: Outcome | None  # winners, scores, ranking, places, reason; None before the end
    game_seed: int  # the seed of this game's deal (engine.new_game)
    illegal: str | None  # with on_illegal="lose": why the action that ended the episode was refused


class LegalDiscrete(spaces.Discrete):
    """``Discrete(action_count)`` whose ``sample()`` without a mask draws a legal
    id of the env's position (any id with an explicit ``mask``)."""

    def __init__(self, n: int, env: SplendorEnv) -> None:
        super().__init__(n)
        self._env = env

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled (a saved model's action space, a copied space) as the plain
        # Discrete it is, without the env it samples from.
        return (spaces.Discrete, (int(self.n),))

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        if mask is None and probability is None and self._env._legal_ids:
            ids = self._env._legal_ids
            return np.int64(ids[int(self.np_random.integers(len(ids)))])
        return super().sample(mask, probability)


class SplendorEnv(gymnasium.Env[Observation, np.int64]):
    """One game of ``variant`` for ``players`` seats (2-4), dealt from ``seed``.

    ``reset()`` starts a game: with ``seed`` the game of that seed; without one,
    the constructor's game the first time and then the next game of a sequence
    drawn from the last seed given (``None``: from the system's randomness).

    ``opponents``: ``None`` (the caller plays every seat), or one opponent for
    every other seat, or a list of ``players - 1`` of them (the seats after
    ``seat``, in turn order). ``flatten=True`` gives one ``Box`` vector instead
    of the ``Dict`` of arrays. ``render_mode="ansi"``: ``render()`` draws the
    table as text.

    ``on_illegal``: what an id that is not legal now does. ``"raise"`` (the
    default): ``engine.IllegalMove`` naming the rule, nothing played.
    ``"lose"``: the episode ends (``terminated``) with a reward of -1.0 to the
    seat that acted and the rule in ``info["illegal"]``; the registered
    ``splendor/*-v0`` ids use it, as Gymnasium's checker steps unmasked samples.
    """

    metadata: dict[str, Any] = {"name": "splendor_v0", "render_modes": ["ansi"], "render_fps": 4, "is_parallelizable": False}

    def __init__(self, variant: str = "base", players: int = 2, seed: int | None = None, *,
                 opponents: Opponent | Sequence[Opponent] | None = None, seat: int = 0,
                 flatten: bool = False, render_mode: str | None = None, on_illegal: str = "raise") -> None:
        if variant not in engine.VARIANTS:
            raise ValueError(f"unknown variant {variant!r}; known variants: {', '.join(sorted(engine.VARIANTS))}")
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4:
            raise ValueError(f"B-SETUP-1: a game has 2 to 4 players, not {players!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        if on_illegal not in ("raise", "lose"):
            raise ValueError(f"on_illegal must be 'raise' or 'lose', not {on_illegal!r}")
        self.on_illegal = on_illegal
        self._abandoned = False  # an illegal id ended the episode (on_illegal="lose")
        self.variant = variant
        self.players = players
        self.render_mode = render_mode
        self.flatten = flatten
        self.possible_agents: list[int] = list(range(players))
        self.agents: list[int] = list(self.possible_agents)
        self.table: ActionTable = action_table(variant)
        self.action_count: int = len(self.table)
        self._ids_of = self.table.ids_of
        self._texts = self.table.texts
        self._mask: Mask = np.zeros(self.action_count, dtype=np.bool_)
        self._mask_shape = (self.action_count,)
        self._legal: tuple[engine.Move, ...] = ()
        self._legal_ids: tuple[int, ...] = ()
        self.action_space = LegalDiscrete(self.action_count, self)
        self.encoder = ObservationEncoder(variant, players)
        # engine.features reads only what engine.observe(state, observer) shows.
        # Its own states for its own seats: the encoders without Features.encode's checks.
        self._encode: Callable[[State, int], Observation] = (
            self.encoder.trusted_flat if flatten else self.encoder.trusted_dict)
        self.observation_space = self.encoder.flat_space if flatten else self.encoder.space  # type: ignore[assignment]
        if not 0 <= seat < players:
            raise ValueError(f"seat must be 0..{players - 1}, not {seat!r}")
        self.seat = seat
        self._opponent_spec = opponents
        self._opponents = self._build_opponents(opponents, seed)
        self._seeds = random.Random(seed)
        self._state: State
        self.game_seed: int
        self.rewards: list[float] = [0.0] * players  # per seat, from the last step
        self._no_rewards: tuple[float, ...] = (0.0,) * players
        first = seed if seed is not None else self._seeds.getrandbits(_SEED_BITS)
        self._deal(first)
        self._fresh = True  # the constructor's game, not stepped yet: reset() keeps it

    # --- the game ---------------------------------------------------------------

    def reset(self, *, seed: int | None = None,  # type: ignore[override]  # info: a StepInfo
              options: dict[str, Any] | None = None) -> tuple[Observation, StepInfo]:
        """A new game: ``(observation, info)`` for the seat to move (with
        opponents: for ``seat``, once the seats before it have moved)."""
        super().reset(seed=seed)
        if seed is not None:
            self._seeds = random.Random(seed)
            self._deal(seed)
            # Opponents named by a bot's name start again from this seed too, so that
            # reset(seed=s) replays the same game; bots and callables given are the caller's.
            self._opponents = self._build_opponents(self._opponent_spec, seed)
        elif self._fresh:
            self._deal(self.game_seed)
        else:
            self._deal(self._seeds.getrandbits(_SEED_BITS))
        self._fresh = False
        rewards = [0.0] * self.players
        if self._opponents is not None:
            rewards = self._play_opponents()
        observer = self.seat if self._opponents is not None else self._state.seat
        result = engine.outcome(self._state) if self._state.over else None
        info = self._info(observer, None, None, rewards, result)
        return self._observation(observer), info

    def step(self, action: int | np.integer[Any]  # type: ignore[override]  # info: a StepInfo
             ) -> tuple[Observation, float, bool, bool, StepInfo]:
        """Play ``action`` (an id) for the seat to move: ``(observation, reward,
        terminated, truncated, info)``. The observation is the view of the seat
        to move next (with opponents: of ``seat``), or, once the game is over, of
        the seat that acted; the reward is that of the seat that acted (of ``seat``).

        An id that no move of this position has raises ``engine.IllegalMove`` (an
        ``AmbiguousMove`` when it lacks a required choice) naming the rule; an id
        out of range, or a step after the end, raises ``ValueError``.
        """
        state = self._state
        if state.over or self._abandoned:
            raise ValueError("the game is over; call reset() to start another")
        if type(action) is not int:  # noqa: E721  (the common case, checked first)
            if isinstance(action, (bool, np.bool_)) or not isinstance(action, Integral):
                raise ValueError(f"an action id is an int, not {type(action).__name__}")
            action = int(action)
        n = self.players
        acted = state.ply % n
        ids = self._legal_ids
        at = bisect_left(ids, action)  # the legal ids increase along the legal moves
        if at < len(ids) and ids[at] == action:
            # _apply(move) written out, as _info below: this runs on every step.
            self._state = state = apply_legal(state, self._legal[at])
            self._legal = legal = legal_moves(state)  # _update_legal(), written out
            self._legal_ids = found = self._ids_of(legal)
            mask = bytearray(self.action_count)
            for i in found:
                mask[i] = 1
            self._mask = _bool_array(self._mask_shape, _BOOL, mask)
            text = self._texts[action]  # the move's canonical text, a plain str
        elif self.on_illegal == "lose" and 0 <= action < self.action_count:
            return self._lose(acted, action)
        else:
            text = self._play_unlisted(action)
        self._fresh = False
        over = state.over
        if self._opponents is None and not over:
            observer = state.ply % n
            info: StepInfo = {
                "action_mask": self._mask, "to_move": observer, "observer": observer, "acted": acted,
                "move": text, "rewards": [0.0] * n, "outcome": None, "game_seed": self.game_seed,
                "illegal": None,
            }
            return self._encode(state, observer), 0.0, False, False, info
        rewards = self._rewards() if over else self._no_rewards
        if self._opponents is not None:
            if not over:
                rewards = self._play_opponents()
                state = self._state
                over = state.over
            observer = self.seat
            reward = rewards[observer]
        else:
            observer = acted if over else state.ply % n
            reward = rewards[acted]
        info = self._info(observer, acted, text, rewards, engine.outcome(state) if over else None)
        return self._encode(state, observer), reward, over, False, info

    def render(self) -> str | None:
        """The table as text (``render_mode="ansi"``); ``None`` without a render mode."""
        if self.render_mode != "ansi":
            return None
        return render_text(engine.observe(self._state, self._viewer()), self.table)

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
        """Whether the game is over (or, with on_illegal="lose", ended by an illegal id)."""
        return self._state.over or self._abandoned

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

    def encode(self, view: BoardView) -> Observation:
        """A view (``observe``) as this env's observation (arrays, or one vector with ``flatten``)."""
        return self.encoder.flat(view) if self.flatten else self.encoder.encode(view)

    def sample_hidden(self, seat: int | None, rng: random.Random) -> State:
        """A full state consistent with ``seat``'s view: the cards it cannot see
        (deck order, other seats' blind reservations) dealt again with ``rng``."""
        return engine.determinize(engine.observe(self._state, seat), rng)

    def hidden_sampler(self, seat: int | None) -> HiddenSampler:
        """The sampler behind :meth:`sample_hidden`, reading ``seat``'s view once,
        for drawing many deals (``.sample(rng)``) of the same position."""
        return HiddenSampler(engine.observe(self._state, seat))

    # --- actions -----------------------------------------------------------------

    def action_masks(self) -> Mask:
        """The action mask (sb3-contrib's name): a numpy bool array, true at the
        legal ids, all false once the game is over; the array of ``info["action_mask"]``.
        Each step makes a new one and never writes to an array it handed out, so a
        kept mask stays that of its position (and writing to it changes nothing here)."""
        return self._mask

    def legal_actions(self) -> list[bool]:
        """The action mask as a new ``list[bool]`` (slow: ``action_masks()`` is the array)."""
        return self._mask.tolist()  # type: ignore[no-any-return]

    def legal_action_ids(self) -> list[int]:
        """The legal ids, increasing (the order of ``engine.legal_moves``)."""
        return list(self._legal_ids)

    def legal_moves(self) -> list[str]:
        """The legal moves as canonical texts, sorted."""
        return [move.text for move in self._legal]

    def action_id(self, text: str) -> int:
        """The id of a move in notation; ``ValueError`` when no position allows it."""
        return self.table.id_of(text)

    def action_text(self, action: int) -> str:
        """The canonical text of an id; ``ValueError`` out of range."""
        return self.table.text_of(action)

    # --- inside ------------------------------------------------------------------

    def _deal(self, seed: int) -> None:
        self._abandoned = False
        self.game_seed = seed
        self._state = engine.new_game(variant=self.variant, players=self.players, seed=seed)
        self.agents = list(self.possible_agents)
        self.rewards = [0.0] * self.players
        self._update_legal()

    def _update_legal(self) -> None:
        # A new mask each step, written from the legal moves' ids alone (no pass over
        # every id); the env never writes to a mask it has handed out.
        self._legal = legal = legal_moves(self._state)
        self._legal_ids = found = self._ids_of(legal)
        # A bytearray's items are the cheapest to set one by one, and numpy reads it in
        # place (np.ndarray over the buffer costs a fifth of np.frombuffer's call).
        mask = bytearray(self.action_count)
        for i in found:
            mask[i] = 1
        self._mask = _bool_array(self._mask_shape, _BOOL, mask)

    def _legal_move(self, action: int) -> engine.Move | None:
        """The legal move of ``action``, or ``None`` when no legal move has that id."""
        ids = self._legal_ids
        at = bisect_left(ids, action)  # the legal ids increase along the legal moves
        return self._legal[at] if at < len(ids) and ids[at] == action else None

    def _apply(self, move: engine.Move) -> str:
        """Plays ``move``, one of ``legal_moves(state)`` (so the engine's validation,
        which would find it there again, is skipped); its text."""
        self._state = apply_legal(self._state, move)
        self._update_legal()
        return move.text

    def _play(self, action: int) -> str:
        """Plays ``action`` for the seat to move; its text."""
        move = self._legal_move(action)
        return self._apply(move) if move is not None else self._play_unlisted(action)

    def _play_unlisted(self, action: int) -> str:
        """An id that is not among the legal ones: ``ValueError`` out of range, else
        the engine's refusal naming the rule (nothing is played)."""
        text = self.table.text_of(action)
        try:
            engine.apply(self._state, engine.move_from_text(text))
        except AmbiguousMove as exc:
            raise AmbiguousMove(exc.rule, f"action {action} ({text!r}): {exc.message}", exc.choices) from None
        except IllegalMove as exc:
            raise IllegalMove(exc.rule, f"action {action} ({text!r}): {exc.message}") from None
        raise AssertionError(f"action {action} ({text!r}) is legal but not among the legal ids")

    def _lose(self, acted: int, action: int) -> tuple[Observation, float, bool, bool, StepInfo]:
        """on_illegal="lose": the episode ends, -1.0 to the seat that acted; nothing is played."""
        text = self.table.text_of(action)
        try:
            engine.apply(self._state, engine.move_from_text(text))
            why = "not legal now"  # unreachable: the mask holds every legal id
        except IllegalMove as exc:
            why = f"{exc.rule}: {exc.message}"
        self._abandoned = True
        self._mask = np.zeros(self.action_count, dtype=np.bool_)
        self._legal, self._legal_ids = (), ()
        self.agents = []
        rewards = [0.0] * self.players
        rewards[acted] = -1.0
        self.rewards = rewards
        observer = self.seat if self._opponents is not None else acted
        info = self._info(observer, acted, text, rewards, None)
        info["illegal"] = why
        return self._observation(observer), -1.0, True, False, info

    def _rewards(self) -> list[float]:
        rewards = [0.0] * self.players
        if self._state.over:
            result = engine.outcome(self._state)
            assert result is not None
            for winner in result["winners"]:
                rewards[winner] = 1.0
            self.agents = []
        self.rewards = rewards
        return rewards

    def _observation(self, observer: int) -> Observation:
        return self._encode(self._state, observer)

    def _viewer(self) -> int | None:
        if self._opponents is not None:
            return self.seat
        return None if self._state.over else self._state.seat

    def _build_opponents(self, opponents: Opponent | Sequence[Opponent] | None,
                         seed: int | None) -> dict[int, Callable[[BoardView, Sequence[str]], str | int]] | None:
        if opponents is None:
            return None
        others = [(self.seat + k) % self.players for k in range(1, self.players)]
        given: list[Opponent]
        if isinstance(opponents, (str, Bot)) or callable(opponents):
            given = [opponents] * len(others)
        else:
            given = list(opponents)
        if len(given) != len(others):
            raise ValueError(f"give one opponent, or {len(others)} (one per other seat), not {len(given)}")
        base = seed if seed is not None else random.getrandbits(32)
        out: dict[int, Callable[[BoardView, Sequence[str]], str | int]] = {}
        for k, (s, opponent) in enumerate(zip(others, given)):
            if isinstance(opponent, str):
                opponent = make_bot(opponent, seed=base + k + 1)
            if isinstance(opponent, Bot):
                out[s] = opponent.choose
            elif callable(opponent):
                out[s] = opponent
            else:
                raise ValueError(f"an opponent is a bot's name, a bot or a callable, not {type(opponent).__name__}")
        return out

    def _play_opponents(self) -> list[float]:
        """The other seats move until it is ``seat``'s turn or the game ends; the rewards."""
        assert self._opponents is not None
        rewards = [0.0] * self.players
        while not self._state.over and self._state.seat != self.seat:
            s = self._state.seat
            choice = self._opponents[s](engine.observe(self._state, s), self.legal_moves())
            self._play(self.table.id_of(choice) if isinstance(choice, str) else int(choice))
            rewards = self._rewards()
        return rewards

    def _info(self, observer: int, acted: int | None, move: str | None,
              rewards: Sequence[float], result: Outcome | None) -> StepInfo:
        return {
            "action_mask": self._mask,  # a new array each step: the env never writes to it again
            "to_move": None if self._state.over else self._state.ply % self.players,
            "observer": observer,
            "acted": acted,
            "move": move,
            "rewards": list(rewards),
            "outcome": result,
            "game_seed": self.game_seed,
            "illegal": None,
        }


def _register() -> None:
    for name, variant in (("splendor/Base-v0", "base"), ("splendor/Marvel-v0", "marvel")):
        if name not in gymnasium.registry:
            gymnasium.register(id=name, entry_point="splendor_client.env:SplendorEnv", kwargs={"variant": variant, "on_illegal": "lose"})


_register()



def aec_env(variant: str = "base", players: int = 2, seed: int | None = None,
            render_mode: str | None = None) -> Any:
    """The game as a PettingZoo AEC environment (``splendor_client.multiagent``;
    needs the ``pettingzoo`` extra): one seat at a time, the mask in each observation."""
    from .multiagent import SplendorAEC

    return SplendorAEC(variant, players, seed, render_mode)


def parallel_env(variant: str = "base", players: int = 2, seed: int | None = None,
                 render_mode: str | None = None) -> Any:
    """The game as a PettingZoo parallel environment (``splendor_client.multiagent``):
    only the seat to move's action is played each step."""
    from .multiagent import SplendorParallel

    return SplendorParallel(variant, players, seed, render_mode)


__all__ = ["LegalDiscrete", "Mask", "Observation", "Opponent", "SplendorEnv", "StepInfo", "aec_env", "parallel_env"]
