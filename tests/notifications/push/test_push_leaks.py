"""No push names a hidden card or carries a token: a blind reservation is "reserve
from deck 1" in the reader's language, and neither the payload nor the request
around it holds a seat's link, an API token, the seed or a card of the decks.
Pushes are written as in the email channel (its clock, its helpers)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import engine
from accounts.models import ApiToken
from games import links, services
from games.models import Game, Move, Seat
from notifications.models import PushSubscription
from tests.notifications.email_helpers import start_game, user_to_move
from tests.notifications.push.push_helpers import Browser, PushService

pytestmark = pytest.mark.django_db

CARD_ID = re.compile(r"(?<![\w-])([123]-\d\d)(?![\w])")
IN_WORDS = {"en": "reserve from deck 1", "it": "riserva dal mazzo 1", "lv": "rezervē no kaudzītes 1"}


def _subscribe(user: Any, browser: Browser, endpoint: str) -> None:
    PushSubscription.objects.create(
        user=user, endpoint=endpoint, **browser.subscription(endpoint)["keys"]
    )


@pytest.mark.parametrize("language", ["en", "it", "lv"])
def test_a_blind_reservation_is_pushed_as_the_deck_never_the_card_nor_any_token(
    alice: Any, bob: Any, commit: Any, push_service: PushService, language: str
) -> None:
    for user in (alice, bob):
        user.player.language = language
        user.player.save(update_fields=["language"])
    game = start_game(commit, alice, bob)
    reserver = user_to_move(game)
    other = bob if reserver == alice else alice
    browsers = {reserver.pk: Browser(), other.pk: Browser()}
    _subscribe(other, browsers[other.pk], push_service.endpoint("other"))
    _subscribe(reserver, browsers[reserver.pk], push_service.endpoint("reserver"))
    push_service.received.clear()

    with commit():
        services.move_submit(game_id=game.pk, user=reserver, text="reserve deck1", expected_version=game.version)

    game.refresh_from_db()
    card = Move.objects.get(game=game, ply=0).private_card
    assert card
    [request] = push_service.received
    assert request.path.endswith("/other")
    payload = json.loads(browsers[other.pk].decrypt(request.body))
    assert IN_WORDS[language] in payload["body"]
    everything = json.dumps(payload, ensure_ascii=False) + request.path + json.dumps(request.headers)
    state = engine.from_dict(game.state)
    hidden = {cid for deck in state.decks for cid in deck} | {card}
    assert not hidden.intersection(CARD_ID.findall(everything))
    assert game.seed not in everything
    for seat in Seat.objects.filter(game=game):
        assert links.seat_link_token(seat=seat) not in everything
    assert "?" not in payload["url"] and payload["url"] == f"/games/{game.pk}/"
    assert not any(token.prefix in everything for token in ApiToken.objects.all())
