"""The answers to emailed commands, and the emails of bot moves, forfeits and
game ends, in the recipient's language (``Player.language``): the help lists the
command words of their language beside the English ones, which every door
reads; moves are still written in the canonical notation."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.utils import translation

from accounts.models import Player
from core.errors import DomainError
from games import services
from games.models import Game, GameEvent, Seat
from notifications.email.tasks import consume_event
from notifications.inbound.replies import refusal_words
from notifications.models import InboundMessage, Notification
from tests.notifications.email_helpers import add_event, headline_of, headlines_to, html_of, mail_to, play, start_game
from tests.notifications.inbound.mail_helpers import answer, receive, reply_bytes

pytestmark = pytest.mark.usefixtures("clock")

Status = InboundMessage.Status


def speaks(user: Any, language: str) -> Any:
    Player.objects.filter(user=user).update(language=language)
    user.player.refresh_from_db()
    return user


def to_move(game: Game) -> Any:
    game.refresh_from_db()
    return Seat.objects.select_related("user", "user__player").get(game=game, index=game.to_move).user


def turn_email(user: Any) -> Any:
    return [m for m in mail_to(user) if m.reply_to][-1]


@pytest.fixture
def italian_game(alice: Any, bob: Any, commit: Any) -> Game:
    speaks(alice, "it")
    speaks(bob, "it")
    return start_game(commit, alice, bob)


@pytest.fixture
def latvian_game(alice: Any, bob: Any, commit: Any) -> Game:
    speaks(alice, "lv")
    speaks(bob, "lv")
    return start_game(commit, alice, bob)


def test_a_move_written_in_italian_is_confirmed_in_italian(italian_game: Game, commit: Any) -> None:
    player = to_move(italian_game)
    inbound = receive(commit, reply_bytes(turn_email(player), sender=player.email, body="prendi bianco blu verde"))
    assert inbound is not None and inbound.status == Status.APPLIED, inbound and inbound.outcome
    done = answer(player, "reply_done")
    assert done.subject == f"Re: Splendor — partita {italian_game.pk}"
    assert headline_of(done) == f"Hai giocato prendi bianco, blu e verde nella partita {italian_game.pk}"
    assert f"La tua mossa prendi bianco, blu e verde è stata giocata nella partita {italian_game.pk}." in done.body
    assert "Ciao " in done.body and "Hello" not in done.body and "is played" not in done.body


def test_the_help_in_latvian_names_the_latvian_command_words_beside_the_english_ones(
    latvian_game: Game, commit: Any
) -> None:
    player = to_move(latvian_game)
    receive(commit, reply_bytes(turn_email(player), sender=player.email, body="palīdzība"))
    help_email = answer(player, "reply_board")
    for words in ("gājieni, moves", "palīdzība, help", "ņem baltu zilu zaļu", "rezervē kaudzīti 3", "apstiprini KODS"):
        assert words in help_email.body, words
    assert "Reply to a game's email" not in help_email.body
    assert "apstiprini KODS" in html_of(help_email)


def test_the_help_in_italian_names_the_italian_command_words(italian_game: Game, commit: Any) -> None:
    player = to_move(italian_game)
    receive(commit, reply_bytes(turn_email(player), sender=player.email, body="aiuto"))
    help_email = answer(player, "reply_board")
    for words in ("mosse, moves", "aiuto, help", "prendi bianco blu verde", "riserva mazzo 3", "abbandona, resign"):
        assert words in help_email.body, words


def test_a_refused_move_is_answered_in_latvian_with_the_rule_id(latvian_game: Game, commit: Any) -> None:
    player = to_move(latvian_game)
    receive(commit, reply_bytes(turn_email(player), sender=player.email, body="ņem 4 sarkanus"))
    refused = answer(player, "reply_refused")
    assert "Tavā e-pastā bija: ņem 4 sarkanus" in refused.body
    assert "To nevarēja izdarīt." in refused.body and "(noteikums B-TAKE-" in refused.body
    assert "That could not be done" not in refused.body and "Hello" not in refused.body


def test_a_resignation_asked_by_email_is_confirmed_in_italian(italian_game: Game, commit: Any) -> None:
    player = to_move(italian_game)
    receive(commit, reply_bytes(turn_email(player), sender=player.email, body="abbandona"))
    ask = answer(player, "reply_confirm")
    assert f"Hai chiesto di abbandonare la partita {italian_game.pk}." in ask.body
    assert "Per procedere, rispondi con questa riga:" in ask.body
    assert "\n  confirm " in ask.body  # the command word every door reads


def test_the_refusals_of_the_email_door_are_written_in_the_readers_language(italian_game: Game) -> None:
    class Stale(DomainError):
        code = "stale_version"

    class NotActive(DomainError):
        code = "game_not_active"

    with translation.override("lv"):
        assert refusal_words(Stale("x"), italian_game).startswith("Kopš e-pasta, uz kuru atbildēji")
    with translation.override("it"):
        over = refusal_words(NotActive("x", game_status=Game.Status.FINISHED), italian_game)
    assert over == "Questa partita è finita: non si può più giocare."


# --- the bot, forfeits and the end of a game ----------------------------------------------


def test_a_bot_move_on_a_latvian_players_seat_is_told_in_latvian_with_the_timeouts_counted(
    latvian_game: Game, commit: Any
) -> None:
    sleeper = to_move(latvian_game)
    add_event(
        latvian_game,
        "turn_timed_out",
        {"seat": latvian_game.to_move, "user_id": sleeper.pk, "consecutive": 1, "forfeit_after": 3},
    )
    play(commit, latvian_game, "take WUG")  # stands in for the bot's move
    move = GameEvent.objects.filter(game=latvian_game, kind="move_played").get()
    move.payload = {**move.payload, "played_by": "bot", "bot_reason": "timeout"}
    move.save()
    move.claims.all().delete()
    Notification.objects.filter(event=move).delete()
    mail.outbox.clear()
    with commit():
        consume_event(move.pk)
    [told] = mail_to(sleeper)
    assert told.subject == f"Splendor — spēle {latvian_game.pk}"
    assert headline_of(told) == f"Spēlē {latvian_game.pk} beidzās laiks: gājiens tika izdarīts tavā vietā"
    assert "tāpēc iebūvētais bots izdarīja gājienu tavā vietā: ņem baltu, zilu un zaļu" in told.body
    assert "Tas ir 1 nokavēts termiņš pēc kārtas; pēc 3 tu zaudē sēdvietu" in told.body
    [next_turn] = [m for m in mail.outbox if m.to != told.to]
    assert "Iebūvētais bots spēlētāja" in next_turn.body and "(beidzās laiks) izdarīja gājienu: ņem baltu, zilu un zaļu" in next_turn.body


def test_a_forfeit_is_told_in_italian_to_both_players(italian_game: Game, commit: Any, alice: Any, bob: Any) -> None:
    gone = Seat.objects.select_related("user").get(game=italian_game, index=0).user
    other = bob if gone == alice else alice
    mail.outbox.clear()
    event = add_event(italian_game, "seat_resigned", {"seat": 0, "user_id": gone.pk, "reason": "timeout"})
    with commit():
        consume_event(event.pk)
    assert headlines_to(gone) == [f"Hai perso a tavolino la partita {italian_game.pk} per il tempo"]
    assert headlines_to(other) == [
        f"{gone.player.display_name} ha perso a tavolino la partita {italian_game.pk} per il tempo"
    ]
    assert "Hai saltato troppe mosse di fila" in mail_to(gone)[0].body


@pytest.mark.parametrize(
    ("language", "won", "lost", "standing", "seed_words"),
    [
        ("it", "è finita: hai vinto", "è finita", "1. Alice: 0 punti", "Le carte sono state mescolate dal seme"),
        ("lv", "ir beigusies: tu uzvarēji", "ir beigusies", "1. Alice: 0 punktu", "Kārtis tika sajauktas no sēklas"),
    ],
)
def test_the_end_of_a_game_is_told_in_each_players_language(
    language: str, won: str, lost: str, standing: str, seed_words: str, alice: Any, bob: Any, commit: Any
) -> None:
    speaks(alice, language)
    speaks(bob, language)
    game = start_game(commit, alice, bob)
    mail.outbox.clear()
    with commit():
        services.game_resign(game=game, user=bob)
    game.refresh_from_db()
    assert headlines_to(alice)[0].endswith(won) and headlines_to(bob)[0].endswith(lost)
    body = mail_to(bob)[0].body
    assert standing in body and seed_words in body
    assert f"printf %s {game.seed} | sha256sum" in body  # the commands are not translated
    assert "Final standings" not in body and "is over" not in body


def test_a_strangers_reply_is_told_to_the_seats_owner_in_latvian(latvian_game: Game, commit: Any) -> None:
    player = to_move(latvian_game)
    inbound = receive(commit, reply_bytes(turn_email(player), sender="eve@evil.example", body="take WUG"))
    assert inbound is not None and inbound.status == Status.DROPPED
    [warning] = [m for m in mail_to(player) if headline_of(m).startswith("Kāds mēģināja spēlēt tavā vietā")]
    assert headline_of(warning) == f"Kāds mēģināja spēlēt tavā vietā spēlē {latvian_game.pk}"
    assert "kas nav tava konta adrese. Gājiens netika izdarīts" in warning.body
    assert "<strong>Gājiens netika izdarīts</strong>" in html_of(warning)
    assert "The move was not played" not in warning.body


def test_an_email_with_no_command_is_answered_in_italian_with_the_italian_command_words(
    italian_game: Game, commit: Any
) -> None:
    player = to_move(italian_game)
    inbound = receive(commit, reply_bytes(turn_email(player), sender=player.email, body="Grazie, ci penso."))
    assert inbound is not None and inbound.status == Status.REFUSED
    refused = answer(player, "reply_refused")
    assert "Nella tua email non c'è nessun comando." in refused.body
    assert "«prendi bianco blu verde», oppure tabellone, mosse, abbandona, vacanza <giorni> o aiuto" in refused.body
    assert "No command found" not in refused.body
