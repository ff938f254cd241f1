"""A tournament round's start is pushed as it is emailed, to the players of the
round who have push (its email's headline, their game's title and page), under
the switch for being seated in a new game (``push_invitation``).

Personas: p1 meets p2 in round 1 and p3 has the bye (tests/tournaments/news_helpers.py)."""

from __future__ import annotations

import json
from typing import Any

from notifications.email.render import game_subject
from notifications.models import Preferences, PushMessage, PushSubscription
from tests.notifications.push.push_helpers import Browser, PushService
from tests.tournaments.conftest import rated_players
from tests.tournaments.news_helpers import game_of, tournament_started


def _subscribed(user: Any, push_service: PushService) -> Browser:
    browser = Browser()
    endpoint = push_service.endpoint(f"browser-{user.username}")
    PushSubscription.objects.create(user=user, endpoint=endpoint, **browser.subscription("x")["keys"])
    return browser


def _rounds(browser: Browser, push_service: PushService, name: str) -> list[dict[str, Any]]:
    mine = [r for r in push_service.received if r.path.endswith(f"/{name}")]
    pushed = [json.loads(browser.decrypt(r.body)) for r in mine]
    return [p for p in pushed if p["kind"] == "tournament_round"]


def test_a_rounds_start_is_pushed_to_its_players_with_their_game(
    db: None, commit: Any, push_service: PushService
) -> None:
    p1, p2, p3 = rated_players(3)
    with_game, with_bye = _subscribed(p2, push_service), _subscribed(p3, push_service)
    with commit():
        tournament = tournament_started([p1, p2, p3])
    game = game_of(tournament, 1, p2)
    (pushed,) = _rounds(with_game, push_service, "browser-p2")
    assert pushed["title"] == game_subject(game)
    assert pushed["body"] == "Round 1 of Winter Cup has started"
    assert pushed["url"] == f"/games/{game.pk}/"
    (bye,) = _rounds(with_bye, push_service, "browser-p3")
    assert bye["title"] == "Round 1 of Winter Cup has started" and bye["game_id"] is None
    assert tournament.seed not in json.dumps(pushed) + json.dumps(bye)


def test_the_invitation_switch_turns_the_rounds_push_off(db: None, commit: Any, push_service: PushService) -> None:
    p1, p2, p3 = rated_players(3)
    Preferences.objects.create(user=p2, push_invitation=False)
    browser = _subscribed(p2, push_service)
    with commit():
        tournament_started([p1, p2, p3])
    assert _rounds(browser, push_service, "browser-p2") == []
    assert not PushMessage.objects.filter(notification__kind="tournament_round").exists()
