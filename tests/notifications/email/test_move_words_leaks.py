"""Moves in words never name another seat's blind reservation: a reservation from
a deck, chosen by the player or by the built-in bot on a missed deadline, is
"reserve from deck 1" ("riserva dal mazzo 1", "rezervē no kaudzītes 1") for
everyone but the reserver, on the game page (the last moves and the move
buttons), the replay, and every email, in English, Italian and Latvian."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.test import Client
from tests.notifications.email_helpers import headline_of, mail_to, start_game, user_to_move

import engine
from engine.variants import get_variant
from engine.words import move_words
from games import links, services
from games.models import Game, Move, Seat

# A card id standing alone, so that dates like 2026-11-07 do not count as "1-07".
CARD_ID = re.compile(r"(?<![\w-])([123]-\d\d)(?![\w])")


def _page(client: Client, seat: Seat) -> str:
    url = links.seat_link_url(seat=seat)
    return client.get(url[url.index("/games/"):], follow=True).content.decode()


def _shown_to(user: Any, game: Game) -> str:
    """Everything a player is shown: their page, the replay, and every email to them."""
    seat = Seat.objects.get(game=game, user=user)
    client = Client()
    page = _page(client, seat)
    replay = client.get(f"/games/{game.pk}/replay/?ply=1").content.decode()
    emails = [m.body + next(c for c, mime in m.alternatives if mime == "text/html") for m in mail_to(user)]
    return "\n".join([page, replay, *emails])


@pytest.mark.parametrize("language", ["en", "it", "lv"])
@pytest.mark.parametrize("by", ["player", "bot"])
def test_a_blind_reservation_in_words_names_the_deck_and_never_the_card(
    alice: Any, bob: Any, commit: Any, clock: Any, settings: Any, monkeypatch: Any, language: str, by: str
) -> None:
    settings.VACATION_DAYS_PER_YEAR = 0
    for user in (alice, bob):
        user.player.language = language
        user.player.save(update_fields=["language"])
    game = start_game(commit, alice, bob)
    reserver = user_to_move(game)
    other = bob if reserver == alice else alice
    mail.outbox.clear()
    if by == "player":
        with commit():
            services.move_submit(game_id=game.pk, user=reserver, text="reserve deck1", expected_version=game.version)
    else:
        # The built-in bot, on the missed deadline, reserves from a deck.
        monkeypatch.setattr("games.services.turns.bot_choose", lambda *args, **kwargs: "reserve deck1")
        clock.move_to(game.deadline_at + timedelta(seconds=1))
        with commit():
            assert services.game_time_out(game_id=game.pk)
    game.refresh_from_db()
    card = Move.objects.get(game=game, ply=0).private_card
    assert card and Move.objects.get(game=game, ply=0).text == "reserve deck1"
    in_words = move_words("reserve deck1", get_variant("base"), language)
    assert in_words == {"en": "reserve from deck 1", "it": "riserva dal mazzo 1", "lv": "rezervē no kaudzītes 1"}[language]

    seen = _shown_to(other, game)
    assert mail_to(other), "the other player was told it is their turn"
    assert in_words in headline_of(mail_to(other)[-1]) and in_words in seen
    assert card not in CARD_ID.findall(seen)
    # The other player's move buttons name no hidden card either: only market cards and decks.
    state = engine.from_dict(game.state)
    hidden = {cid for deck in state.decks for cid in deck} | {card}
    assert not hidden.intersection(CARD_ID.findall(seen))
    # The reserver is shown their own card (and the move in words).
    assert card in CARD_ID.findall(_shown_to(reserver, game))
