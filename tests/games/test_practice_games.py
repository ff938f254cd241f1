"""Practice games: a player against the service's bots, made with ``bots`` on
``POST /api/v1/games/``. The bots move in a task queued on commit (run inline in
the tests: ``commit`` runs a request's on-commit work when it ends), never in the
player's request.

alice plays against bots; bob and charlie stand outside her practice games.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import engine
import engine.bots
import pytest
from django.utils import timezone
from tests.games.game_helpers import client_for, start_two_player_game
from tests.games.test_games_api import assert_problem

from accounts.models import Player
from games import selectors, services
from games.practice import selectors as practice_selectors
from games.models import BotTurn, Game, Move, PlayedBy, Seat
from games.tasks import play_bots



def _create(client: Any, commit: Any, **body: Any) -> Any:
    with commit():
        return client.post("/api/v1/games/", {"variant": "base", **body}, format="json")


def _human_seat(game: Game) -> Seat:
    return next(seat for seat in game.seats.all() if not seat.bot_name)


def _play_as_human_to_the_end(client: Any, game_id: str, commit: Any, limit: int = 400) -> dict[str, Any]:
    """alice plays her turns through the API, each move's on-commit work (the bots'
    task) run as a request's would; returns the final representation."""
    for _ in range(limit):
        body = client.get(f"/api/v1/games/{game_id}/").json()
        if body["status"] != "active":
            return body  # type: ignore[no-any-return]
        assert body["to_move"] == body["your_seat"], "a bot's turn was left unplayed"
        moves = client.get(f"/api/v1/games/{game_id}/legal-moves/").json()["moves"]
        buys = [m for m in moves if m.startswith("buy ")]
        takes = [m for m in moves if m.startswith("take ") and " return " not in m]
        move = buys[-1] if buys else takes[len(takes) // 2] if takes else moves[0]
        with commit():
            answer = client.post(
                f"/api/v1/games/{game_id}/moves/", {"move": move, "expected_version": body["version"]}, format="json"
            )
        assert answer.status_code == 201, answer.content
    raise AssertionError("the practice game did not end")


def test_a_practice_game_starts_at_once_with_a_seat_per_bot(alice: Any, commit: Any) -> None:
    answer = _create(client_for(alice), commit, bots=["greedy", "random"])
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert answer["Location"] == f"/api/v1/games/{body['id']}/"
    assert body["kind"] == "practice" and body["status"] == "active"
    assert body["seat_count"] == 3 and body["public"] is False and body["rated"] is False
    assert body["deadline_at"] is None
    bots = sorted(seat["bot_name"] for seat in body["seats"] if seat["bot"])
    assert bots == ["greedy", "random"]
    assert [seat["username"] for seat in body["seats"] if not seat["bot"]] == ["alice"]


def test_the_bots_reply_before_the_players_next_read(alice: Any, commit: Any) -> None:
    client = client_for(alice)
    game_id = _create(client, commit, bots=["greedy"]).json()["id"]
    body = client.get(f"/api/v1/games/{game_id}/").json()
    # Whoever the seed put first, the game now waits for alice.
    assert body["to_move"] == body["your_seat"]
    moves = client.get(f"/api/v1/games/{game_id}/legal-moves/").json()["moves"]
    with commit():
        played = client.post(
            f"/api/v1/games/{game_id}/moves/", {"move": moves[0], "expected_version": body["version"]}, format="json"
        )
    assert played.status_code == 201
    after = client.get(f"/api/v1/games/{game_id}/").json()
    assert after["to_move"] == after["your_seat"]
    bot_moves = Move.objects.filter(game_id=game_id).exclude(seat=body["your_seat"])
    assert bot_moves.count() >= 1
    assert all(move.played_by == PlayedBy.PLAYER for move in bot_moves)  # the bot is its seat's player


def test_the_bot_does_not_move_inside_the_players_request(alice: Any, django_capture_on_commit_callbacks: Any) -> None:
    client = client_for(alice)
    for _ in range(30):
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            game_id = client.post("/api/v1/games/", {"bots": ["greedy"]}, format="json").json()["id"]
        game = Game.objects.get(pk=game_id)
        if game.to_move != _human_seat(game).index:
            break
    else:
        pytest.skip("the seed put alice first every time")
    # The bot moves first: the request queued its task and played nothing itself.
    assert Move.objects.filter(game=game).count() == 0
    assert callbacks


def test_a_whole_practice_game_is_played_to_the_end_through_the_api(alice: Any, commit: Any) -> None:
    client = client_for(alice)
    game_id = _create(client, commit, bots=["greedy", "random", "greedy"]).json()["id"]
    final = _play_as_human_to_the_end(client, game_id, commit)
    assert final["status"] == "finished"
    assert final["result"]["reason"] in {"points", "all-passed", "round-limit"}
    usernames = sorted(seat["username"] for seat in final["seats"])
    assert usernames == ["alice", "bot-greedy-1", "bot-greedy-2", "bot-random-1"]
    # The truth is the seed and the move log: the snapshot rebuilds from them.
    game = Game.objects.get(pk=game_id)
    assert selectors.game_rebuild_state(game=game) == game.state


def test_the_search_bot_plays_a_practice_game_at_the_practice_budget(
    alice: Any, commit: Any, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PRACTICE_BOT_PLAYOUTS, not the takeover's TAKEOVER_BOT_PLAYOUTS: an opponent
    a player chose plays at the strength docs/benchmarks.md measures."""
    settings.TAKEOVER_BOT_PLAYOUTS = 3
    settings.PRACTICE_BOT_PLAYOUTS = 9
    budgets: list[int] = []
    choose = engine.bots.ISMCTSBot.choose

    def counted(self: engine.bots.ISMCTSBot, view: Any, legal: Any) -> str:
        budgets.append(self.playouts or 0)
        return choose(self, view, legal)

    monkeypatch.setattr(engine.bots.ISMCTSBot, "choose", counted)
    client = client_for(alice)
    game_id = _create(client, commit, bots=["ismcts"]).json()["id"]
    for _ in range(3):
        body = client.get(f"/api/v1/games/{game_id}/").json()
        moves = client.get(f"/api/v1/games/{game_id}/legal-moves/").json()["moves"]
        with commit():
            client.post(
                f"/api/v1/games/{game_id}/moves/", {"move": moves[0], "expected_version": body["version"]}, format="json"
            )
    body = client.get(f"/api/v1/games/{game_id}/").json()
    assert body["to_move"] == body["your_seat"]
    assert Move.objects.filter(game_id=game_id).exclude(seat=body["your_seat"]).count() >= 3
    assert len(budgets) >= 3 and set(budgets) == {9}


def test_an_unknown_bot_is_refused_naming_the_known_ones(alice: Any, commit: Any) -> None:
    answer = _create(client_for(alice), commit, bots=["deep-blue"])
    body = assert_problem(answer, 400, "invalid_game_setup")
    assert "deep-blue" in body["detail"]
    assert body["known_bots"] == ["greedy", "ismcts", "random"]


def test_seats_that_do_not_match_the_bots_are_refused(alice: Any, commit: Any) -> None:
    body = assert_problem(_create(client_for(alice), commit, bots=["greedy"], seats=3), 400, "invalid_game_setup")
    assert "2 seats" in body["detail"]
    assert _create(client_for(alice), commit, bots=["greedy"], seats=2).status_code == 201


def test_a_rated_practice_game_is_refused(alice: Any, commit: Any) -> None:
    body = assert_problem(_create(client_for(alice), commit, bots=["greedy"], rated=True), 400, "invalid_game_setup")
    assert "rating" in body["detail"]


def test_no_bots_or_too_many_are_refused(alice: Any, commit: Any) -> None:
    assert_problem(_create(client_for(alice), commit, bots=[]), 400, "invalid_game_setup")
    assert_problem(_create(client_for(alice), commit, bots=["greedy"] * 4), 400, "validation_error")


def test_a_practice_game_takes_no_invitations_or_clock(alice: Any, bob: Any, commit: Any) -> None:
    body = assert_problem(
        _create(client_for(alice), commit, bots=["greedy"], invited=["bob"], move_timeout_hours=5),
        400,
        "validation_error",
    )
    assert set(body["errors"]) == {"invited", "move_timeout_hours"}


def test_the_bots_accounts_cannot_be_invited_or_looked_up(alice: Any, bob: Any, commit: Any) -> None:
    _create(client_for(alice), commit, bots=["greedy"])
    bot = Player.objects.get(user__username="bot-greedy-1")
    assert bot.system and bot.user.email == "" and not bot.user.has_usable_password()
    refused = client_for(bob).post("/api/v1/games/", {"invited": ["bot-greedy-1"]}, format="json")
    assert_problem(refused, 400, "validation_error")
    assert client_for(bob).get("/api/v1/players/bot-greedy-1/").status_code == 404


def test_practice_games_are_listed_apart_and_only_to_their_owner(alice: Any, bob: Any, commit: Any) -> None:
    practice_id = _create(client_for(alice), commit, bots=["greedy"]).json()["id"]
    real = start_two_player_game(alice, bob)
    listed = client_for(alice).get("/api/v1/games/").json()["results"]
    assert [game["id"] for game in listed] == [real.pk]
    practice = client_for(alice).get("/api/v1/games/?kind=practice").json()["results"]
    assert [game["id"] for game in practice] == [practice_id]
    assert client_for(bob).get("/api/v1/games/?kind=practice").json()["results"] == []
    assert client_for(bob).get(f"/api/v1/games/{practice_id}/").status_code == 404
    assert [game.pk for game in practice_selectors.practice_games(user=alice)] == [practice_id]


def test_my_games_and_the_profile_leave_practice_games_out(alice: Any, commit: Any) -> None:
    from games import player_selectors

    client = client_for(alice)
    game_id = _create(client, commit, bots=["random"]).json()["id"]
    mine = player_selectors.player_games(user=alice)
    assert not any(game.pk == game_id for group in mine.values() for game in group)
    _play_as_human_to_the_end(client, game_id, commit)
    profile = client.get("/api/v1/players/alice/").json()
    assert profile["games"]["base"] == {"played": 0, "won": 0}


def test_the_deadline_sweep_never_touches_a_practice_game(alice: Any, commit: Any) -> None:
    client = client_for(alice)
    game_id = _create(client, commit, bots=["greedy"]).json()["id"]
    version = Game.objects.get(pk=game_id).version
    assert services.game_time_out_overdue(now=timezone.now() + timedelta(days=400)) == 0
    assert Game.objects.get(pk=game_id).version == version


def test_a_practice_game_nobody_moves_in_expires(alice: Any, commit: Any, settings: Any) -> None:
    client = client_for(alice)
    game_id = _create(client, commit, bots=["greedy"]).json()["id"]
    later = timezone.now() + timedelta(days=settings.OPEN_GAME_EXPIRY_DAYS - 1)
    assert services.game_expire_open(now=later) == 0
    later = timezone.now() + timedelta(days=settings.OPEN_GAME_EXPIRY_DAYS + 1)
    assert services.game_expire_open(now=later) == 1
    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.ABORTED
    assert game.events.filter(kind="game_aborted").last().payload["reason"] == "expired"  # type: ignore[union-attr]


def test_a_practice_game_moved_in_lately_does_not_expire(alice: Any, commit: Any, settings: Any) -> None:
    client = client_for(alice)
    game_id = _create(client, commit, bots=["greedy"]).json()["id"]
    body = client.get(f"/api/v1/games/{game_id}/").json()
    moves = client.get(f"/api/v1/games/{game_id}/legal-moves/").json()["moves"]
    with commit():
        client.post(f"/api/v1/games/{game_id}/moves/", {"move": moves[0], "expected_version": body["version"]}, format="json")
    long_ago = timezone.now() - timedelta(days=settings.OPEN_GAME_EXPIRY_DAYS + 5)
    Game.objects.filter(pk=game_id).update(started_at=long_ago)
    assert services.game_expire_open() == 0
    assert Game.objects.get(pk=game_id).status == Game.Status.ACTIVE


def test_the_bots_task_is_safe_to_run_twice(alice: Any, commit: Any) -> None:
    client = client_for(alice)
    game_id = _create(client, commit, bots=["greedy"]).json()["id"]
    version = Game.objects.get(pk=game_id).version
    assert not BotTurn.objects.filter(game_id=game_id).exists()  # alice is to move: no bot's turn is due
    assert services.bot_turns_dispatch() is None
    assert play_bots.delay(game_id).get() is False
    assert Game.objects.get(pk=game_id).version == version


def test_a_lost_bot_turn_is_queued_again_by_the_beat(alice: Any, django_capture_on_commit_callbacks: Any) -> None:
    # The bot's task never ran (a broker that was down): the game waits on the bot.
    for _ in range(20):
        with django_capture_on_commit_callbacks(execute=False):
            game = services.practice_game_create(creator=alice, bots=["greedy"])
        if game.to_move != _human_seat(game).index:
            break
    else:
        pytest.skip("the seed put alice first every time")
    Game.objects.filter(pk=game.pk).update(started_at=timezone.now() - timedelta(minutes=5))
    BotTurn.objects.filter(game=game).update(due_at=timezone.now() - timedelta(minutes=5))
    assert services.bot_turns_requeue() == 1
    game.refresh_from_db()
    assert game.to_move == _human_seat(game).index


def test_a_practice_game_can_be_replayed_from_its_seed_and_moves(alice: Any, commit: Any) -> None:
    client = client_for(alice)
    game_id = _create(client, commit, bots=["random"]).json()["id"]
    final = _play_as_human_to_the_end(client, game_id, commit)
    export = client.get(f"/api/v1/games/{game_id}/export/").json()
    state = engine.replay("base", 2, int(export["seed"]), export["moves"])
    assert engine.outcome(state) is not None
    assert final["result"]["scores"] == [engine.score(state, seat) for seat in range(2)]
