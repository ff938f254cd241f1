"""My games: the logged-in player's games, whose turn it is, deadlines in their
time zone and a link that opens each game as their seat; nothing hidden."""

from __future__ import annotations

import html
import re
from typing import Any
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Player
from games import services
from games.links import seat_link_token
from games.models import Game, Seat
from tests.accounts.pages_helpers import logged_in_client, page_text
from tests.games.game_helpers import make_player, play_to_end, start_two_player_game, user_to_move


@pytest.fixture
def game(alice: Any, bob: Any, time_machine: Any) -> Game:
    time_machine.move_to("2026-03-01 12:00:00+00:00", tick=False)
    return start_two_player_game(alice, bob)


def row_of(answer: Any, game_id: str) -> str:
    content = answer.content.decode()
    match = re.search(rf'<tr data-game="{game_id}">(.*?)</tr>', content, re.DOTALL)
    assert match, content
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", match.group(1))))


def test_my_games_needs_a_login(db: None) -> None:
    answer = Client().get("/accounts/games/")
    assert answer.status_code == 302 and answer["Location"] == "/accounts/login/?next=/accounts/games/"


def test_a_player_without_games_is_told_so(alice: Any) -> None:
    assert "You have no games yet." in page_text(logged_in_client(alice).get("/accounts/games/"))


def test_my_games_says_whose_turn_it_is_to_each_player(game: Game, alice: Any, bob: Any) -> None:
    mover = user_to_move(game)
    waiter = bob if mover == alice else alice
    mover_name = Player.objects.get(user=mover).display_name

    movers_page = logged_in_client(mover).get("/accounts/games/")
    waiters_page = logged_in_client(waiter).get("/accounts/games/")

    assert "Your turn" in row_of(movers_page, game.pk)
    assert "Your turn" in page_text(movers_page).split("Waiting for others")[0]
    assert f"{mover_name}'s turn" in row_of(waiters_page, game.pk)
    assert "Waiting for others" in page_text(waiters_page)


def test_deadlines_are_shown_in_the_players_time_zone(game: Game, alice: Any) -> None:
    Player.objects.filter(user=alice).update(time_zone="Asia/Tokyo")
    game.refresh_from_db()
    assert game.deadline_at is not None
    expected = f"{game.deadline_at.astimezone(ZoneInfo('Asia/Tokyo')):%a %d %b %Y, %H:%M} (Asia/Tokyo)"

    answer = logged_in_client(alice).get("/accounts/games/")

    assert f"Deadline {expected}" in row_of(answer, game.pk)
    assert "Times are in your time zone, Asia/Tokyo" in page_text(answer)


def test_each_game_links_to_its_page_as_the_players_seat(game: Game, alice: Any, client: Client) -> None:
    answer = logged_in_client(alice).get("/accounts/games/")
    link = re.search(rf'href="(/games/{game.pk}/\?seat=[^"]+)"', answer.content.decode())
    assert link, answer.content.decode()

    opened = Client().get(link.group(1).replace("&amp;", "&"), follow=True)

    assert opened.status_code == 200
    assert Seat.objects.get(game=game, user=alice).link_key  # the link is the seat's own


def test_an_invitation_and_a_finished_game_are_listed_with_their_state(alice: Any, bob: Any, time_machine: Any) -> None:
    time_machine.move_to("2026-03-01 12:00:00+00:00", tick=False)
    carol = make_player("carol")
    invitation = services.game_create(creator=carol, variant="base", seats=2, invited=[alice])
    finished = start_two_player_game(alice, bob)
    play_to_end(finished)

    answer = logged_in_client(alice).get("/accounts/games/")

    assert "Carol invites you" in row_of(answer, invitation.pk)
    assert "Invitations" in page_text(answer)
    assert "Finished" in row_of(answer, finished.pk)


def test_my_games_shows_neither_the_seed_nor_another_seats_link(game: Game, alice: Any, bob: Any) -> None:
    game.refresh_from_db()
    content = logged_in_client(alice).get("/accounts/games/").content.decode()
    assert game.seed and game.seed not in content
    bobs_seat = Seat.objects.get(game=game, user=bob)
    assert urlencode({"seat": seat_link_token(seat=bobs_seat)}) not in content
    assert urlencode({"seat": seat_link_token(seat=Seat.objects.get(game=game, user=alice))}) in content


def test_the_bounce_warning_is_on_my_games(alice: Any) -> None:
    Player.objects.filter(user=alice).update(email_undeliverable_at=timezone.now())
    text = page_text(logged_in_client(alice).get("/accounts/games/"))
    assert "Mail to your address alice@example.com bounced" in text and "Change your address" in text
