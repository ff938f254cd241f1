"""Done when, knockout: five players, three byes, a bracket decided in three
rounds, and a timeout forfeit loses its match (T-KO-BYE, T-KO-NEXT, T-KO-MATCH,
T-KO-SEATS, T-KO-FORFEIT), played through the API."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone

from games.models import Game
from games.services import game_time_out
from leagues.models import RatingChange
from tests.tournaments.api_helpers import Clients, current_round, detail, finish_by_resignations, ok
from tests.tournaments.conftest import rated_players


def _game(clients: Clients, name: str, game_id: str) -> dict[str, Any]:
    return ok(clients[name].get(f"/api/v1/games/{game_id}/"))  # type: ignore[no-any-return]


def _win_game(clients: Clients, table: dict[str, Any], winner: str) -> None:
    game = table["games"][-1]
    loser = next(p for p in table["players"] if p != winner)
    finish_by_resignations(clients, game["game_id"], [winner, loser])


def test_a_knockout_of_five_three_byes_three_rounds_and_a_forfeit_loses_its_match(transactional_db: None) -> None:
    users = rated_players(5)
    clients = Clients(users)
    organiser = clients["p1"]
    body = ok(
        organiser.post(
            "/api/v1/tournaments/",
            {"name": "Cup", "format": "knockout", "games_per_match": 3, "forfeit_after": 1, "rated": True,
             "vacation_allowed": False},  # fmt: skip
            format="json",
        ),
        201,
    )
    tournament_id = body["id"]
    for user in users:
        ok(clients[user.username].post(f"/api/v1/tournaments/{tournament_id}/join/"))
    ok(organiser.post(f"/api/v1/tournaments/{tournament_id}/start/"))
    body = detail(organiser, tournament_id)
    assert body["rounds_planned"] == 3

    # Round 1, a bracket of eight: seeds 1-3 through on byes, 4 v 5 plays.
    round_1 = current_round(body)
    assert [t["players"] for t in round_1["tables"]] == [["p1"], ["p4", "p5"], ["p2"], ["p3"]]
    assert [t["decided_by"] for t in round_1["tables"]] == ["bye", "", "bye", "bye"]
    assert [t["winner"] for t in round_1["tables"]] == ["p1", None, "p2", "p3"]
    match = round_1["tables"][1]
    # Best of three, seats alternating: p5 wins, p4 wins, p5 wins.
    for number, winner in enumerate(["p5", "p4", "p5"], start=1):
        table = current_round(detail(organiser, tournament_id))["tables"][1]
        assert len(table["games"]) == number
        seated = _game(clients, "p4", table["games"][-1]["game_id"])
        assert seated["status"] == "active"
        # T-KO-SEATS: the play order is the join order: the better seed moves first in odd games.
        first = next(s["username"] for s in seated["seats"] if s["seat"] == 0)
        assert first == ("p4" if number % 2 else "p5")
        _win_game(clients, table, winner)
    match = detail(organiser, tournament_id)["round_list"][0]["tables"][1]
    assert match["winner"] == "p5" and match["decided_by"] == "" and len(match["games"]) == 3
    # T-KO-SEATS: the better seed (p4) joined first in games 1 and 3, p5 in game 2.
    assert [g["players"][0] for g in match["games"]] == ["p4", "p5", "p4"]
    export = ok(clients["p4"].get(f"/api/v1/games/{match['games'][0]['game_id']}/export/"))
    assert export["seat_order"] == "joined" and [s["join_position"] for s in export["seats"]] == [0, 1]

    # Round 2: neighbours in bracket order, the better seed first.
    body = detail(organiser, tournament_id)
    round_2 = current_round(body)
    assert [t["players"] for t in round_2["tables"]] == [["p1", "p5"], ["p2", "p3"]]
    statuses = {row["username"]: row["status"] for row in body["standings"]}
    assert statuses["p4"] == "eliminated"
    # p1 v p5: the seat to move in game 1 misses its deadline; with forfeit_after 1
    # that forfeits the seat, and the forfeit loses the whole best-of-three at once.
    forfeit_game = round_2["tables"][0]["games"][0]["game_id"]
    state = _game(clients, "p1", forfeit_game)
    late = next(s["username"] for s in state["seats"] if s["seat"] == state["to_move"])
    assert late == "p1"  # the better seed moves first in a match's first game
    assert game_time_out(game_id=forfeit_game, now=timezone.now() + timedelta(days=30))
    assert Game.objects.get(pk=forfeit_game).status == Game.Status.FINISHED
    # p2 v p3: p3 wins two straight.
    for _ in range(2):
        _win_game(clients, current_round(detail(organiser, tournament_id))["tables"][1], "p3")
    round_2 = detail(organiser, tournament_id)["round_list"][1]
    first = round_2["tables"][0]
    survivor = "p5" if late == "p1" else "p1"
    assert first["winner"] == survivor and first["decided_by"] == "forfeit" and len(first["games"]) == 1
    assert first["games"][0]["forfeited"] == [late]
    assert round_2["tables"][1]["winner"] == "p3" and len(round_2["tables"][1]["games"]) == 2

    # Round 3, the final: the survivor against p3; p3 wins two straight.
    body = detail(organiser, tournament_id)
    final = current_round(body)
    assert final["number"] == 3
    assert sorted(final["tables"][0]["players"]) == sorted([survivor, "p3"])
    for _ in range(2):
        _win_game(clients, current_round(detail(organiser, tournament_id))["tables"][0], "p3")
    body = detail(organiser, tournament_id)
    assert body["status"] == "finished" and body["winner"] == "p3"
    assert len(body["round_list"]) == 3
    assert {row["username"]: row["status"] for row in body["standings"]}[late] == "eliminated"
    # T-KO-STAND: the winner, the finalist, the semi-finalists (by matches won, then rating), p4.
    assert [(row["username"], row["points"]) for row in body["standings"]] == [
        ("p3", 3.0), (survivor, 2.0), *sorted([(late, 1.0), ("p2", 1.0)]), ("p4", 0.0)]  # fmt: skip
    # Rated: every game of the tournament moved its players' ratings (Glicko-2, as league games).
    games = [g["game_id"] for r in body["round_list"] for t in r["tables"] for g in t["games"]]
    assert len(games) == 3 + 1 + 2 + 2
    assert set(RatingChange.objects.filter(game_id__in=games).values_list("game_id", flat=True)) == set(games)
