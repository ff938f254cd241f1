"""An account has at most PRACTICE_GAMES_ACTIVE_PER_ACCOUNT practice games and
sandboxes in play at once: one more is refused (409 ``too_many_practice_games``,
saying how many are in play and how to end one) until one of them ends, through
the API, the practice page and "Try this position" alike.

alice plays against the bots up to the limit; bob is her opponent in the real games
her sandboxes come from, and makes practice games of his own, which never count
against hers.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection
from tests.accounts.pages_helpers import logged_in_client, page_text
from tests.games.game_helpers import client_for, make_player, start_two_player_game
from tests.games.test_games_api import assert_problem

from accounts.models import Player
from games import services
from games.errors import TooManyPracticeGames
from games.models import Game

LIMIT = 3
PRACTICE = "/accounts/games/practice/"


@pytest.fixture(autouse=True)
def _limit(settings: Any) -> None:
    settings.PRACTICE_GAMES_ACTIVE_PER_ACCOUNT = LIMIT


def _practice_games_of(user: Any, count: int, commit: Any) -> list[Game]:
    with commit():
        return [services.practice_game_create(creator=user, bots=["greedy"]) for _ in range(count)]


def _active_of(user: Any) -> int:
    return Game.objects.filter(created_by=user, status=Game.Status.ACTIVE).exclude(kind=Game.Kind.REAL).count()


@pytest.mark.django_db
def test_one_practice_game_past_the_limit_is_refused_saying_how_many_are_in_play_and_how_to_end_one(
    alice: Any, commit: Any
) -> None:
    _practice_games_of(alice, LIMIT, commit)
    assert _active_of(alice) == LIMIT

    with commit():
        answer = client_for(alice).post("/api/v1/games/", {"bots": ["greedy"]}, format="json")

    body = assert_problem(answer, 409, "too_many_practice_games")
    assert body["practice_games_active"] == LIMIT and body["practice_games_limit"] == LIMIT
    assert "You have 3 practice games and sandboxes in play" in body["detail"]
    assert "resign one of them" in body["detail"]
    assert body["type"].endswith("/problems/too_many_practice_games/")
    assert _active_of(alice) == LIMIT


@pytest.mark.django_db
def test_a_sandbox_counts_towards_the_limit_and_is_refused_past_it(alice: Any, bob: Any, commit: Any) -> None:
    real = start_two_player_game(alice, bob)
    _practice_games_of(alice, LIMIT - 1, commit)
    client = client_for(alice)
    with commit():
        assert client.post(f"/api/v1/games/{real.pk}/sandbox/", {}, format="json").status_code == 201
    assert _active_of(alice) == LIMIT

    with commit():
        answer = client.post(f"/api/v1/games/{real.pk}/sandbox/", {}, format="json")

    assert_problem(answer, 409, "too_many_practice_games")
    with commit():
        refused = client.post("/api/v1/games/", {"bots": ["random"]}, format="json")
    assert_problem(refused, 409, "too_many_practice_games")
    assert _active_of(alice) == LIMIT


@pytest.mark.django_db
def test_resigning_one_makes_room_for_the_next(alice: Any, commit: Any) -> None:
    games = _practice_games_of(alice, LIMIT, commit)
    with pytest.raises(TooManyPracticeGames):
        _practice_games_of(alice, 1, commit)

    with commit():
        services.game_resign(game=games[0], user=alice)

    assert _practice_games_of(alice, 1, commit)[0].status == Game.Status.ACTIVE
    assert _active_of(alice) == LIMIT


@pytest.mark.django_db
def test_another_accounts_practice_games_and_real_games_do_not_count(alice: Any, bob: Any, commit: Any) -> None:
    _practice_games_of(alice, LIMIT, commit)
    for _ in range(LIMIT):
        start_two_player_game(bob, alice)

    assert len(_practice_games_of(bob, LIMIT, commit)) == LIMIT
    assert _active_of(bob) == LIMIT


@pytest.mark.django_db
def test_the_practice_page_shows_the_refusal_in_the_players_words(alice: Any, commit: Any) -> None:
    _practice_games_of(alice, LIMIT, commit)
    browser = logged_in_client(alice)

    answer = browser.post(PRACTICE, {"variant": "base", "bot_1": "greedy"})

    assert answer.status_code == 200
    assert '<div role="alert">' in answer.content.decode()
    assert "You have 3 practice games and sandboxes in play, and an account may have 3 at once" in page_text(answer)
    assert "You can have 3 practice games and sandboxes in play at once" in page_text(answer)
    Player.objects.filter(user=alice).update(language="it")
    italian = logged_in_client(alice).post(PRACTICE, {"variant": "base", "bot_1": "greedy"}, HTTP_ACCEPT_LANGUAGE="it")
    assert "Hai 3 partite di allenamento e sandbox in corso" in page_text(italian)
    assert _active_of(alice) == LIMIT


@pytest.mark.django_db
def test_try_this_position_shows_the_refusal_on_the_games_page(alice: Any, bob: Any, commit: Any) -> None:
    real = start_two_player_game(alice, bob)
    _practice_games_of(alice, LIMIT, commit)

    answer = logged_in_client(alice).post(f"/games/{real.pk}/sandbox/", {"bot": ""})

    assert answer.status_code == 409
    assert "No sandbox made:" in page_text(answer)
    assert "You have 3 practice games and sandboxes in play" in page_text(answer)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_on_postgresql_creations_at_once_never_pass_the_limit_together() -> None:
    alice = make_player("alice")
    services.practice_game_create(creator=alice, bots=["random"])  # the bots' accounts exist before the race
    threads = 6
    barrier = threading.Barrier(threads)
    outcomes: list[str] = [""] * threads

    def create(index: int) -> None:
        try:
            barrier.wait(timeout=30)
            services.practice_game_create(creator=alice, bots=["random"])
            outcomes[index] = "created"
        except TooManyPracticeGames:
            outcomes[index] = "refused"
        finally:
            connection.close()

    workers = [threading.Thread(target=create, args=(index,)) for index in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)

    assert sorted(outcomes) == ["created"] * (LIMIT - 1) + ["refused"] * (threads - LIMIT + 1)
    assert _active_of(alice) == LIMIT
