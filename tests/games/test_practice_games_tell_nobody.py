"""Practice games and sandboxes are nobody's news: every consumer of the outbox
leaves them alone (no email, webhook, reminder, digest or rating), though their
events are written as any game's are.

alice plays them and has an endpoint, a reminder hour and the digest; bob is her
opponent in the real game a sandbox is made from.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from tests.games.game_helpers import client_for, play_to_end, start_two_player_game

from games import services
from games.models import Game, GameEvent, GameEventClaim
from notifications.models import Reminder
from notifications.reminders.services import games_waiting_on
from webhooks.models import Delivery, Endpoint



@pytest.fixture
def listening(alice: Any, settings: Any) -> Endpoint:
    settings.WEBHOOKS_ALLOW_LOOPBACK = True
    return Endpoint.objects.create(owner=alice, url="http://127.0.0.1:9/hook")


def _play_a_few(client: Any, game_id: str, commit: Any, turns: int = 3) -> None:
    for _ in range(turns):
        body = client.get(f"/api/v1/games/{game_id}/").json()
        if body["status"] != "active":
            return
        legal = client.get(f"/api/v1/games/{game_id}/legal-moves/").json()["moves"]
        with commit():
            client.post(f"/api/v1/games/{game_id}/moves/", {"move": legal[0], "expected_version": body["version"]}, format="json")


def _practice(alice: Any, commit: Any) -> str:
    with commit():
        answer = client_for(alice).post("/api/v1/games/", {"bots": ["greedy"]}, format="json")
    return str(answer.json()["id"])


def _sandbox(alice: Any, bob: Any, commit: Any) -> str:
    game = start_two_player_game(alice, bob)
    with commit():
        answer = client_for(alice).post(f"/api/v1/games/{game.pk}/sandbox/", {"bots": ["greedy"]}, format="json")
    return str(answer.json()["id"])


@pytest.fixture(params=["practice", "sandbox"])
def quiet_game(request: pytest.FixtureRequest, alice: Any, bob: Any, commit: Any, listening: Endpoint) -> str:
    mail.outbox.clear()
    return _practice(alice, commit) if request.param == "practice" else _sandbox(alice, bob, commit)


def test_its_events_are_written_and_claimed_by_every_consumer(quiet_game: str, alice: Any, commit: Any) -> None:
    _play_a_few(client_for(alice), quiet_game, commit)
    events = GameEvent.objects.filter(game_id=quiet_game)
    assert events.filter(kind="move_played").exists()
    assert GameEventClaim.objects.filter(event__game_id=quiet_game, done_at__isnull=False).exists()


def test_it_sends_no_email(quiet_game: str, alice: Any, commit: Any) -> None:
    _play_a_few(client_for(alice), quiet_game, commit)
    assert [m for m in mail.outbox if quiet_game in m.subject + m.body] == []


def test_it_posts_no_webhook(quiet_game: str, alice: Any, commit: Any) -> None:
    _play_a_few(client_for(alice), quiet_game, commit)
    assert not Delivery.objects.filter(event__game_id=quiet_game).exists()


def test_it_schedules_no_reminder_and_waits_in_no_digest(quiet_game: str, alice: Any, commit: Any) -> None:
    _play_a_few(client_for(alice), quiet_game, commit)
    assert Game.objects.get(pk=quiet_game).deadline_at is None
    assert not Reminder.objects.filter(game_id=quiet_game).exists()
    assert quiet_game not in {game.pk for game in games_waiting_on(user_id=alice.pk)}


def test_it_counts_in_no_rating(alice: Any, commit: Any) -> None:
    from leagues.models import PlayerRating
    from leagues.services import ratings_apply_game

    game_id = _practice(alice, commit)
    # Even marked rated behind the services' back, a practice game rates nobody.
    Game.objects.filter(pk=game_id).update(rated=True)
    game = Game.objects.get(pk=game_id)
    with commit():
        play_to_end(game)
    assert not ratings_apply_game(game_id=game_id)
    assert not PlayerRating.objects.filter(user=alice).exists()


def test_a_real_game_still_tells_its_players(alice: Any, bob: Any, commit: Any, listening: Endpoint) -> None:
    with commit():
        game = start_two_player_game(alice, bob)
        services.game_resign(game=game, user=bob)
    assert Delivery.objects.filter(event__game=game).exists()
    assert [m for m in mail.outbox if game.pk in m.subject + m.body]
