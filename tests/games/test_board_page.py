"""The game page opened by a seat's link: the board as that seat, friendly refusals, and invitations
answered only by a POST from the page's own form."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.template.loader import render_to_string
from django.test import Client

from games import links, services
from games.models import Game, GameEvent, Seat
from games.presentation import board_context
from tests.games.board_helpers import page_path, seats, started_game
from tests.games.game_helpers import client_for, play_moves, start_two_player_game

pytestmark = pytest.mark.django_db


def assert_is_the_board(html: str, game: Game) -> None:
    assert "Level 3" in html and "Level 1" in html
    assert "Bank" in html
    assert f"game {game.pk}" in html


@pytest.mark.parametrize("variant", ["base", "marvel"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_page_shows_the_board_as_the_links_seat(client: Client, variant: str, players: int) -> None:
    game = started_game(variant, players)
    play_moves(game, players + 1)
    assert len(seats(game)) == players
    for seat in seats(game):
        response = client.get(page_path(seat), follow=True)
        assert response.status_code == 200
        html = response.content.decode()
        assert_is_the_board(html, game)
        assert '<html lang="en">' in html and 'name="viewport"' in html and "<title>" in html
        assert f"{seat.user.player.display_name}</strong> (you)" in html
        assert html.count("(you)") == 1  # that seat, and no other
        # No referrer leaves the site; the page's own forms send their origin (CSRF).
        assert response["Referrer-Policy"] == "same-origin"
        assert "seat=" not in response.request["PATH_INFO"] + response.request.get("QUERY_STRING", "")
        assert "no-store" in response["Cache-Control"]
        tiles = "Locations" if variant == "marvel" else "Nobles"
        assert tiles in html
        if variant == "marvel":
            assert "Avengers Assemble" in html and "Time Stone" in html and "Gauntlet" in html


def test_the_board_context_names_whose_turn_it_is_and_the_viewer(active_game: Game) -> None:
    mover = Seat.objects.get(game=active_game, index=active_game.to_move)
    board = board_context(game=active_game, seat_index=mover.index)
    assert board["your_turn"] is True
    assert board["to_move_name"] == mover.user.player.display_name
    assert [row["level"] for row in board["market"]] == [3, 2, 1]
    assert {c["letter"] for c in board["bank"]} == {"W", "U", "G", "R", "K", "J"}
    assert all(set(card) >= {"id", "color", "cost", "points"} for row in board["market"] for card in row["cards"] if card)
    spectator = board_context(game=active_game, seat_index=None)
    assert spectator["your_turn"] is False and not any(p["is_you"] for p in spectator["players"])


def test_the_text_board_lists_the_market_by_level_with_letters(active_game: Game) -> None:
    board = board_context(game=active_game, seat_index=0)
    text = render_to_string("games/_board.txt", {"board": board})
    assert text.index("LEVEL 3") < text.index("LEVEL 2") < text.index("LEVEL 1")
    assert "BANK      4W 4U 4G 4R 4K 5J" in text
    assert "<" not in text


def test_the_email_board_uses_no_style_block_script_or_external_file(active_game: Game) -> None:
    html = render_to_string("games/_board.html", {"board": board_context(game=active_game, seat_index=0)})
    for forbidden in ("<style", "<script", "<link", "<img", "http://", "https://", "class="):
        assert forbidden not in html


def test_game_link_prints_a_link_that_opens_the_page(client: Client, active_game: Game) -> None:
    out = StringIO()
    call_command("game_link", active_game.pk, "1", stdout=out)
    url = out.getvalue().strip()
    assert url.startswith("http://127.0.0.1:8000/games/")
    response = client.get(url[url.index("/games/") :], follow=True)
    assert response.status_code == 200
    seat = Seat.objects.get(game=active_game, index=1)
    assert f"{seat.user.player.display_name}</strong> (you)" in response.content.decode()


def test_game_link_refuses_an_unknown_game_or_seat_clearly(active_game: Game) -> None:
    with pytest.raises(CommandError, match="no game with id 'nosuchgame'"):
        call_command("game_link", "nosuchgame", "0")
    with pytest.raises(CommandError, match="has no seat 5; its seats are: 0, 1"):
        call_command("game_link", active_game.pk, "5")


def test_no_token_and_nobody_logged_in_gets_the_login_page_and_never_the_board(
    client: Client, active_game: Game
) -> None:
    response = client.get(f"/games/{active_game.pk}/")
    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next=/games/{active_game.pk}/"
    assert "Level 3" not in response.content.decode()
    assert response["Referrer-Policy"] == "no-referrer"


@pytest.mark.parametrize("token", ["garbage", "a" * 1000, "x:y", "\x00"])
def test_a_bad_token_gets_a_friendly_404(client: Client, active_game: Game, token: str) -> None:
    response = client.get(f"/games/{active_game.pk}/", {"seat": token})
    assert response.status_code == 404
    assert "Level 3" not in response.content.decode()


def test_a_revoked_link_gets_a_friendly_403(client: Client, active_game: Game, alice: Any) -> None:
    path = page_path(Seat.objects.get(game=active_game, user=alice))
    links.seat_link_rotate(game_id=active_game.pk, user=alice)
    response = client.get(path)
    assert response.status_code == 403
    assert "replaced by a newer one" in response.content.decode()
    assert "Level 3" not in response.content.decode()


def test_an_unknown_game_gets_a_friendly_404(client: Client, active_game: Game, alice: Any) -> None:
    token = links.seat_link_token(seat=Seat.objects.get(game=active_game, user=alice))
    for game_id in ("nosuchgame", "bad!id"):
        response = client.get(f"/games/{game_id}/", {"seat": token})
        assert response.status_code == 404
        assert "Level 3" not in response.content.decode()


def test_a_link_for_one_game_does_not_open_another(client: Client, active_game: Game, alice: Any, bob: Any) -> None:
    other = services.game_create(creator=alice, seats=2, invited=[bob])
    path = page_path(Seat.objects.get(game=other, user=alice)).replace(other.pk, active_game.pk)
    assert client.get(path).status_code == 404


# --- invitations ---------------------------------------------------------------------


@pytest.fixture
def invitation(alice: Any, bob: Any, charlie: Any) -> tuple[Game, Seat]:
    game = services.game_create(creator=alice, seats=3, invited=[bob, charlie])
    return game, Seat.objects.get(game=game, user=bob)


def test_the_invitation_page_offers_accept_and_decline_as_a_post_form(client: Client, invitation: Any) -> None:
    game, seat = invitation
    html = client.get(page_path(seat), follow=True).content.decode()
    assert "Alice invites you" in html
    assert '<form method="post"' in html and "csrfmiddlewaretoken" in html
    assert 'value="accept"' in html and 'value="decline"' in html


def test_opening_the_invitation_link_does_not_answer_it(client: Client, invitation: Any) -> None:
    game, seat = invitation
    events = GameEvent.objects.filter(game=game).count()
    for _ in range(2):
        assert client.get(page_path(seat), follow=True).status_code == 200
    seat.refresh_from_db()
    assert seat.joined_at is None
    assert GameEvent.objects.filter(game=game).count() == events


def _post_with_csrf(seat: Seat, action: str) -> Any:
    client = Client(enforce_csrf_checks=True)
    path = page_path(seat)
    client.get(path, follow=True)
    return client.post(path, {"action": action, "csrfmiddlewaretoken": client.cookies["csrftoken"].value})


def test_accepting_by_the_form_takes_the_seat(invitation: Any) -> None:
    game, seat = invitation
    response = _post_with_csrf(seat, "accept")
    assert response.status_code == 303
    assert response["Location"] == f"/games/{game.pk}/"  # the token is not kept in the address
    seat.refresh_from_db()
    assert seat.joined_at is not None


def test_the_last_acceptance_starts_the_game_and_the_link_then_shows_the_board(
    client: Client, invitation: Any, charlie: Any
) -> None:
    game, seat = invitation
    services.seat_join(game=game, user=charlie)
    _post_with_csrf(seat, "accept")
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    response = client.get(page_path(Seat.objects.get(pk=seat.pk)), follow=True)
    assert_is_the_board(response.content.decode(), game)


def test_declining_by_the_form_gives_up_the_seat(invitation: Any, bob: Any) -> None:
    game, seat = invitation
    path = page_path(seat)
    response = _post_with_csrf(seat, "decline")
    assert response.status_code == 200
    assert "declined" in response.content.decode()
    assert not Seat.objects.filter(game=game, user=bob).exists()
    assert Client().get(path).status_code == 403


def test_a_post_without_the_csrf_token_is_refused_and_changes_nothing(invitation: Any) -> None:
    game, seat = invitation
    response = Client(enforce_csrf_checks=True).post(page_path(seat), {"action": "accept"})
    assert response.status_code == 403
    seat.refresh_from_db()
    assert seat.joined_at is None


def test_answering_twice_says_there_is_nothing_to_answer(client: Client, invitation: Any) -> None:
    game, seat = invitation
    client.post(page_path(seat), {"action": "accept"})
    response = client.post(page_path(seat), {"action": "decline"})
    assert response.status_code == 409
    assert "no open invitation" in response.content.decode()
    seat.refresh_from_db()
    assert seat.joined_at is not None


def test_an_unknown_answer_is_refused_without_acting(client: Client, invitation: Any) -> None:
    game, seat = invitation
    assert client.post(page_path(seat), {"action": "maybe"}).status_code == 400
    seat.refresh_from_db()
    assert seat.joined_at is None


def test_a_seated_players_page_offers_no_invitation_form(client: Client, active_game: Game, alice: Any) -> None:
    html = client.get(page_path(Seat.objects.get(game=active_game, user=alice)), follow=True).content.decode()
    assert 'value="accept"' not in html and 'value="decline"' not in html


# --- rotation: the API and the admin ----------------------------------------------------


def test_a_player_replaces_their_link_through_the_api(client: Client, active_game: Game, alice: Any) -> None:
    old = page_path(Seat.objects.get(game=active_game, user=alice))
    response = client_for(alice).post(f"/api/v1/games/{active_game.pk}/link/rotate/")
    assert response.status_code == 200
    body = response.json()
    assert body["game_id"] == active_game.pk
    assert body["seat"] == Seat.objects.get(game=active_game, user=alice).index
    assert "no-store" in response["Cache-Control"]
    new = body["url"][body["url"].index("/games/") :]
    assert client.get(old).status_code == 403
    assert client.get(new, follow=True).status_code == 200


def test_someone_without_a_seat_cannot_rotate_a_link(active_game: Game, alice: Any, bob: Any, charlie: Any) -> None:
    # A private game does not exist for them; a public one they may watch, not act in.
    response = client_for(charlie).post(f"/api/v1/games/{active_game.pk}/link/rotate/")
    assert response.status_code == 404 and response.json()["code"] == "game_not_found"
    watched = start_two_player_game(alice, bob, public=True)
    response = client_for(charlie).post(f"/api/v1/games/{watched.pk}/link/rotate/")
    assert response.status_code == 403
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "not_a_player"
    missing = client_for(charlie).post("/api/v1/games/nosuchgame/link/rotate/")
    assert missing.status_code == 404 and missing.json()["code"] == "game_not_found"


def test_rotating_needs_authentication(active_game: Game) -> None:
    from rest_framework.test import APIClient

    response = APIClient().post(f"/api/v1/games/{active_game.pk}/link/rotate/")
    assert response.status_code == 401


def test_the_admin_action_rotates_the_page_link(client: Client, active_game: Game, alice: Any) -> None:
    from django.contrib.auth import get_user_model

    staff = Client()
    staff.force_login(get_user_model().objects.create_superuser("root", "root@example.com", "a long admin password"))
    seat = Seat.objects.get(game=active_game, user=alice)
    old = page_path(seat)
    response = staff.post(
        "/admin/games/seat/", {"action": "rotate_page_link", "_selected_action": [seat.pk]}, follow=True
    )
    assert response.status_code == 200
    assert "Replaced the page link of 1 seat" in response.content.decode()
    assert client.get(old).status_code == 403


def test_the_deadline_is_shown_in_the_viewers_time_zone(active_game: Game) -> None:
    from datetime import UTC, datetime

    Game.objects.filter(pk=active_game.pk).update(deadline_at=datetime(2026, 12, 1, 15, 0, tzinfo=UTC))
    active_game.refresh_from_db()
    seat = Seat.objects.get(game=active_game, index=0)
    seat.user.player.time_zone = "Europe/Paris"
    seat.user.player.save()
    assert board_context(game=active_game, seat_index=0)["deadline_text"] == "Tue 01 Dec 2026, 16:00 CET"
    assert board_context(game=active_game, seat_index=None)["deadline_text"] == "Tue 01 Dec 2026, 15:00 UTC"


@pytest.mark.parametrize("variant", ["base", "marvel"])
def test_the_email_board_of_a_four_player_game_stays_far_below_the_size_mail_clients_clip(variant: str) -> None:
    # Gmail cuts a message's HTML at 102 KB; the board leaves room for the rest of the email.
    game = started_game(variant, 4)
    play_moves(game, 12)
    html = render_to_string("games/_board.html", {"board": board_context(game=game, seat_index=0)})
    assert len(html.encode()) < 60_000
