"""Random steps per second of SplendorEnv (splendor_client.env), new and old side by side.

    python scripts/bench_env.py [--steps 20000] [--repeats 5] [--variant base] [--players 2]
    python scripts/bench_env.py --parts --steps 100000   # where a step's time goes

Every environment plays the same kind of game (uniformly random legal ids, a new
game at each end) for ``--steps`` steps, ``--repeats`` times, alternating; the
median of each is printed with the ratio. Each run is a process of its own
(this script with ``--one NAME``), which first plays ``--warm`` steps to fill
the engine's memo tables: in one shared process, what one environment leaves in
the allocator and the memo tables changes the next one's figure.
``OldSplendorEnv`` below is the environment before it became a Gymnasium one
(git show 8d16b15:clients/python/splendor_client/env.py), kept here so that the
comparison runs on one machine in one sitting.
Needs the client with its ``env`` extra: pip install "./clients/python[env]".
Figures: docs/benchmarks.md ("The Gymnasium environment").
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from typing import Any

import engine
from engine import AmbiguousMove, BoardView, HiddenSampler, IllegalMove, Outcome, State
from splendor_client.actions import ActionTable, action_table
from splendor_client.env import SplendorEnv

_SEED_BITS = 63


class OldSplendorEnv:
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

    def reset(self, seed: int | None = None) -> tuple[BoardView, Any]:
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

    def step(self, action: int) -> tuple[BoardView, float, bool, bool, Any]:
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
              rewards: list[float] | None = None, result: Outcome | None = None) -> Any:
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




def steps_per_second(env: Any, steps: int, seed: int) -> float:
    """Random legal ids for ``steps`` steps, resetting at each end."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    # The process's CPU time, not the wall clock: on a shared machine, time spent
    # waiting for a core is not the environment's.
    start = time.process_time()
    for _ in range(steps):
        terminated = env.step(rng.choice(env.legal_action_ids()))[2]
        if terminated:
            env.reset()
    return steps / (time.process_time() - start)


class EngineAlone:
    """The floor: the engine's own legal moves and ``apply`` with the same random
    choice and nothing else (no ids, mask or observation)."""

    def __init__(self, variant: str, players: int) -> None:
        self.variant, self.players = variant, players
        self._games = random.Random(0)
        self._state = engine.new_game(variant=variant, players=players, seed=0)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._games = random.Random(seed)
        self._state = engine.new_game(variant=self.variant, players=self.players, seed=self._games.getrandbits(63))
        self._legal = engine.legal_moves(self._state)

    def legal_action_ids(self) -> range:
        return range(len(self._legal))

    def step(self, action: int) -> tuple[None, float, bool, bool, None]:
        self._state = engine.apply(self._state, self._legal[action])
        self._legal = engine.legal_moves(self._state)
        return None, 0.0, self._state.over, False, None


def parts(variant: str, players: int, steps: int) -> dict[str, float]:
    """Microseconds per step of each part of the flat environment's step, each part
    timed inside the loop with ``perf_counter_ns`` around it (the same calls as
    ``SplendorEnv.step``, written out so that they can be timed apart)."""
    from bisect import bisect_left
    from time import perf_counter_ns as now

    import numpy as np
    from engine.rules import apply_legal, legal_moves

    env = SplendorEnv(variant, players, seed=0, flatten=True)
    encode, ids_of, count = env.encoder.features.encode_trusted, env.table.ids_of, env.action_count
    size = env.encoder.size
    names = ["the legal move of the id (bisect)", "engine.rules.apply_legal", "engine.rules.legal_moves",
             "the legal moves' ids (ActionTable.ids_of)", "the new mask (bytearray, numpy.ndarray over it)",
             "info", "the observation (Features.encode_trusted, numpy.ndarray over it)"]
    totals = [0] * len(names)
    last_info: dict[str, Any] = {}
    rng = random.Random(0)
    env.reset(seed=1)
    start = time.perf_counter()
    for _ in range(steps):
        action = rng.choice(env.legal_action_ids())
        t0 = now()
        at = bisect_left(env._legal_ids, action)
        move = env._legal[at]
        t1 = now()
        state = env._state = apply_legal(env._state, move)
        t2 = now()
        legal = env._legal = legal_moves(state)
        t3 = now()
        found = env._legal_ids = ids_of(legal)
        t4 = now()
        mask = bytearray(count)
        for i in found:
            mask[i] = 1
        env._mask = np.ndarray((count,), np.bool_, mask)
        t5 = now()
        over = state.over
        info = {"action_mask": env._mask, "to_move": None if over else state.ply % players, "move": move.text,
                "rewards": [0.0] * players, "outcome": engine.outcome(state) if over else None}
        t6 = now()
        np.ndarray((size,), np.float32, encode(state, 0 if over else state.ply % players))
        t7 = now()
        for k, (a, b) in enumerate(((t0, t1), (t1, t2), (t2, t3), (t3, t4), (t4, t5), (t5, t6), (t6, t7))):
            totals[k] += b - a
        last_info = info  # held until the next step, as an agent holds it
        if over:
            env.reset()
    del last_info
    whole = (time.perf_counter() - start) / steps * 1e6
    out = {name: total / steps / 1e3 for name, total in zip(names, totals)}
    out["the whole step, the agent's loop and the resets included"] = whole
    return out


ENVIRONMENTS = {
    "new (gymnasium, Dict observation)": lambda variant, players: SplendorEnv(variant, players, seed=0),
    "new (gymnasium, flat observation)": lambda variant, players: SplendorEnv(variant, players, seed=0, flatten=True),
    "old": lambda variant, players: OldSplendorEnv(variant, players, seed=0),
    "the engine alone (legal moves + apply)": lambda variant, players: EngineAlone(variant, players),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--warm", type=int, default=20_000, help="steps played before the timed ones, in each process")
    parser.add_argument("--variant", default="base", choices=engine.VARIANTS)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--one", choices=ENVIRONMENTS, help="time this environment once and print its steps per second")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--parts", action="store_true", help="time each part of a step instead (one process)")
    args = parser.parse_args()
    if args.parts:
        steps_per_second(SplendorEnv(args.variant, args.players, seed=0), args.warm, seed=99)  # warm the memos
        for name, micros in parts(args.variant, args.players, args.steps).items():
            print(f"  {name:60} {micros:6.2f} us")
        return
    if args.one:
        env = ENVIRONMENTS[args.one](args.variant, args.players)
        steps_per_second(env, args.warm, seed=10_000 + args.seed)
        print(steps_per_second(env, args.steps, seed=args.seed))
        return
    runs: dict[str, list[float]] = {name: [] for name in ENVIRONMENTS}
    for repeat in range(args.repeats):
        for name in ENVIRONMENTS:
            out = subprocess.run(
                [sys.executable, __file__, "--one", name, "--steps", str(args.steps), "--warm", str(args.warm),
                 "--variant", args.variant, "--players", str(args.players), "--seed", str(repeat)],
                check=True, capture_output=True, text=True,
            ).stdout
            runs[name].append(float(out.split()[-1]))
    old = statistics.median(runs["old"])
    print(f"{args.variant}, {args.players} players: random steps per second, median of {args.repeats} x {args.steps} "
          f"(each run a process of its own, after {args.warm} steps)")
    for name, figures in runs.items():
        median = statistics.median(figures)
        print(f"  {name:40} {median:9,.0f}  ({median / old:.1f}x old)  runs: {', '.join(f'{f:,.0f}' for f in figures)}")


if __name__ == "__main__":
    main()
