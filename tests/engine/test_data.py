"""The card, noble and location tables shipped with the engine (B-COMP, M-COMP)."""

from __future__ import annotations

from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

import engine
from engine.variants import BASE, MARVEL
from tests.engine.builders import position

# The rules folder sits beside the repository (README: `../shared/rules/`).
RULES_DATA = Path(__file__).resolve().parents[3] / "shared" / "rules" / "data"
DATA_FILES = ("base_cards.csv", "base_nobles.csv", "marvel_cards.csv", "marvel_locations.csv")


def test_base_tokens_are_seven_per_colour_and_five_gold_forty_in_all():
    """B-COMP-1 (with 4 players, where no gem is removed)."""
    supply = BASE.supply(4)
    assert supply[:5] == (7, 7, 7, 7, 7)
    assert supply[5] == 5
    assert sum(supply) == 40
    assert supply[6] == 0  # the base game has no Time Stone


def test_base_has_ninety_cards_forty_thirty_twenty_by_level():
    """B-COMP-2."""
    assert len(BASE.cards) == 90
    assert Counter(c.level for c in BASE.cards.values()) == {1: 40, 2: 30, 3: 20}


def test_base_cards_split_eight_six_four_per_colour_per_level():
    """B-COMP-2: every colour has 8 level-1, 6 level-2 and 4 level-3 cards."""
    per = Counter((c.level, c.color) for c in BASE.cards.values())
    for colour in range(5):
        assert (per[1, colour], per[2, colour], per[3, colour]) == (8, 6, 4)


def test_base_cards_have_points_zero_to_five_and_a_cost():
    """B-COMP-2: prestige 0-5, a non-empty cost in gems, ids <level>-<nn>."""
    assert len(BASE.cards) == 90
    for cid, c in BASE.cards.items():
        assert 0 <= c.points <= 5
        assert sum(c.cost) > 0 and min(c.cost) >= 0
        assert cid.startswith(f"{c.level}-") and len(cid) == 4


def test_base_has_ten_nobles_of_three_points_asking_two_colours_by_four_or_three_by_three():
    """B-COMP-3."""
    assert sorted(BASE.tiles) == [f"N{k:02}" for k in range(1, 11)]
    for noble in BASE.tiles.values():
        assert noble.points == 3
        asks = sorted(n for n in noble.requires if n)
        assert asks in ([4, 4], [3, 3, 3]), noble


def test_marvel_stones_are_five_colours_of_seven():
    """M-COMP-1: yellow, blue, orange, red, purple; 7 each (with 4 players)."""
    assert MARVEL.colours == ("yellow", "blue", "orange", "red", "purple")
    assert MARVEL.supply(4)[:5] == (7, 7, 7, 7, 7)


def test_marvel_has_four_green_time_stones_and_five_grey_jokers():
    """M-COMP-2 (4 green with 4 players; M-SETUP-1 gives one per player)."""
    supply = MARVEL.supply(4)
    assert supply[5] == 5  # grey S.H.I.E.L.D.
    assert supply[6] == 4  # green Time Stone


def test_marvel_has_ninety_characters_forty_thirty_twenty_by_level():
    """M-COMP-3."""
    assert len(MARVEL.cards) == 90
    assert Counter(c.level for c in MARVEL.cards.values()) == {1: 40, 2: 30, 3: 20}


def test_marvel_characters_split_eight_six_four_per_colour_per_level():
    """M-COMP-3: the bonus colours are spread like the base game's."""
    per = Counter((c.level, c.color) for c in MARVEL.cards.values())
    for colour in range(5):
        assert (per[1, colour], per[2, colour], per[3, colour]) == (8, 6, 4)


def test_marvel_characters_have_names_zero_to_two_icons_and_a_cost():
    """M-COMP-3."""
    names = [c.name for c in MARVEL.cards.values()]
    assert all(names) and len(set(names)) == 90
    for c in MARVEL.cards.values():
        assert 0 <= c.avengers <= 2
        assert 0 <= c.points <= 5
        assert sum(c.cost) > 0 and min(c.cost) >= 0


def test_every_level_three_marvel_card_grants_the_time_stone_and_no_other_does():
    """M-COMP-3: level-3 cards show the Time Stone icon."""
    assert any(c.level == 3 for c in MARVEL.cards.values()) and any(c.level < 3 for c in MARVEL.cards.values())
    for c in MARVEL.cards.values():
        assert c.time_stone == (c.level == 3), c


def test_marvel_has_eight_locations_on_four_double_sided_tiles():
    """M-COMP-4: 8 locations of 3 points, two sides of each of 4 tiles."""
    assert sorted(MARVEL.tiles) == [f"L{k}{side}" for k in range(1, 5) for side in "AB"]
    groups = Counter(t.group for t in MARVEL.tiles.values())
    assert groups == {"1": 2, "2": 2, "3": 2, "4": 2}
    for location in MARVEL.tiles.values():
        assert location.points == 3
        assert location.id[1] == location.group
        assert sum(location.requires) > 0
        assert location.name


def test_avengers_assemble_is_worth_three_points():
    """M-COMP-5: the tile's 3 points count in the holder's score."""
    s = position("marvel", avengers=1)
    assert engine.score(s, 1) == 3
    assert engine.score(s, 0) == 0


@pytest.mark.parametrize("filename", DATA_FILES)
def test_package_data_equals_the_rules_data(filename):
    """B-COMP-2, M-COMP-3, M-COMP-4: the engine ships the rules' tables unchanged."""
    if not RULES_DATA.is_dir():
        pytest.skip("the shared rules folder (../shared/rules/data) is not beside the repository")
    shipped = resources.files("engine").joinpath("data").joinpath(filename).read_text(encoding="utf-8")
    assert shipped == (RULES_DATA / filename).read_text(encoding="utf-8")
