"""Who the game page is drawn for: a seat's link opens a session for that seat (and leaves
the address without the token), a rotated key ends it, a logged-in player sees their
seat, a public game shows spectators the board, a private one asks to log in."""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Player
from games import links
from games.models import Game, Seat
from tests.games.game_helpers import make_player, start_two_player_game
from tests.games.board_helpers import page_path, seats, started_game
from tests.games.page_helpers import opened, other_than, page, post_move, public_game, to_move, without_csrf_tokens

pytestmark = pytest.mark.django_db


def you(html: str) -> str:
    """The name the page marks as the viewer's own seat."""
    marker = "</strong> (you)"
    assert html.count(marker) == 1, "exactly one seat is yours"
    return html[: html.index(marker)].rsplit("<strong>", 1)[1]


def test_opening_a_link_redirects_to_the_address_without_the_token() -> None:
    game = started_game("base", 2)
    client = Client()
    response = client.get(page_path(seats(game)[0]))
    assert response.status_code == 303
    assert response["Location"] == f"/games/{game.pk}/"
    assert response["Referrer-Policy"] == "no-referrer"
    assert client.session.session_key


def test_the_session_then_shows_the_board_as_the_links_seat() -> None:
    game = started_game("base", 3)
    assert len(seats(game)) == 3
    for seat in seats(game):
        html = page(opened(seat), game).content.decode()
        assert you(html) == seat.user.player.display_name


def test_opening_a_link_gives_a_new_session_id() -> None:
    game = started_game("base", 2)
    client = Client()
    client.get("/games/nosuchgame/")
    client.session.save()
    before = client.session.session_key
    client.get(page_path(seats(game)[0]))
    assert client.session.session_key != before


def test_one_browser_can_hold_seats_in_several_games() -> None:
    first = started_game("base", 2)
    second = public_game()
    client = Client()
    client.get(page_path(seats(first)[0]))
    client.get(page_path(seats(second)[1]))
    assert you(page(client, first).content.decode()) == seats(first)[0].user.player.display_name
    assert you(page(client, second).content.decode()) == seats(second)[1].user.player.display_name


def test_rotating_the_key_ends_the_links_and_the_sessions_opened_with_them() -> None:
    game = started_game("base", 2)
    seat = seats(game)[0]
    path = page_path(seat)
    browser = opened(seat)
    links.seat_link_rotate_for_seat(seat_id=seat.pk)
    response = page(browser, game)
    assert response.status_code == 403
    assert "has been replaced" in response.content.decode() and "Level 3" not in response.content.decode()
    assert Client().get(path).status_code == 403
    # And it stays ended: the browser holds no seat now, so it is asked to log in.
    again = page(browser, game)
    assert again.status_code == 302 and again["Location"].startswith("/accounts/login/?next=")


def test_revoke_this_link_shows_the_new_link_once_and_keeps_this_browser_playing() -> None:
    game = started_game("base", 2)
    seat = to_move(game)
    old = page_path(seat)
    other_browser = opened(seat)
    browser = opened(seat)
    response = browser.post(f"/games/{game.pk}/link/")
    assert response.status_code == 200
    html = response.content.decode()
    new = page_path(Seat.objects.get(pk=seat.pk))
    assert new != old and new.split("?")[1].replace("%3A", ":") in html.replace("%3A", ":")
    assert "no-store" in response["Cache-Control"]
    assert Client().get(old).status_code == 403
    assert page(other_browser, game).status_code == 403
    assert Client().get(new).status_code == 303
    assert "Your new link" not in page(browser, game).content.decode()  # shown only once
    assert post_move(browser, game, text="take WUG").status_code == 303


def test_revoking_a_link_needs_a_post_from_the_seat() -> None:
    game = public_game()
    refused = Client().post(f"/games/{game.pk}/link/")
    assert refused.status_code == 302 and refused["Location"] == f"/accounts/login/?next=/games/{game.pk}/"
    assert opened(seats(game)[0]).get(f"/games/{game.pk}/link/").status_code == 405


def test_a_link_for_one_seat_cannot_act_for_another() -> None:
    game = started_game("base", 2)
    mover = to_move(game)
    waiting = other_than(game, mover)
    browser = opened(waiting)
    response = post_move(browser, game, text="take WUG")
    assert response.status_code == 409
    game.refresh_from_db()
    assert game.version == 1 or game.to_move == mover.index
    assert not game.moves.exists()


def test_a_logged_in_player_with_a_seat_sees_their_seat_without_a_link() -> None:
    game = started_game("base", 2)
    seat = seats(game)[1]
    client = Client()
    client.force_login(seat.user)
    assert you(page(client, game).content.decode()) == seat.user.player.display_name


def test_a_private_game_and_an_unknown_one_send_a_visitor_to_the_login_page_alike(settings: Any) -> None:
    game = started_game("base", 2)
    for game_id in (game.pk, "nosuchgame", "bad!id"):
        response = Client().get(f"/games/{game_id}/")
        assert response.status_code == 302
        location = urlsplit(response["Location"])
        assert location.path == settings.LOGIN_URL and parse_qs(location.query) == {"next": [f"/games/{game_id}/"]}
        assert "Level 3" not in response.content.decode()


def test_a_logged_in_user_without_a_seat_is_told_a_private_game_does_not_exist(charlie: Any) -> None:
    game = started_game("base", 2)
    client = Client()
    client.force_login(charlie)
    private, unknown = page(client, game), client.get("/games/nosuchgame/")
    assert private.status_code == unknown.status_code == 404
    assert "Level 3" not in private.content.decode()
    assert without_csrf_tokens(private.content.decode()).replace(game.pk, "ID") == without_csrf_tokens(
        unknown.content.decode()
    ).replace("nosuchgame", "ID")


def test_a_public_game_shows_spectators_the_board_with_nobody_as_you() -> None:
    game = public_game("base", 3)
    response = Client().get(f"/games/{game.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Watching a game" in html and "Level 3" in html
    assert "(you)" not in html and 'name="move"' not in html and "Revoke this link" not in html


def test_an_unknown_game_is_a_friendly_404_to_a_logged_in_player(charlie: Any) -> None:
    client = Client()
    client.force_login(charlie)
    for game_id in ("nosuchgame", "bad!id"):
        response = client.get(f"/games/{game_id}/")
        assert response.status_code == 404 and "There is no such game" in response.content.decode()


def test_the_token_is_not_written_in_the_request_log(caplog: pytest.LogCaptureFixture, log_format: str) -> None:
    from api.log_redaction import RedactUsernamesInPaths

    game = started_game("base", 2)
    path = page_path(seats(game)[0])
    token = path.split("seat=")[1]
    record = logging.LogRecord("django.server", logging.INFO, __file__, 1, '"GET %s HTTP/1.1" 303 0', (path,), None)
    RedactUsernamesInPaths().filter(record)
    assert token not in record.getMessage() and "seat={token}" in record.getMessage()
    with caplog.at_level(logging.DEBUG):
        Client().get(path.replace(token, token[:-3] + "xyz"))  # a refusal, which django.request logs
    assert caplog.text and token[:20] not in caplog.text


def test_an_invitation_opened_from_the_link_can_be_answered_from_the_page(bob: Any) -> None:
    from games import services
    from tests.games.game_helpers import make_player

    alice = make_player("alice")
    game = services.game_create(creator=alice, seats=2, invited=[bob])
    browser = opened(Seat.objects.get(game=game, user=bob))
    assert "invites you" in page(browser, game).content.decode()
    assert browser.post(f"/games/{game.pk}/", {"action": "accept"}).status_code == 303
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE


def _suspend(seat: Seat) -> None:
    from accounts.models import Player
    from django.utils import timezone

    Player.objects.filter(user=seat.user).update(suspended_at=timezone.now())


def test_a_suspended_players_link_session_no_longer_opens_the_game() -> None:
    game = started_game("base", 2)
    mover = to_move(game)
    browser = opened(mover)
    _suspend(mover)
    response = page(browser, game)
    assert response.status_code == 403
    html = response.content.decode()
    assert "suspended" in html and "Level 3" not in html and "(you)" not in html
    assert post_move(browser, game, text="take WUG").status_code == 403
    assert not game.moves.exists()


def test_a_suspended_players_link_cannot_open_a_new_session() -> None:
    game = started_game("base", 2)
    seat = seats(game)[0]
    _suspend(seat)
    response = Client().get(page_path(seat))
    assert response.status_code == 403
    assert "suspended" in response.content.decode()


def test_a_logged_in_suspended_player_no_longer_plays_their_seat() -> None:
    game = started_game("base", 2)
    mover = to_move(game)
    client = Client()
    client.force_login(mover.user)
    _suspend(mover)
    response = page(client, game)
    # The suspension ended the login too (accounts.backends): the login page, which refuses them.
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")
    assert "(you)" not in response.content.decode()
    assert post_move(client, game, text="take WUG").status_code == 302
    assert not game.moves.exists()


def test_a_logged_in_suspended_player_watches_a_public_game_only_as_a_spectator() -> None:
    game = public_game("base", 2)
    seat = seats(game)[0]
    client = Client()
    client.force_login(seat.user)
    _suspend(seat)
    html = page(client, game).content.decode()
    assert "Watching a game" in html and "(you)" not in html and 'name="move"' not in html


def test_the_seat_whose_mail_bounced_is_warned_on_the_game_page_and_nobody_else_is() -> None:
    alice, bob = make_player("warnalice"), make_player("warnbob")
    game = start_two_player_game(alice, bob)
    Player.objects.filter(user=alice).update(email_undeliverable_at=timezone.now(), email_undeliverable_reason="550")
    for user, warned in ((alice, True), (bob, False)):
        seat = game.seats.get(user=user)
        page = Client().get(links.seat_link_url(seat=seat), follow=True)
        assert page.status_code == 200
        assert ("bounced" in page.content.decode()) is warned
