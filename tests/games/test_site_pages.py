"""The site around the game: `/` for a visitor and for a player, My games in the
order a player works through it (the games waiting for them first, soonest
deadline first, with a button to the most urgent), invitations answered from My
games, and the list of open public games to join."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games import services
from games.models import Game, Seat
from tests.accounts.pages_helpers import logged_in_client, page_text
from tests.games.game_helpers import make_player, play_to_end, start_two_player_game

pytestmark = pytest.mark.django_db


def _turn_of(game: Game, user: Any, *, deadline_in: timedelta | None, paused: bool = False) -> Game:
    """The game as if it were ``user``'s turn with the deadline ``deadline_in`` from now."""
    seat = Seat.objects.get(game=game, user=user)
    Game.objects.filter(pk=game.pk).update(
        to_move=seat.index,
        deadline_at=None if deadline_in is None else timezone.now() + deadline_in,
        clock_remaining=timedelta(hours=5) if paused else None,
    )
    game.refresh_from_db()
    return game


def _order_of(content: str, section: str) -> list[str]:
    part = content.split(f'id="{section}"', 1)[1].split("</section>", 1)[0]
    return re.findall(r'<tr data-game="([^"]+)">', part)


# --- the home page ---------------------------------------------------------------------


def test_a_visitor_is_told_what_this_is_and_where_to_sign_up_and_log_in(db: None) -> None:
    answer = Client().get("/")
    text = page_text(answer)
    assert answer.status_code == 200
    assert "Slow games of Splendor, by email and on the web" in text
    content = answer.content.decode()
    for link in ("/accounts/signup/", "/accounts/login/", "/api/docs/"):
        assert f'href="{link}"' in content


def test_a_player_sees_the_games_waiting_for_them_on_the_home_page(alice: Any, bob: Any, charlie: Any) -> None:
    urgent = _turn_of(start_two_player_game(alice, bob), alice, deadline_in=timedelta(hours=2))
    theirs = start_two_player_game(alice, charlie)
    _turn_of(theirs, charlie, deadline_in=timedelta(hours=1))

    answer = logged_in_client(alice).get("/")
    content = answer.content.decode()

    assert "Hello, Alice" in page_text(answer)
    assert f'data-game="{urgent.pk}"' in content and f'data-game="{theirs.pk}"' not in content
    assert "1 game waiting for others" in page_text(answer)
    assert 'href="/accounts/games/"' in content
    assert "Sign up" not in page_text(answer)


def test_the_home_page_is_only_read_and_never_cached(alice: Any) -> None:
    client = logged_in_client(alice)
    assert client.post("/").status_code == 405
    assert "no-cache" in client.get("/")["Cache-Control"]


# --- My games --------------------------------------------------------------------------


def test_games_waiting_for_you_come_first_soonest_deadline_first_and_a_paused_clock_last(
    alice: Any, bob: Any, charlie: Any, dave: Any
) -> None:
    later = _turn_of(start_two_player_game(alice, bob), alice, deadline_in=timedelta(hours=30))
    paused = _turn_of(start_two_player_game(alice, charlie), alice, deadline_in=timedelta(hours=1), paused=True)
    soonest = _turn_of(start_two_player_game(alice, dave), alice, deadline_in=timedelta(hours=3))
    others = _turn_of(start_two_player_game(alice, make_player("erin")), alice, deadline_in=timedelta(hours=2))
    erin = others.seats.exclude(user=alice).get().user
    _turn_of(others, erin, deadline_in=timedelta(hours=2))

    content = logged_in_client(alice).get("/accounts/games/").content.decode()

    assert _order_of(content, "waiting-for-you") == [soonest.pk, later.pk, paused.pk]
    assert _order_of(content, "waiting-for-others") == [others.pk]
    assert content.index('id="waiting-for-you"') < content.index('id="waiting-for-others"')


def test_the_next_game_button_opens_the_most_urgent_game_as_your_seat(alice: Any, bob: Any, charlie: Any) -> None:
    _turn_of(start_two_player_game(alice, bob), alice, deadline_in=timedelta(hours=30))
    urgent = _turn_of(start_two_player_game(alice, charlie), alice, deadline_in=timedelta(hours=1))

    content = logged_in_client(alice).get("/accounts/games/").content.decode()
    button = re.search(r'<a class="button" id="next-game" href="([^"]+)"', content)

    assert button, content
    assert button.group(1).startswith(f"/games/{urgent.pk}/?seat=")
    opened = Client().get(button.group(1).replace("&amp;", "&"), follow=True)
    assert opened.status_code == 200


def test_without_a_game_waiting_for_you_there_is_no_next_game_button(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    _turn_of(game, bob, deadline_in=timedelta(hours=1))
    answer = logged_in_client(alice).get("/accounts/games/")
    assert 'id="next-game"' not in answer.content.decode()
    assert "No game is waiting for you." in page_text(answer)


def test_finished_games_are_listed_newest_end_first(alice: Any, bob: Any, charlie: Any) -> None:
    older = start_two_player_game(alice, bob)
    newer = start_two_player_game(alice, charlie)
    play_to_end(newer)
    play_to_end(older)
    Game.objects.filter(pk=older.pk).update(finished_at=timezone.now() - timedelta(days=2))
    Game.objects.filter(pk=newer.pk).update(finished_at=timezone.now() - timedelta(days=1))

    content = logged_in_client(alice).get("/accounts/games/").content.decode()

    assert _order_of(content, "finished") == [newer.pk, older.pk]


def test_my_games_costs_the_same_queries_for_one_game_or_many(
    alice: Any, bob: Any, charlie: Any, dave: Any, django_assert_num_queries: Any
) -> None:
    # The session, the user, the player, the account's language (the page speaks it);
    # the unfinished games and their seats; the finished ones and theirs; their
    # labels (one read per extension that has them: the tournaments'); the vacation
    # summary (three).
    client = logged_in_client(alice)
    start_two_player_game(alice, bob)
    play_to_end(start_two_player_game(alice, bob))
    with django_assert_num_queries(12) as one:
        client.get("/accounts/games/")
    start_two_player_game(alice, charlie)
    play_to_end(start_two_player_game(alice, dave))
    play_to_end(start_two_player_game(alice, charlie))
    services.game_create(creator=make_player("erin"), seats=2, invited=[alice])
    services.game_create(creator=alice, seats=3, public=True)
    with django_assert_num_queries(len(one.captured_queries)):
        assert client.get("/accounts/games/").status_code == 200


# --- invitations -----------------------------------------------------------------------


def test_an_invitation_is_accepted_from_my_games_and_opens_the_game(alice: Any, bob: Any) -> None:
    game = services.game_create(creator=alice, seats=2, invited=[bob])
    client = logged_in_client(bob)
    assert "Alice invites you" in page_text(client.get("/accounts/games/"))

    answer = client.post(f"/accounts/games/{game.pk}/accept/")

    assert answer.status_code == 303 and answer["Location"].startswith(f"/games/{game.pk}/?seat=")
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE


def test_an_invitation_is_declined_from_my_games(alice: Any, bob: Any, charlie: Any) -> None:
    game = services.game_create(creator=alice, seats=3, invited=[bob])
    client = logged_in_client(bob)

    answer = client.post(f"/accounts/games/{game.pk}/decline/", follow=True)

    assert f"You declined the invitation to game {game.pk}." in page_text(answer)
    assert not Seat.objects.filter(game=game, user=bob).exists()
    assert f'data-game="{game.pk}"' not in answer.content.decode()


def test_an_answer_needs_the_forms_csrf_token(alice: Any, bob: Any) -> None:
    game = services.game_create(creator=alice, seats=2, invited=[bob])
    client = Client(enforce_csrf_checks=True)
    client.force_login(bob, backend="accounts.backends.LockoutModelBackend")
    assert client.post(f"/accounts/games/{game.pk}/accept/").status_code == 403
    assert client.get(f"/accounts/games/{game.pk}/accept/").status_code == 405


def test_declining_without_an_invitation_is_told_not_done(alice: Any, bob: Any, charlie: Any) -> None:
    game = services.game_create(creator=alice, seats=2, invited=[bob], public=True)
    answer = logged_in_client(charlie).post(f"/accounts/games/{game.pk}/decline/", follow=True)
    assert "You have no open invitation to this game" in page_text(answer)
    assert Seat.objects.filter(game=game, user=bob).exists()


# --- open games ------------------------------------------------------------------------


def test_open_games_lists_public_games_with_a_free_seat_only(alice: Any, bob: Any, charlie: Any) -> None:
    listed = services.game_create(creator=alice, seats=3, invited=[bob], public=True)
    private = services.game_create(creator=alice, seats=2, public=False)
    reserved = services.game_create(creator=alice, seats=2, invited=[bob], public=True)
    started = start_two_player_game(alice, bob, public=True)

    content = logged_in_client(charlie).get("/accounts/games/open/").content.decode()

    assert f'data-game="{listed.pk}"' in content
    for game in (private, reserved, started):
        assert f'data-game="{game.pk}"' not in content
    assert "1 of 3 seats free" in content
    # A player's own open game is on My games, not here.
    assert f'data-game="{listed.pk}"' not in logged_in_client(alice).get("/accounts/games/open/").content.decode()


def test_joining_an_open_game_takes_the_seat_and_the_last_seat_starts_it(alice: Any, charlie: Any) -> None:
    game = services.game_create(creator=alice, seats=2, public=True)

    answer = logged_in_client(charlie).post(f"/accounts/games/open/{game.pk}/join/")

    assert answer.status_code == 303 and answer["Location"].startswith(f"/games/{game.pk}/?seat=")
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE


def test_a_seat_taken_meanwhile_is_told_on_the_open_games_page(alice: Any, bob: Any, charlie: Any) -> None:
    game = services.game_create(creator=alice, seats=2, public=True)
    services.seat_join(game=game, user=bob)

    answer = logged_in_client(charlie).post(f"/accounts/games/open/{game.pk}/join/", follow=True)

    assert answer.request["PATH_INFO"] == "/accounts/games/open/"
    assert "already started or ended" in page_text(answer)


def test_the_site_pages_need_a_login(db: None) -> None:
    for path in ("/accounts/games/open/", "/accounts/games/new/"):
        answer = Client().get(path)
        assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/?next="), path


def test_the_home_page_costs_the_same_queries_for_one_game_or_many(
    alice: Any, bob: Any, charlie: Any, dave: Any, django_assert_num_queries: Any
) -> None:
    client = logged_in_client(alice)
    _turn_of(start_two_player_game(alice, bob), alice, deadline_in=timedelta(hours=3))
    client.get("/")  # the session's first read
    with CaptureQueriesContext(connection) as one:
        assert client.get("/").status_code == 200
    for other in (charlie, dave, bob):
        _turn_of(start_two_player_game(alice, other), alice, deadline_in=timedelta(hours=2))
    services.game_create(creator=make_player("erin"), seats=2, invited=[alice])
    with django_assert_num_queries(len(one.captured_queries)):
        assert client.get("/").status_code == 200
