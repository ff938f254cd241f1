"""The HTML email a player receives, drawn in a real browser and kept as a
screenshot: the turn email with its board (base and Marvel), the game-over
email with the last board, the ones that say
why the bot played a seat, and a league admin's suspension. Each is checked for
the words that matter and for what must not be in it.

Personas: alice and bob play; dave takes a third seat so that a blind
reservation has someone to be hidden from; mo moderates and hands bob's seat to
the bot; mallory administers the league that suspends alice.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail

from games import moderation, services
from games.models import Game, Move, Seat
from games.presentation import board_context
from leagues import services as league_services
from leagues.models import League, Membership
from tests.leak_helpers import card_ids_in
from tests.games.board_helpers import play, started_game
from tests.games.game_helpers import make_player, play_moves, play_to_end
from tests.notifications.email_helpers import headline_of

pytestmark = pytest.mark.django_db


def html_of(message: Any) -> str:
    return next(content for content, mime in message.alternatives if mime == "text/html")


def shown(new_page: Any, screenshot: Any, message: Any, name: str, *, width: int = 700) -> str:
    page = new_page(viewport={"width": width, "height": 900})
    page.set_content(html_of(message))
    screenshot(page, name)
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "nothing overflows to the side"
    return str(page.locator("body").inner_text())


@pytest.mark.parametrize("variant", ["base", "marvel"])
def test_the_turn_email_draws_the_board_as_the_table_looks(
    new_page: Any, screenshot: Any, django_capture_on_commit_callbacks: Any, variant: str
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        game = started_game(variant, 3)
        play(game, "reserve deck1")
        play_moves(game, 8)
    reserver = Move.objects.get(game=game, ply=0)
    hidden = reserver.private_card
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        play_moves(game, 1)  # a tenth move: the next seat gets its turn email
    game.refresh_from_db()
    to_move = Seat.objects.get(game=game, index=game.to_move)
    turn = next(m for m in mail.outbox if to_move.user.email in m.to and headline_of(m).startswith("Your turn"))
    text = shown(new_page, screenshot, turn, f"email-your-turn-{variant}", width=600)  # a mail client's width
    assert "round 4 · 10 moves played" in text and "It is your turn: move 11." in text
    assert "\n6. " in text and "\n10. " in text and "\n11. " not in text  # the last five moves, counted from 1
    assert "Level 3" in text and "Bank" in text and "Reserved" in text
    own_view = board_context(game=game, seat_index=reserver.seat)["players"][reserver.seat]
    still_held = any(card.get("id") == hidden for card in own_view["reserved"])
    if to_move.index != reserver.seat and still_held:  # once bought, the card is public
        assert "a level 1 card, reserved face down" in text and hidden not in card_ids_in(html_of(turn) + turn.body)
    assert game.seed not in html_of(turn) + turn.body
    if variant == "marvel":
        assert "Time Stone" in text and "Gauntlet:" in text


def test_the_game_over_email_draws_the_last_board_with_the_places(
    new_page: Any, screenshot: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        game = started_game("base", 2)
        play_to_end(game)
    game.refresh_from_db()
    played = Move.objects.filter(game=game).count()
    alice = Seat.objects.get(game=game, user__username="alice").user
    over = next(m for m in mail.outbox if alice.email in m.to and headline_of(m).startswith(f"Game {game.pk} is over"))
    text = shown(new_page, screenshot, over, "email-game-over", width=600)
    assert f"Finished · {played} moves played" in text and "Game over:" in text and "place 1" in text
    assert f"\n{played}. " in text and "to play move" not in text


def test_the_emails_after_a_seat_is_handed_to_the_bot_say_so(
    new_page: Any, screenshot: Any, django_capture_on_commit_callbacks: Any
) -> None:
    alice, bob, mo = make_player("alice"), make_player("bob"), make_player("mo")
    with django_capture_on_commit_callbacks(execute=True):
        game = services.game_create(creator=alice, seats=2, invited=[bob])
        services.seat_join(game=game, user=bob)
    game.refresh_from_db()
    handed = Seat.objects.get(game=game, index=game.to_move)
    other = alice if handed.user == bob else bob
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        moderation.moderation_seat_replace(
            game_id=game.pk, seat_index=handed.index or 0, by_user=mo, reason="Abandoned", bot=True
        )
    turn = next(m for m in mail.outbox if other.email in m.to and headline_of(m).startswith("Your turn"))
    text = shown(new_page, screenshot, turn, "email-your-turn-after-bot")
    assert "(a moderator handed the seat to the bot)" in text and "time ran out" not in text
    assert "played by the bot" in text and "(played by the bot)" in text  # the seat, and its last move
    bot = next(m for m in mail.outbox if handed.user.email in m.to and "bot" in headline_of(m).lower())
    text = shown(new_page, screenshot, bot, "email-bot-played-for-a-handed-seat")
    assert "A moderator handed your seat" in text and "ran out" not in text
    assert Game.objects.get(pk=game.pk).seed not in html_of(bot) + html_of(turn)


def test_the_email_of_a_suspension_from_a_league_names_the_league(
    new_page: Any, screenshot: Any, django_capture_on_commit_callbacks: Any
) -> None:
    alice, mallory = make_player("alice"), make_player("mallory")
    league = League.objects.create(name="Tuesday league")
    membership = Membership.objects.create(
        league=league, user=alice, status=Membership.Status.ACTIVE, requested_at=league.created_at
    )
    with django_capture_on_commit_callbacks(execute=True):
        league_services.member_suspend(membership_id=membership.pk, by=mallory, reason="Insulted opponents")
    notice = next(m for m in mail.outbox if alice.email in m.to)
    assert notice.subject == "You are suspended from Tuesday league"
    text = shown(new_page, screenshot, notice, "email-league-suspension")
    assert "An admin of the league Tuesday league suspended you from it" in text
    assert "Insulted opponents" in text and "not affected" in text


@pytest.mark.parametrize(
    ("language", "headline", "words"),
    [
        ("it", "Tocca a te nella partita", ("Tocca a te: mossa 11.", "Livello 1")),
        ("lv", "Tavs gājiens spēlē", ("Tavs gājiens: 11. gājiens.", "1. līmenis")),
    ],
)
def test_the_turn_email_is_drawn_in_the_players_language(
    new_page: Any, screenshot: Any, django_capture_on_commit_callbacks: Any, language: str, headline: str,
    words: tuple[str, ...],
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        game = started_game("base", 3)
        for seat in Seat.objects.filter(game=game).select_related("user__player"):
            seat.user.player.language = language
            seat.user.player.save(update_fields=["language"])
        play_moves(game, 9)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        play_moves(game, 1)
    game.refresh_from_db()
    to_move = Seat.objects.get(game=game, index=game.to_move)
    turn = next(m for m in mail.outbox if to_move.user.email in m.to and headline_of(m).startswith(headline))
    text = shown(new_page, screenshot, turn, f"email-your-turn-base-{language}", width=600)
    for expected in words:
        assert expected in text, (language, expected)
    assert "Your turn" not in text and "It is your turn" not in text
