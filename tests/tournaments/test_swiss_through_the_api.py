"""Done when, Swiss: nine players at 3-player tables for three rounds, played
through the API, each game ended by scripted resignations.

Rules checked: T-SWISS-REPEAT (no two players meet again while a repeat-free
pairing exists), T-SWISS-GROUP (tables group equal points as far as that allows),
T-STAND-POINTS and T-STAND-BUCHHOLZ (against a hand computation), T-WITHDRAW (a
withdrawn player is not paired again)."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from tests.tournaments.api_helpers import Clients, current_round, detail, finish_by_resignations, ok
from tests.tournaments.conftest import rated_players

# Leagues' points by place for a table of three (docs/leagues.md): 3, 1, 0.
POINTS = {1: 3, 2: 1, 3: 0}


def _tables(round_body: dict[str, Any]) -> list[list[str]]:
    return [table["players"] for table in round_body["tables"]]


def _as_sets(tables: list[list[str]]) -> set[frozenset[str]]:
    return {frozenset(table) for table in tables}


def _play_round(clients: Clients, round_body: dict[str, Any]) -> list[list[str]]:
    """Each table's players finish in the order the table lists them (its ranking
    order): the first named wins. Returns each table's places, first first."""
    results = []
    for table in round_body["tables"]:
        (game,) = table["games"]
        places = list(table["players"])
        # The table's players are its game's players, in the order they joined.
        assert sorted(game["players"]) == sorted(places)
        finish_by_resignations(clients, game["game_id"], places)
        results.append(places)
    return results


def _partitions(players: list[str], sizes: list[int]) -> list[list[frozenset[str]]]:
    if not sizes:
        return [[]]
    first, rest = players[0], players[1:]
    found = []
    for others in combinations(rest, sizes[0] - 1):
        table = frozenset((first, *others))
        remaining = [p for p in rest if p not in table]
        for tail in _partitions(remaining, sizes[1:]):
            found.append([table, *tail])
    return found


def test_a_swiss_of_nine_at_three_player_tables_over_three_rounds(transactional_db: None) -> None:
    users = rated_players(9)
    clients = Clients(users)
    organiser = clients["p1"]
    body = ok(
        organiser.post(
            "/api/v1/tournaments/",
            {"name": "Winter Swiss", "format": "swiss", "seats": 3, "rounds": 3, "max_players": 9},
            format="json",
        ),
        201,
    )
    tournament_id = body["id"]
    assert body["status"] == "open" and body["organiser"] is True
    for user in users:
        assert ok(clients[user.username].post(f"/api/v1/tournaments/{tournament_id}/join/"))["status"] == "active"
    ok(organiser.post(f"/api/v1/tournaments/{tournament_id}/start/"))

    # Round 1: nobody has points; the order is by rating and neighbours sit together.
    round_1 = current_round(detail(organiser, tournament_id))
    assert _tables(round_1) == [["p1", "p2", "p3"], ["p4", "p5", "p6"], ["p7", "p8", "p9"]]
    _play_round(clients, round_1)

    # Round 2: three points groups of players who have not met: the tables are the groups.
    body = detail(organiser, tournament_id)
    assert len(body["round_list"]) == 2 and body["round_list"][0]["finished_at"] is not None
    round_2 = current_round(body)
    assert _as_sets(_tables(round_2)) == _as_sets([["p1", "p4", "p7"], ["p2", "p5", "p8"], ["p3", "p6", "p9"]])
    # p9 withdraws during round 2: their game is resigned for them (they are third).
    table_9 = next(t for t in round_2["tables"] if "p9" in t["players"])
    assert ok(clients["p9"].post(f"/api/v1/tournaments/{tournament_id}/leave/"))["status"] == "withdrawn"
    ok(clients["p6"].post(f"/api/v1/games/{table_9['games'][0]['game_id']}/resign/", {}, format="json"))
    for table in round_2["tables"]:
        if "p9" not in table["players"]:
            finish_by_resignations(clients, table["games"][0]["game_id"], ["p1", "p4", "p7"] if "p1" in
                                   table["players"] else ["p2", "p5", "p8"])  # fmt: skip

    # Points after two rounds (3, 1, 0 a place) and Buchholz by hand.
    points = {"p1": 6, "p2": 4, "p3": 3, "p4": 4, "p5": 2, "p6": 1, "p7": 3, "p8": 1, "p9": 0}
    met_in = {
        "p1": ["p2", "p3", "p4", "p7"], "p2": ["p1", "p3", "p5", "p8"], "p3": ["p1", "p2", "p6", "p9"],
        "p4": ["p5", "p6", "p1", "p7"], "p5": ["p4", "p6", "p2", "p8"], "p6": ["p4", "p5", "p3", "p9"],
        "p7": ["p8", "p9", "p1", "p4"], "p8": ["p7", "p9", "p2", "p5"], "p9": ["p7", "p8", "p3", "p6"],
    }  # fmt: skip
    buchholz = {p: sum(points[o] for o in met_in[p]) for p in points}
    assert buchholz == {"p1": 14, "p2": 12, "p3": 11, "p4": 12, "p5": 10, "p6": 9, "p7": 11, "p8": 9, "p9": 8}
    body = detail(organiser, tournament_id)
    after_2 = {row["username"]: row for row in body["standings"]}
    assert {name: row["points"] for name, row in after_2.items()} == points
    assert {name: row["buchholz"] for name, row in after_2.items()} == buchholz
    assert after_2["p9"]["status"] == "withdrawn"
    # Equal points and Buchholz: the rating decides (no prestige in resigned games).
    assert [row["username"] for row in body["standings"]] == ["p1", "p2", "p4", "p3", "p7", "p5", "p6", "p8", "p9"]

    # Round 3: the withdrawn p9 is not paired; eight players at 3 + 3 + 2.
    round_3 = current_round(body)
    assert round_3["number"] == 3 and round_3["bye"] is None
    tables = _tables(round_3)
    seated = sorted(p for table in tables for p in table)
    assert seated == ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"]
    assert sorted(len(t) for t in tables) == [2, 3, 3]
    met = {frozenset(pair) for p, others in met_in.items() for pair in ((p, o) for o in others)}
    # T-SWISS-REPEAT: no repeat, and a repeat-free partition exists (checked here by enumeration).
    repeats = [pair for table in tables for pair in combinations(table, 2) if frozenset(pair) in met]
    assert repeats == []
    # T-SWISS-GROUP: as few unequal-points pairs as any repeat-free partition has.
    def unequal(partition: list[frozenset[str]]) -> int:
        return sum(points[a] != points[b] for table in partition for a, b in combinations(sorted(table), 2))

    candidates = [
        partition
        for sizes in ([3, 3, 2], [3, 2, 3], [2, 3, 3])
        for partition in _partitions(seated, sizes)
        if not any(frozenset(pair) in met for table in partition for pair in combinations(sorted(table), 2))
    ]
    assert candidates, "a repeat-free pairing exists"
    assert unequal([frozenset(t) for t in tables]) == min(unequal(c) for c in candidates)
    results = _play_round(clients, round_3)

    # The end: standings by hand from the three rounds.
    for places in results:
        for place, name in enumerate(places, start=1):
            points[name] += {2: {1: 3, 2: 1}, 3: POINTS}[len(places)][place]
            met_in[name].extend(other for other in places if other != name)
    buchholz = {p: sum(points[o] for o in met_in[p]) for p in points}
    body = detail(organiser, tournament_id)
    assert body["status"] == "finished"
    final = {row["username"]: (row["points"], row["buchholz"]) for row in body["standings"]}
    assert final == {p: (points[p], buchholz[p]) for p in points}
    ranked = [row["username"] for row in body["standings"]]
    assert ranked == sorted(points, key=lambda p: (-points[p], -buchholz[p], int(p[1:])))
    assert body["winner"] == ranked[0]
