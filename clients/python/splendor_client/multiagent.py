"""SplendorEnv as PettingZoo environments: ``aec_env`` (one seat at a time, as the
game is played) and ``parallel_env`` (every live agent gives an action each step;
only the seat to move's is played). Reach them through ``splendor_client.env``'s
``aec_env(...)`` and ``parallel_env(...)``; they need the ``pettingzoo`` extra.

Agents are ``"player_0"`` .. ``"player_{n-1}"``, in seat order. Each agent's
observation is a dict, as PettingZoo's classic games give it: ``"observation"``,
the flat vector of its own view (docs/actions.md, "Observation"), and
``"action_mask"``, ``int8`` 0/1 over the action ids, all 0 for an agent that is
not to move.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv  # type: ignore[import-untyped]

from .env import SplendorEnv


def _names(players: int) -> list[str]:
    return [f"player_{seat}" for seat in range(players)]


class _Shared:
    """What both APIs read: the simulator, the spaces, an agent's observation."""

    def __init__(self, variant: str, players: int, seed: int | None, render_mode: str | None) -> None:
        self.game = SplendorEnv(variant, players, seed, flatten=True, render_mode=render_mode)
        n = self.game.action_count
        self.obs_space = spaces.Dict({
            "observation": self.game.observation_space,
            "action_mask": spaces.Box(0, 1, shape=(n,), dtype=np.int8),
        })
        self.act_space = spaces.Discrete(n)

    def observation(self, seat: int) -> dict[str, Any]:
        game = self.game
        if seat == game.to_move:
            mask = game.action_masks().astype(np.int8)
        else:
            mask = np.zeros(game.action_count, dtype=np.int8)
        return {"observation": game.encoder.flat_state(game.state, seat), "action_mask": mask}


class SplendorAEC(AECEnv):  # type: ignore[misc]
    """The game one seat at a time (PettingZoo's AEC API)."""

    metadata = {"name": "splendor_v0", "render_modes": ["ansi"], "is_parallelizable": True, "render_fps": 4}

    def __init__(self, variant: str = "base", players: int = 2, seed: int | None = None,
                 render_mode: str | None = None) -> None:
        super().__init__()
        self._shared = _Shared(variant, players, seed, render_mode)
        self.render_mode = render_mode
        self.possible_agents = _names(players)
        self._reset_bookkeeping()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._shared.obs_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._shared.act_space

    def _reset_bookkeeping(self) -> None:
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        seat = self._shared.game.to_move
        self.agent_selection = self.possible_agents[seat if seat is not None else 0]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._shared.game.reset(seed=seed)
        self._reset_bookkeeping()

    def observe(self, agent: str) -> dict[str, Any]:
        return self._shared.observation(self.possible_agents.index(agent))

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        game = self._shared.game
        _, _, terminated, _, info = game.step(int(action))
        self.rewards = {a: info["rewards"][s] for s, a in enumerate(self.possible_agents)}
        if terminated:
            self.terminations = {a: True for a in self.agents}
            for a in self.agents:
                self.infos[a] = {"outcome": info["outcome"]}
            self.agent_selection = self.possible_agents[(self.possible_agents.index(agent) + 1) % len(self.agents)]
        else:
            seat = game.to_move
            assert seat is not None
            self.agent_selection = self.possible_agents[seat]
        self._accumulate_rewards()

    def render(self) -> str | None:
        return self._shared.game.render()

    def close(self) -> None:
        pass


class SplendorParallel(ParallelEnv):  # type: ignore[misc]
    """The game as PettingZoo's parallel API: each step takes an action from every
    live agent and plays the one of the seat to move (the others are ignored)."""

    metadata = {"name": "splendor_v0", "render_modes": ["ansi"], "render_fps": 4}

    def __init__(self, variant: str = "base", players: int = 2, seed: int | None = None,
                 render_mode: str | None = None) -> None:
        self._shared = _Shared(variant, players, seed, render_mode)
        self.render_mode = render_mode
        self.possible_agents = _names(players)
        self.agents = list(self.possible_agents)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._shared.obs_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._shared.act_space

    def _all(self) -> dict[str, dict[str, Any]]:
        return {a: self._shared.observation(s) for s, a in enumerate(self.possible_agents) if a in self.agents}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
        self._shared.game.reset(seed=seed)
        self.agents = list(self.possible_agents)
        return self._all(), {a: {} for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float], dict[str, bool],
                                                     dict[str, bool], dict[str, dict[str, Any]]]:
        game = self._shared.game
        seat = game.to_move
        assert seat is not None, "the game is over; call reset()"
        _, _, terminated, _, info = game.step(int(actions[self.possible_agents[seat]]))
        live = list(self.agents)
        observations = self._all()
        rewards = {a: info["rewards"][s] for s, a in enumerate(self.possible_agents) if a in live}
        terminations = {a: terminated for a in live}
        truncations = {a: False for a in live}
        infos: dict[str, dict[str, Any]] = {a: {"outcome": info["outcome"]} if terminated else {} for a in live}
        if terminated:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | None:
        return self._shared.game.render()

    def close(self) -> None:
        pass


__all__ = ["SplendorAEC", "SplendorParallel"]
