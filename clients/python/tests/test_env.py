"""SplendorEnv and its action ids (docs/actions.md): the table, the mask, the
rewards, the views, the sampler of hidden cards, the errors."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import engine
import numpy as np
import pytest
from engine.bots import make_bot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from splendor_client.actions import MAX_JOKERS, ActionTable, action_table
from splendor_client.env import SplendorEnv, StepInfo

GAMES = [(variant, players) for variant in ("base", "marvel") for players in (2, 3, 4)]
DOCS = Path(__file__).resolve().parents[3] / "docs" / "actions.md"

# What docs/actions.md publishes: a change here is a change of ids, announced there too.
PUBLISHED = {
    "base": (43802, "a7b8e3035464161b4bf0071d045bf72acee1377afefcfd23e4759469b43e0853"),
    "marvel": (85221, "7a66aec68718fc5d9c3771ab8c4549a43e661736517e2a85b70f6086ef3fc9aa"),
}


def same(a: object, b: object) -> bool:
    """Whether two observations (dicts of arrays) hold the same numbers."""
    assert isinstance(a, dict) and isinstance(b, dict)
    return a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def play_random(env: SplendorEnv, rng: random.Random) -> list[tuple[int, float, bool, StepInfo]]:
    """Plays the env's game to its end with uniformly random legal ids; what each step returned."""
    steps = []
    terminated = False
    while not terminated:
        _, reward, terminated, truncated, info = env.step(rng.choice(env.legal_action_ids()))
        assert truncated is False
        steps.append((info["acted"] if info["acted"] is not None else -1, reward, terminated, info))
    return steps


# --- the table -------------------------------------------------------------------

@pytest.mark.parametrize("variant", ["base", "marvel"])
def test_the_table_has_the_published_count_and_digest(variant: str) -> None:
    count, digest = PUBLISHED[variant]
    table = ActionTable(variant)  # built afresh, not the shared one
    assert len(table) == count
    assert table.digest == digest
    assert SplendorEnv(variant, 2, seed=1).action_count == count


def test_the_docs_publish_the_same_counts_digests_and_examples() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for variant, (count, digest) in PUBLISHED.items():
        assert re.search(rf"\| `{variant}` \| {count} \|.*\| `{digest}` \|", text), variant
    examples = re.findall(r"^\| `(base|marvel)` \| (\d+) \| `([^`]+)` \|$", text, flags=re.M)
    assert len(examples) >= 10
    for variant, number, move in examples:
        table = action_table(variant)
        assert table.id_of(move) == int(number), move
        assert table.text_of(int(number)) == move


@pytest.mark.parametrize("variant", ["base", "marvel"])
def test_every_id_is_one_canonical_text_in_sorted_order(variant: str) -> None:
    table = action_table(variant)
    assert list(table.texts) == sorted(set(table.texts))
    for action, text in enumerate(table.texts):
        assert engine.move_from_text(text).text == text
        assert table.ids[text] == action


@pytest.mark.parametrize("variant", ["base", "marvel"])
def test_the_table_counts_each_form_as_documented(variant: str) -> None:
    table = action_table(variant)
    v = engine.variants.get_variant(variant)
    tiles = 1 + len(v.tiles)
    plain = [t for t in table.texts if f" {v.tile_word} " not in t]
    assert len(table) == len(plain) * tiles
    takes = [t for t in plain if t.startswith("take ")]
    # 30 take actions; a take of k tokens gives back none or 1..k of six letters
    assert len({t.split(" return")[0] for t in takes}) == 30
    assert len(takes) == 10 * (1 + 6 + 21 + 56) + 15 * (1 + 6 + 21) + 5 * (1 + 6)
    assert len([t for t in plain if t.startswith("reserve ")]) == (len(v.cards) + 3) * 7
    assert [t for t in plain if t.startswith("pass")] == ["pass"]
    buys = [engine.move_from_text(t) for t in plain if t.startswith("buy ")]
    assert max(len(m.pay) for m in buys) == MAX_JOKERS
    for m in buys:
        assert m.card is not None
        cost = v.cards[m.card].cost
        assert all(m.pay.count(v.letters[i]) <= cost[i] for i in range(5)), m
    returning = {m.card for m in buys if m.ret}
    stones = {cid for cid, c in v.cards.items() if c.time_stone and c.level == 3} if v.time_letter else set()
    assert returning == stones
    assert all(len(m.ret) == 1 for m in buys if m.ret)
    assert not any("T" in engine.move_from_text(t).ret for t in plain)


def test_action_id_reads_any_case_and_letter_order() -> None:
    env = SplendorEnv("base", 2, seed=1)
    assert env.action_id("take gwu") == env.action_id("take WUG")
    assert env.action_text(env.action_id("buy 2-05 j:kr")) == "buy 2-05 J:RK"


@pytest.mark.parametrize("text", [
    "take WUG return JJJJ",  # a take of three gives back at most three
    "buy 1-01 J:KKKKKK",  # six jokers: the game has five
    "buy 1-02 J:W",  # 1-02 costs no white: no joker pays for white
    "pass return K",  # a pass never overflows a hand
    "take YUO",  # Marvel letters in the base game
    "buy 1-01 location L1A",  # a Marvel tile in the base game
    "reserve deck2 return KK",  # a reservation brings one joker
])
def test_action_id_refuses_a_move_no_position_allows(text: str) -> None:
    env = SplendorEnv("base", 2, seed=1)
    with pytest.raises(ValueError, match="is not a move any base position allows"):
        env.action_id(text)


def test_action_id_refuses_text_that_is_not_notation() -> None:
    with pytest.raises(ValueError, match="not a move in notation"):
        SplendorEnv("base", 2, seed=1).action_id("steal everything")


@pytest.mark.parametrize("bad", [-1, 43802, True, "7", 1.0])
def test_action_text_refuses_what_is_not_an_id(bad: object) -> None:
    env = SplendorEnv("base", 2, seed=1)
    with pytest.raises(ValueError, match="action id"):
        env.action_text(bad)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["base", "marvel"]), st.data())
def test_any_id_round_trips_through_its_text(variant: str, data: st.DataObject) -> None:
    table = action_table(variant)
    action = data.draw(st.integers(0, len(table) - 1))
    text = table.text_of(action)
    assert table.id_of(text) == action
    assert table.id_of(text.lower()) == action


# --- playing -----------------------------------------------------------------------

@pytest.mark.parametrize(("variant", "players"), GAMES)
def test_every_legal_move_of_random_games_round_trips_and_the_mask_is_exactly_the_legal_moves(
        variant: str, players: int) -> None:
    for seed in range(3):
        env = SplendorEnv(variant, players, seed=seed)
        _, info = env.reset()
        rng = random.Random(seed)
        positions = 0
        while True:
            legal = [m.text for m in engine.legal_moves(env.state)]
            assert legal, "no legal move before the end"
            ids = [env.action_id(m) for m in legal]
            assert [env.action_text(i) for i in ids] == legal
            assert ids == sorted(ids) == env.legal_action_ids()
            mask = env.legal_actions()
            assert len(mask) == env.action_count
            assert [i for i, ok in enumerate(mask) if ok] == ids
            assert info["action_mask"].tolist() == mask
            assert legal == env.legal_moves()
            assert info["to_move"] == env.to_move == env.agent_selection == env.state.seat
            positions += 1
            _, _, terminated, _, info = env.step(rng.choice(ids))
            if terminated:
                break
        assert positions > 20
        assert env.legal_actions() == [False] * env.action_count
        assert env.legal_action_ids() == [] and info["action_mask"].tolist() == env.legal_actions()


@pytest.mark.parametrize(("variant", "players"), GAMES)
def test_random_games_end_with_a_reward_of_one_to_each_winner_and_none_before(variant: str, players: int) -> None:
    for seed in range(4):
        env = SplendorEnv(variant, players, seed=100 + seed)
        env.reset()
        steps = play_random(env, random.Random(seed))
        *before, (acted, reward, terminated, info) = steps
        for _, r, done, i in before:
            assert (r, done, i["rewards"], i["outcome"]) == (0.0, False, [0.0] * players, None)
        assert terminated and env.terminated and env.to_move is None and env.agent_selection is None
        result = info["outcome"]
        assert result is not None and result == env.outcome == engine.outcome(env.state)
        assert result["winners"]
        assert info["rewards"] == env.rewards == [1.0 if s in result["winners"] else 0.0 for s in range(players)]
        assert reward == info["rewards"][acted]
        assert info["observer"] == acted == info["acted"]
        assert env.agents == []
        with pytest.raises(ValueError, match="the game is over"):
            env.step(0)


@pytest.mark.parametrize("variant", ["base", "marvel"])
def test_the_engines_bots_play_a_whole_game_through_the_ids(variant: str) -> None:
    env = SplendorEnv(variant, 3, seed=5)
    bots = [make_bot("greedy", seed=s) for s in range(3)]
    env.reset()
    terminated = False
    while not terminated:
        seat = env.agent_selection
        assert seat is not None
        move = bots[seat].choose(env.observe(seat), env.legal_moves())
        _, _, terminated, _, info = env.step(env.action_id(move))
        assert info["move"] == move and info["acted"] == seat
    assert sum(env.rewards) >= 1.0


def test_reset_deals_the_game_of_the_seed_and_a_reproducible_sequence_after_it() -> None:
    env = SplendorEnv("base", 2, seed=7)
    obs, info = env.reset()
    assert env.observe(0) == engine.observe(engine.new_game("base", 2, seed=7), 0)
    assert same(obs, env.encode(env.observe(0)))
    assert info["game_seed"] == 7 and info["acted"] is None and info["observer"] == 0
    env.step(env.legal_action_ids()[0])
    second, _ = env.reset()
    third, _ = env.reset()
    again = SplendorEnv("base", 2, seed=7)
    again.reset()
    again.step(again.legal_action_ids()[0])
    assert same(again.reset()[0], second) and same(again.reset()[0], third)
    assert not same(second, third)
    assert same(env.reset(seed=7)[0], obs)
    assert SplendorEnv("marvel", 4, seed=3).observe(None) == engine.observe(engine.new_game("marvel", 4, seed=3), None)


@pytest.mark.parametrize(("variant", "players", "match"), [
    ("chess", 2, "unknown variant"), ("base", 5, "B-SETUP-1"), ("base", 1, "B-SETUP-1"), ("marvel", True, "B-SETUP-1"),
])
def test_a_bad_variant_or_seat_count_is_refused(variant: str, players: int, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        SplendorEnv(variant, players, seed=1)


# --- illegal ids name the rule -------------------------------------------------------

@pytest.mark.parametrize(("text", "rule"), [
    ("reserve deck1 return J", "B-LIMIT-1"),
    ("buy 3-01", "B-BUY-1"),
    ("pass", "B-PASS-1"),
    ("take WUG noble N01", "B-NOBLE-1"),
])
def test_an_illegal_id_raises_the_engines_error_naming_the_rule_and_the_move(text: str, rule: str) -> None:
    env = SplendorEnv("base", 2, seed=7)
    action = env.action_id(text)
    assert text not in env.legal_moves()
    with pytest.raises(engine.IllegalMove) as caught:
        env.step(action)
    assert caught.value.rule == rule
    assert str(caught.value).startswith(f"{rule}: action {action} ({text!r}): ")
    assert env.state == engine.new_game("base", 2, seed=7)  # nothing was played


def test_an_id_lacking_a_required_return_is_ambiguous_and_lists_the_complete_moves() -> None:
    env = SplendorEnv("base", 2, seed=1)
    rng = random.Random(0)
    while not env.terminated:
        legal = env.legal_moves()
        needing = sorted({m.split(" return")[0] for m in legal if m.startswith("take ") and " return " in m})
        lacking = [m for m in needing if m not in legal]
        if lacking:
            with pytest.raises(engine.AmbiguousMove) as caught:
                env.step(env.action_id(lacking[0]))
            assert caught.value.rule == "B-LIMIT-1"
            assert caught.value.choices and set(caught.value.choices) <= set(legal)
            return
        env.step(env.action_id(rng.choice(legal)))
    pytest.fail("no random position needed a return")


def test_a_step_with_an_id_out_of_range_is_refused() -> None:
    env = SplendorEnv("marvel", 2, seed=1)
    with pytest.raises(ValueError, match=r"out of range 0\.\.85220"):
        env.step(env.action_count)


# --- what a seat may see ---------------------------------------------------------------

def _secrets(state: engine.State, seat: int) -> set[str]:
    """The card ids ``seat`` may not see: every deck card, others' blind reservations."""
    hidden = {cid for deck in state.decks for cid in deck}
    for s, p in enumerate(state.players):
        if s != seat:
            hidden |= {cid for cid, blind in p.reserved if blind}
    return hidden


def _card_ids(value: object) -> set[str]:
    return set(re.findall(r"\b[1-3]-\d\d\b", json.dumps(value)))


@pytest.mark.parametrize(("variant", "players"), GAMES)
def test_no_view_or_info_shows_a_card_its_seat_may_not_see(variant: str, players: int) -> None:
    blind_seen = 0
    for seed in range(3):
        env = SplendorEnv(variant, players, seed=200 + seed)
        obs, info = env.reset()
        rng = random.Random(seed)
        # The check sees a leak: the full state names the deck cards the views must not.
        assert _card_ids(engine.to_dict(env.state)) & _secrets(env.state, 0)
        while True:
            # The observation is numbers (test_gym_env: hidden cards shuffled, it stays the same).
            told = {key: value for key, value in info.items() if key != "action_mask"}  # booleans only
            assert not _card_ids(told) & _secrets(env.state, info["observer"])
            for seat in range(players):
                assert not _card_ids(env.observe(seat)) & _secrets(env.state, seat)
            assert not _card_ids(env.observe(None)) & {
                cid for p in env.state.players for cid, blind in p.reserved if blind}
            blind_seen += sum(1 for p in env.state.players for _, blind in p.reserved if blind)
            # Blind reservations are played more often than random play would.
            legal = env.legal_action_ids()
            blind = [a for a in legal if " deck" in env.action_text(a)]
            obs, _, terminated, _, info = env.step(rng.choice(blind if blind and rng.random() < 0.3 else legal))
            if terminated:
                break
    assert blind_seen > 0


@pytest.mark.parametrize(("variant", "players"), GAMES)
def test_sample_hidden_gives_states_that_each_seat_cannot_tell_from_the_real_one(variant: str, players: int) -> None:
    env = SplendorEnv(variant, players, seed=300)
    env.reset()
    rng = random.Random(1)
    differed = 0
    for ply in range(60):
        if env.terminated:
            break
        if ply % 6 == 0:
            for seat in [*range(players), None]:
                view = env.observe(seat)
                sample = env.sample_hidden(seat, rng)
                assert engine.observe(sample, seat) == view
                assert engine.check_invariants(sample) == []
                assert engine.legal_moves(sample) == engine.legal_moves(env.state) or seat != env.to_move
                differed += sample.decks != env.state.decks
                sampler = env.hidden_sampler(seat)
                assert engine.observe(sampler.sample(rng), seat) == view
        legal = env.legal_action_ids()
        blind = [a for a in legal if " deck" in env.action_text(a)]
        env.step(rng.choice(blind or legal))
    assert differed > 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["base", "marvel"]), st.integers(2, 4), st.integers(0, 2**32), st.randoms(use_true_random=False))
def test_random_play_keeps_the_mask_the_legal_moves_and_the_turn_order(
        variant: str, players: int, seed: int, rng: random.Random) -> None:
    env = SplendorEnv(variant, players, seed=seed)
    obs, info = env.reset()
    for _ in range(rng.randrange(1, 120)):
        seat = env.agent_selection
        assert seat is not None and seat == info["observer"]
        legal = env.legal_action_ids()
        assert [env.action_text(a) for a in legal] == env.legal_moves()
        assert info["action_mask"].nonzero()[0].tolist() == legal
        obs, reward, terminated, _, info = env.step(rng.choice(legal))
        assert info["acted"] == seat
        if terminated:
            assert reward == (1.0 if info["outcome"] and seat in info["outcome"]["winners"] else 0.0)
            break
        assert reward == 0.0 and env.agent_selection == (seat + 1) % players
