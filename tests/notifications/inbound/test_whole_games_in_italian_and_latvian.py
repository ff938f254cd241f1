"""A whole game played by email in Italian, and another in Latvian: each player
writes their moves in their own language's words (engine.grammar), with a
courtesy word now and then, and every email each receives (turn emails, the
confirmations of their moves, the game-over email) is in their language."""

from __future__ import annotations

import re
from typing import Any

import engine
import pytest
from django.core import mail

from games.models import Game, Move
from notifications.models import InboundMessage
from tests.factories import seat_to_move
from tests.notifications.email_helpers import headline_of, start_game
from tests.notifications.inbound.mail_helpers import latest, receive, reply_bytes

pytestmark = pytest.mark.django_db

# How a player of each language writes each part of a move (docs/glossary-*.md).
WORDS = {
    "it": {
        "take": "prendi", "reserve": "riserva", "buy": "compra", "pass": "passa", "deck": "mazzo",
        "return": "restituisci", "noble": "nobile", "thanks": "grazie",
        "colours": {"W": "bianco", "U": "blu", "G": "verde", "R": "rosso", "K": "nero", "J": "oro"},
    },
    "lv": {
        "take": "ņem", "reserve": "rezervē", "buy": "pērc", "pass": "izlaid", "deck": "kaudzīte",
        "return": "atdod", "noble": "dižciltīgais", "thanks": "paldies",
        "colours": {"W": "baltu", "U": "zilu", "G": "zaļu", "R": "sarkanu", "K": "melnu", "J": "zeltu"},
    },
}
# Words of each language's emails, and English ones none of them may still hold.
TURN_SUBJECT = {"it": "Tocca a te nella partita", "lv": "Tavs gājiens spēlē"}
OVER_SUBJECT = {"it": "è finita", "lv": "ir beigusies"}
ENGLISH = ("Your turn", "Hello", "Played ", "is over", "Some moves you could play")


def in_words(text: str, language: str) -> str:
    """A canonical move as a player of ``language`` writes it."""
    words = WORDS[language]
    colours: dict[str, str] = words["colours"]  # type: ignore[assignment]
    out: list[str] = []
    parts = text.split()
    i = 0
    while i < len(parts):
        part = parts[i]
        if part in ("take", "return"):
            out.append(str(words[part]))
            out.extend(colours[letter] for letter in parts[i + 1])
            i += 2
            continue
        if part in ("reserve", "buy", "pass", "noble"):
            out.append(str(words[part]))
        elif re.fullmatch(r"deck[1-3]", part):
            out.extend([str(words["deck"]), part[-1]])
        else:
            out.append(part)  # a card id, a J: payment, a noble's id: the same in every language
        i += 1
    return " ".join(out)


@pytest.mark.slow
@pytest.mark.parametrize("language", ["it", "lv"])
def test_a_whole_game_is_played_by_email_in_the_players_language(
    clock: Any, commit: Any, alice: Any, bob: Any, settings: Any, game_extensions: Any, language: str
) -> None:
    game_extensions.hearing("email")
    for player in (alice, bob):
        player.player.language = language
        player.player.save(update_fields=["language"])
    game = start_game(commit, alice, bob)
    replies = 0
    while game.status == Game.Status.ACTIVE:
        player = seat_to_move(game).user
        turn_email = latest(player, TURN_SUBJECT[language])
        state = engine.from_dict(game.state)
        moves = [engine.format_move(move) for move in engine.legal_moves(state)]
        # Buys and reservations first, so the game ends; every fifth with a word of thanks.
        chosen = next((m for m in moves if m.startswith("buy")), None) or next(
            (m for m in moves if m.startswith("reserve") and "deck" not in m), moves[0]
        )
        if replies % 3 == 2:
            chosen = next((m for m in moves if m.startswith("reserve deck")), chosen)
        written = in_words(chosen, language) + (f" {WORDS[language]['thanks']}" if replies % 5 == 4 else "")
        inbound = receive(commit, reply_bytes(turn_email, sender=player.email, body=written))
        assert inbound is not None and inbound.status == InboundMessage.Status.APPLIED, (written, inbound and inbound.outcome)
        replies += 1
        game.refresh_from_db()
        assert Move.objects.filter(game=game).order_by("-ply").first().text == chosen  # type: ignore[union-attr]
        assert replies < 400, "the game did not end"
    assert game.status == Game.Status.FINISHED
    for player in (alice, bob):
        assert latest(player, "") and any(OVER_SUBJECT[language] in headline_of(m) for m in mail.outbox if player.email in m.to)
        theirs = [message for message in mail.outbox if player.email in message.to]
        assert len(theirs) > 10
        for message in theirs:
            for english in ENGLISH:
                assert english not in message.subject and english not in message.body, (english, message.subject)
