"""SplendorEnv as a Gymnasium environment: the checker, the spaces, a new mask
each step, observations that hide what the seat may not see, opponents, the text
drawing, the registered ids."""

from __future__ import annotations

import os
import random
import warnings
from typing import Any

import engine
import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from splendor_client.env import SplendorEnv

CHECKED = [(variant, players) for variant in ("base", "marvel") for players in (2, 4)]
# Random episodes of test_every_masked_action_is_legal_and_every_legal_action_masked, split
# over its six games (base and Marvel, 2-4 players): 2,004 whole games (334 each), about
# 12 s; ENV_EPISODES sets another number.
EPISODES = int(os.environ.get("ENV_EPISODES", "2004"))


def quiet_check(env: gymnasium.Env[Any, Any]) -> None:
    with warnings.catch_warnings():
        # "not able to test alternative render modes": the registered ids are checked too.
        warnings.simplefilter("ignore", UserWarning)
        check_env(env)


@pytest.mark.parametrize(("variant", "players"), CHECKED)
def test_gymnasiums_checker_passes_for_the_registered_ids(variant: str, players: int) -> None:
    env = gymnasium.make(f"splendor/{variant.title()}-v0", players=players)
    quiet_check(env.unwrapped)
    assert isinstance(env.unwrapped, SplendorEnv) and env.unwrapped.variant == variant


@pytest.mark.parametrize(("variant", "players"), CHECKED)
def test_gymnasiums_checker_passes_flat_with_a_render_mode_and_with_opponents(variant: str, players: int) -> None:
    quiet_check(SplendorEnv(variant, players, seed=1, flatten=True, render_mode="ansi", on_illegal="lose"))
    quiet_check(SplendorEnv(variant, players, seed=1, opponents="random", on_illegal="lose"))


@pytest.mark.parametrize(("variant", "players"), [(v, p) for v in ("base", "marvel") for p in (2, 3, 4)])
def test_the_spaces_are_discrete_ids_and_numeric_arrays(variant: str, players: int) -> None:
    env = SplendorEnv(variant, players, seed=3)
    assert env.action_space == gymnasium.spaces.Discrete(env.action_count)
    assert isinstance(env.observation_space, gymnasium.spaces.Dict)
    obs, info = env.reset()
    assert obs in env.observation_space
    # points, tokens, cards, reserved, tiles[, icons, Avengers Assemble, Time Stone], tokens, bonuses
    assert obs["seats"].shape == (players, 8 + 7 + 5 if variant == "marvel" else 5 + 6 + 5)
    assert obs["market"][:, 0].sum() == 12  # every market slot dealt
    flat = SplendorEnv(variant, players, seed=3, flatten=True)
    vector, _ = flat.reset()
    assert vector.shape == flat.observation_space.shape and vector.dtype == np.float32
    assert np.array_equal(vector, gymnasium.spaces.flatten(env.observation_space, obs))


def test_each_step_hands_out_a_new_mask_and_never_writes_to_an_old_one() -> None:
    env = SplendorEnv("base", 2, seed=5)
    _, info = env.reset()
    mask = env.action_masks()
    assert mask.dtype == np.bool_ and mask.shape == (env.action_count,)
    assert info["action_mask"] is mask
    first_ids = env.legal_action_ids()
    assert mask.nonzero()[0].tolist() == first_ids
    mask[:] = False  # the caller's array: the env does not read it back
    _, _, _, _, info = env.step(first_ids[0])
    after = env.action_masks()
    assert after is not mask and info["action_mask"] is after
    assert after.nonzero()[0].tolist() == env.legal_action_ids()
    assert not mask.any()  # the old array was left as the caller made it
    kept = after.copy()
    env.step(env.legal_action_ids()[-1])
    assert np.array_equal(after, kept)  # a mask handed out stays that of its position


def test_sampling_the_action_space_draws_a_legal_id() -> None:
    env = SplendorEnv("marvel", 3, seed=2)
    env.reset()
    env.action_space.seed(0)
    for _ in range(50):
        action = env.action_space.sample()
        assert env.action_masks()[action]
        if env.step(action)[2]:
            break


@pytest.mark.parametrize(("variant", "players"), [(v, p) for v in ("base", "marvel") for p in (2, 3, 4)])
def test_every_masked_action_is_legal_and_every_legal_action_masked(variant: str, players: int) -> None:
    env = SplendorEnv(variant, players, seed=11)
    table = env.table
    rng = random.Random(players)
    for _ in range(max(1, EPISODES // 6)):
        _, info = env.reset()
        terminated = False
        while not terminated:
            masked = set(np.flatnonzero(info["action_mask"]).tolist())
            legal = {table.ids[m] for m in engine.legal_moves(env.state)}
            assert masked == legal and legal
            _, _, terminated, truncated, info = env.step(rng.choice(sorted(masked)))
            assert not truncated
        assert not info["action_mask"].any()
        assert info["outcome"] is not None


@pytest.mark.parametrize(("variant", "players"), CHECKED)
def test_shuffling_the_hidden_cards_leaves_the_observation_unchanged(variant: str, players: int) -> None:
    env = SplendorEnv(variant, players, seed=21)
    twin = SplendorEnv(variant, players, seed=21)
    rng = random.Random(0)
    env.reset()
    changed = blind = 0
    while not env.terminated:
        for seat in range(players):  # every agent's observation, not only the seat to move's
            obs = env.encode(env.observe(seat))
            # engine.determinize deals the cards the seat cannot see again: every deck
            # shuffled, other seats' blind reservations swapped with unseen cards of their level.
            shuffled = engine.determinize(engine.observe(env.state, seat), rng)
            changed += shuffled.decks != env.state.decks
            blind += any(b for s, p in enumerate(env.state.players) if s != seat for _, b in p.reserved)
            twin._state = shuffled
            again = twin._observation(seat)
            assert obs.keys() == again.keys()  # type: ignore[union-attr]
            for key in obs:
                assert np.array_equal(obs[key], again[key]), key  # type: ignore[index,call-overload]
        legal = env.legal_action_ids()
        decks = [a for a in legal if " deck" in env.action_text(a)]
        env.step(rng.choice(decks if decks and rng.random() < 0.3 else legal))
    assert changed > 0 and blind > 0


def test_another_seats_blind_reservation_shows_only_its_level() -> None:
    env = SplendorEnv("base", 2, seed=4)
    env.reset()
    env.step(env.action_id("reserve deck3"))  # seat 0 reserves blind
    mine, theirs = env.encode(env.observe(0)), env.encode(env.observe(1))
    assert isinstance(mine, dict) and isinstance(theirs, dict)
    # seat 0 sees its own card (row 0 is the observer) ...
    assert mine["reserved"][0, 0, 0] == 1 and mine["reserved"][0, 0, 1] == 3 and mine["reserved"][0, 0, -1] == 1
    assert mine["reserved"][0, 0, 2:7].sum() == 1
    # ... seat 1 only that seat 0 (its row 1, the seat after it) holds a hidden level-3 card.
    row = theirs["reserved"][1, 0]
    assert row[0] == 1 and row[1] == 3 and row[2:-2].sum() == 0 and row[-2] == 1


def test_opponents_move_inside_step_and_the_agent_always_observes() -> None:
    seen: list[int] = []

    def first_legal(view: engine.BoardView, legal: Any) -> str:
        seen.append(view["seat"] or 0)
        return str(legal[0])

    # The opponents sit in the seats after the agent's, in turn order: 2 (greedy), then 0.
    env = SplendorEnv("base", 3, seed=8, opponents=["greedy", first_legal], seat=1)
    _, info = env.reset()
    assert env.to_move == 1 and info["observer"] == 1 and seen == [0]  # seat 0 moved first
    rng = random.Random(0)
    terminated, reward = False, 0.0
    while not terminated:
        _, reward, terminated, _, info = env.step(rng.choice(env.legal_action_ids()))
        assert info["observer"] == 1
        assert terminated or env.to_move == 1
    assert set(seen) == {0} and len(seen) > 10
    assert reward == (1.0 if 1 in info["outcome"]["winners"] else 0.0)  # type: ignore[index]


def test_an_opponent_that_is_not_a_bot_is_refused() -> None:
    with pytest.raises(ValueError, match="bot"):
        SplendorEnv("base", 2, seed=1, opponents=[3])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="one per other seat"):
        SplendorEnv("base", 3, seed=1, opponents=["random"])
    with pytest.raises(ValueError, match="unknown bot"):
        SplendorEnv("base", 2, seed=1, opponents="perfect")


def test_an_illegal_id_ends_the_episode_with_minus_one_when_asked() -> None:
    env = SplendorEnv("base", 2, seed=7, on_illegal="lose")
    env.reset()
    _, reward, terminated, _, info = env.step(env.action_id("pass"))
    assert (reward, terminated, info["rewards"]) == (-1.0, True, [-1.0, 0.0])
    assert info["illegal"] is not None and info["illegal"].startswith("B-PASS-1: ")
    assert not env.action_masks().any() and env.terminated
    with pytest.raises(ValueError, match="the game is over"):
        env.step(env.action_id("take WUG"))
    env.reset()
    assert env.action_masks().any()


def test_render_ansi_draws_the_table_of_the_seat_to_move() -> None:
    env = gymnasium.make("splendor/Marvel-v0", players=3, render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert isinstance(text, str)
    assert text.startswith("marvel · 3 players · round 1")
    assert "> seat 0" in text and "locations:" in text and text.count("\n") >= 8
    assert SplendorEnv("base", 2, seed=1).render() is None


# PettingZoo's test warns about a dict observation: the mask rides in it, as in its classic games.
@pytest.mark.filterwarnings("ignore:Observation")
@pytest.mark.parametrize(("variant", "players"), CHECKED)
def test_pettingzoos_api_tests_pass_for_the_aec_and_the_parallel_env(variant: str, players: int) -> None:
    from pettingzoo.test import api_test, parallel_api_test

    from splendor_client.env import aec_env, parallel_env

    api_test(aec_env(variant, players, seed=1), num_cycles=300)
    parallel_api_test(parallel_env(variant, players, seed=1), num_cycles=300)


def test_the_aec_env_plays_a_whole_game_from_the_masks_in_its_observations() -> None:
    from splendor_client.env import aec_env

    env = aec_env("marvel", 3, seed=4)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    moves = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.dtype == np.int8 and mask.any()
        others = [a for a in env.agents if a != agent]
        assert not any(env.observe(a)["action_mask"].any() for a in others)
        env.step(int(rng.choice(np.flatnonzero(mask))))
        moves += 1
    assert moves > 20 and env.agents == []


def test_the_spaces_pickle_as_a_saved_model_needs() -> None:
    import copy
    import pickle

    env = SplendorEnv("base", 2, seed=9, flatten=True)
    for space in (pickle.loads(pickle.dumps(env.action_space)), copy.deepcopy(env.action_space)):
        assert type(space) is gymnasium.spaces.Discrete and space == gymnasium.spaces.Discrete(env.action_count)
    assert pickle.loads(pickle.dumps(env.observation_space)) == env.observation_space
    encoder = pickle.loads(pickle.dumps(env.encoder.features))
    assert encoder.encode(env.state, 0) == env.encoder.features.encode(env.state, 0)


def test_ids_of_gives_the_ids_of_moves_and_texts_alike() -> None:
    from splendor_client.actions import action_table

    table = action_table("base")
    state = engine.new_game(variant="base", players=2, seed=3)
    legal = engine.legal_moves(state)
    expected = tuple(table.ids[m.text] for m in legal)
    assert table.ids_of(legal) == expected  # first met: filled from the texts
    assert table.ids_of(legal) == expected  # then by the engine's Move objects
    assert table.ids_of([m.text for m in legal]) == expected
    assert table.ids_of(legal[:1]) == expected[:1] and table.ids_of(()) == ()
    with pytest.raises(KeyError):
        table.ids_of(["take WUG", "take ZZZ"])


def test_reset_with_a_seed_replays_the_same_game_against_named_opponents() -> None:
    env = SplendorEnv("base", 3, seed=1, opponents="random", seat=1, flatten=True)

    def play(seed: int) -> list[Any]:
        obs, info = env.reset(seed=seed)
        seen = [obs.tobytes()]
        while not env.terminated:
            obs, _, _, _, info = env.step(env.legal_action_ids()[0])
            seen.append(obs.tobytes())
        return seen

    assert play(5) == play(5)
    assert play(5) != play(6)


def test_a_copied_env_plays_on() -> None:
    import copy

    env = SplendorEnv("marvel", 2, seed=4)
    env.reset()
    twin = copy.deepcopy(env)
    obs, *_ = twin.step(twin.legal_action_ids()[0])
    again, *_ = env.step(env.legal_action_ids()[0])
    assert all(np.array_equal(obs[k], again[k]) for k in again)  # type: ignore[index,call-overload]


def test_the_package_exports_the_environment_when_asked() -> None:
    import splendor_client

    assert splendor_client.SplendorEnv is SplendorEnv and "SplendorEnv" in splendor_client.__all__
