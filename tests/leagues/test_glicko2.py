"""Glicko-2 against the worked example in Glickman's "Example of the Glicko-2 system"."""

from __future__ import annotations

import pytest

from leagues.glicko2 import DEFAULT_RD, Rating, Result, rate


def test_the_papers_example_gives_the_papers_numbers() -> None:
    player = Rating(1500, 200, 0.06)
    results = [
        Result(Rating(1400, 30), 1.0),
        Result(Rating(1550, 100), 0.0),
        Result(Rating(1700, 300), 0.0),
    ]
    after = rate(player, results, tau=0.5)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.rd == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_player_who_did_not_play_only_grows_less_certain() -> None:
    after = rate(Rating(1600, 100, 0.06), [])
    assert after.rating == 1600
    assert after.rd > 100


def test_the_deviation_never_grows_past_the_starting_one() -> None:
    assert rate(Rating(1500, DEFAULT_RD, 0.06), []).rd == DEFAULT_RD


def test_a_win_raises_and_a_loss_lowers_a_new_players_rating() -> None:
    opponent = Rating()
    assert rate(Rating(), [Result(opponent, 1.0)]).rating > 1500
    assert rate(Rating(), [Result(opponent, 0.0)]).rating < 1500
    assert rate(Rating(), [Result(opponent, 0.5)]).rating == pytest.approx(1500)
