"""Moderation in the Django admin: the actions with their confirmation page and
required reason, who may use them, the board as a seat sees it, the read-only
log, the filters and the front page's counts.

Personas: alice and bob play (tests/games/conftest.py); mo is a staff moderator
with only the moderate permission; stan is staff without it; root is a superuser.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.test import Client

from games import moderation, services
from games.admin import GameModerationAdmin
from games.models import Game, ModerationEntry, Move, Seat
from tests.games.clock_helpers import NOON, seat_to_move

pytestmark = pytest.mark.django_db

GAMES = "/admin/games/game/"


def staff(username: str, *, moderator: bool) -> Any:
    user = get_user_model().objects.create_user(username, f"{username}@example.com", "a long staff password", is_staff=True)
    if moderator:
        group, _ = Group.objects.get_or_create(name="League admins")
        group.permissions.add(Permission.objects.get(codename="moderate_game", content_type__app_label="games"))
        user.groups.add(group)
    return user


def logged_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def mo(db: None) -> Any:
    return staff("mo", moderator=True)


@pytest.fixture
def mo_client(mo: Any) -> Client:
    return logged_in(mo)


@pytest.fixture
def root_client(db: None) -> Client:
    return logged_in(get_user_model().objects.create_superuser("root", "root@example.com", "a long admin password"))


def run_action(client: Client, action: str, games: list[Game], **fields: Any) -> Any:
    data = {"action": action, "_selected_action": [g.pk for g in games], "post": "yes", **fields}
    return client.post(GAMES, data)


def test_an_action_asks_for_a_reason_on_its_confirmation_page_first(mo_client: Client, active_game: Game) -> None:
    page = mo_client.post(GAMES, {"action": "moderate_extend_deadline", "_selected_action": [active_game.pk]})

    assert page.status_code == 200
    text = page.content.decode()
    assert 'name="reason"' in text and 'name="hours"' in text and active_game.pk in text
    assert ModerationEntry.objects.count() == 0


def test_the_confirmation_form_refuses_an_empty_reason_and_changes_nothing(mo_client: Client, active_game: Game) -> None:
    before = active_game.deadline_at

    page = run_action(mo_client, "moderate_extend_deadline", [active_game], hours=5, reason="   ")

    assert page.status_code == 200 and "This field is required" in page.content.decode()
    active_game.refresh_from_db()
    assert active_game.deadline_at == before and ModerationEntry.objects.count() == 0


def test_a_moderator_extends_a_deadline_with_a_reason(mo_client: Client, mo: Any, active_game: Game) -> None:
    before = active_game.deadline_at
    assert before is not None

    response = run_action(mo_client, "moderate_extend_deadline", [active_game], hours=5, reason="Travelling")

    assert response.status_code == 302
    active_game.refresh_from_db()
    assert active_game.deadline_at == before + timedelta(hours=5)
    entry = ModerationEntry.objects.get()
    assert (entry.action, entry.user_id, entry.reason) == ("deadline_extended", mo.pk, "Travelling")


def test_a_moderator_aborts_pauses_and_resumes_from_the_list(mo_client: Client, active_game: Game) -> None:
    run_action(mo_client, "moderate_pause", [active_game], reason="Complaint")
    run_action(mo_client, "moderate_resume", [active_game], reason="Complaint handled")
    run_action(mo_client, "moderate_abort", [active_game], reason="Annulled")

    active_game.refresh_from_db()
    assert active_game.status == Game.Status.ABORTED
    assert list(ModerationEntry.objects.order_by("id").values_list("action", flat=True)) == [
        "game_paused", "game_resumed", "game_aborted",
    ]


def test_a_moderator_adjudicates_one_game_with_places(mo_client: Client, active_game: Game) -> None:
    run_action(mo_client, "moderate_adjudicate", [active_game], places="1, 2", reason="Outage")

    active_game.refresh_from_db()
    assert active_game.result is not None and active_game.result["reason"] == "adjudicated"
    assert active_game.result["winners"] == [0]


def test_places_that_are_no_ranking_come_back_as_an_error_message(mo_client: Client, active_game: Game) -> None:
    response = run_action(mo_client, "moderate_adjudicate", [active_game], places="1, 3", reason="Outage")

    assert response.status_code == 302
    messages = [str(m) for m in response.wsgi_request._messages]  # type: ignore[attr-defined]
    assert any("is not a ranking" in m for m in messages)
    active_game.refresh_from_db()
    assert active_game.status == Game.Status.ACTIVE


def test_a_moderator_hands_a_seat_to_the_bot_by_leaving_the_username_empty(
    mo_client: Client, active_game: Game, django_capture_on_commit_callbacks: Any
) -> None:
    seat = seat_to_move(active_game)
    player = seat.user

    with django_capture_on_commit_callbacks(execute=True):
        done = run_action(mo_client, "moderate_replace_seat", [active_game], seat=seat.index, username="", reason="Gone")

    assert done.status_code == 302
    seat.refresh_from_db()
    assert seat.bot and seat.user == player
    # Played by the bots' dispatcher, queued when the moderator's change committed.
    assert Move.objects.filter(game=active_game, played_by="bot").exists()
    assert ModerationEntry.objects.get(action="seat_replaced").details["bot"] is True


def test_the_replace_seat_help_says_what_the_form_does_with_an_empty_username(
    mo_client: Client, active_game: Game
) -> None:
    page = mo_client.post(GAMES, {"action": "moderate_replace_seat", "_selected_action": [active_game.pk]})

    text = page.content.decode()
    assert page.status_code == 200 and 'name="username"' in text
    assert "leave it empty to hand the seat to the built-in bot" in text
    assert 'name="bot"' not in text  # one way to choose the bot: the empty username


def test_an_unknown_username_is_refused_by_the_replace_seat_form_and_nothing_changes(
    mo_client: Client, active_game: Game
) -> None:
    page = run_action(mo_client, "moderate_replace_seat", [active_game], seat=0, username="nobody", reason="Swap")

    assert page.status_code == 200 and "There is no player named &#x27;nobody&#x27;." in page.content.decode()
    assert not Seat.objects.filter(game=active_game, bot=True).exists()
    assert not ModerationEntry.objects.exists()


def test_a_seat_goes_to_a_player_named_by_username(mo_client: Client, active_game: Game, charlie: Any) -> None:
    run_action(mo_client, "moderate_replace_seat", [active_game], seat=0, username="charlie", reason="Swap")

    assert Seat.objects.get(game=active_game, index=0).user == charlie


def test_staff_without_the_permission_are_offered_no_moderation_and_cannot_run_it(active_game: Game) -> None:
    stan = staff("stan", moderator=False)
    stan.user_permissions.add(Permission.objects.get(codename="view_game"))
    client = logged_in(stan)

    listing = client.get(GAMES).content.decode()
    assert "moderate_extend_deadline" not in listing

    run_action(client, "moderate_abort", [active_game], reason="Trying anyway")
    active_game.refresh_from_db()
    assert active_game.status == Game.Status.ACTIVE and ModerationEntry.objects.count() == 0
    assert client.get(f"{GAMES}{active_game.pk}/board/0/").status_code == 403


def test_a_scoped_admin_refuses_the_games_its_hook_refuses(
    mo_client: Client, active_game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(GameModerationAdmin, "moderation_allowed", lambda self, request, game=None: game is None)

    response = run_action(mo_client, "moderate_abort", [active_game], reason="Not my league")

    assert response.status_code == 403
    active_game.refresh_from_db()
    assert active_game.status == Game.Status.ACTIVE


def test_the_board_as_a_seat_sees_it_is_shown_to_a_moderator_and_logged(
    mo_client: Client, mo: Any, active_game: Game
) -> None:
    page = mo_client.get(f"{GAMES}{active_game.pk}/board/1/")

    assert page.status_code == 200
    text = page.content.decode()
    assert "as seat 1 sees it" in text and active_game.seed not in text
    entry = ModerationEntry.objects.get()
    assert (entry.action, entry.user_id, entry.details) == ("board_viewed", mo.pk, {"seat": 1})
    change = mo_client.get(f"{GAMES}{active_game.pk}/change/").content.decode()
    assert f"{GAMES}{active_game.pk}/board/0/" in change


def test_someone_holding_a_seat_cannot_see_the_board_as_another_seat(active_game: Game, alice: Any) -> None:
    alice.is_staff = True
    alice.save()
    alice.user_permissions.add(Permission.objects.get(codename="moderate_game"))

    response = logged_in(alice).get(f"{GAMES}{active_game.pk}/board/1/")

    assert response.status_code == 403
    assert ModerationEntry.objects.count() == 0


def test_the_moderation_log_is_read_only_even_for_a_superuser(root_client: Client, mo: Any, active_game: Game) -> None:
    moderation.moderation_deadline_extend(game_id=active_game.pk, by_user=mo, reason="Kept", hours=1)
    entry = ModerationEntry.objects.get()
    url = "/admin/games/moderationentry/"

    assert "Kept" in root_client.get(url).content.decode()
    assert root_client.get(f"{url}add/").status_code == 403
    assert root_client.post(f"{url}{entry.pk}/change/", {"reason": "changed"}).status_code == 403
    assert root_client.post(f"{url}{entry.pk}/delete/", {"post": "yes"}).status_code == 403
    root_client.post(url, {"action": "delete_selected", "_selected_action": [entry.pk], "post": "yes"})
    assert ModerationEntry.objects.get().reason == "Kept"


def test_a_moderator_reads_the_log(mo_client: Client, mo: Any) -> None:
    moderation.moderation_player_warn(user=mo, by_user=mo, reason="Visible to moderators")

    assert "Visible to moderators" in mo_client.get("/admin/games/moderationentry/").content.decode()


def test_the_overdue_filter_lists_only_active_games_past_their_deadline(
    root_client: Client, alice: Any, bob: Any, charlie: Any
) -> None:
    with time_machine.travel(NOON - timedelta(days=10), tick=False):
        late = services.game_create(creator=alice, seats=2, invited=[bob], move_timeout_hours=24)
        services.seat_join(game=late, user=bob)
    on_time = services.game_create(creator=charlie, seats=2, invited=[bob], move_timeout_hours=24)
    services.seat_join(game=on_time, user=bob)

    listing = root_client.get(GAMES, {"overdue": "yes"}).content.decode()

    assert late.pk in listing and on_time.pk not in listing


def test_the_waiting_on_filter_lists_the_games_a_player_is_to_move_in(root_client: Client, active_game: Game) -> None:
    to_move = seat_to_move(active_game).user
    other = Seat.objects.exclude(user=to_move).get(game=active_game).user

    assert active_game.pk in root_client.get(GAMES, {"waiting_on": to_move.pk}).content.decode()
    assert active_game.pk not in root_client.get(GAMES, {"waiting_on": other.pk}).content.decode()
    listing = root_client.get(GAMES).content.decode()
    assert f"{to_move.username} (seat {active_game.to_move})" in listing


def test_the_front_page_counts_active_and_overdue_games_and_todays_moves(root_client: Client, active_game: Game) -> None:
    page = root_client.get("/admin/").content.decode()

    assert 'data-count="active">1<' in page
    assert 'data-count="overdue">0<' in page
    assert 'data-count="moves_today">' in page


def test_a_moderator_suspends_a_player_from_the_player_list(mo: Any, bob: Any) -> None:
    mo.user_permissions.add(Permission.objects.get(codename="view_player"))
    client = logged_in(mo)

    confirm = client.post("/admin/accounts/player/", {"action": "moderate_suspend", "_selected_action": [bob.player.pk]})
    assert 'name="reason"' in confirm.content.decode()
    client.post(
        "/admin/accounts/player/",
        {"action": "moderate_suspend", "_selected_action": [bob.player.pk], "post": "yes", "reason": "Abuse"},
    )

    bob.player.refresh_from_db()
    assert bob.player.suspended_at is not None
    entry = ModerationEntry.objects.get()
    assert (entry.action, entry.target_user_id, entry.reason) == ("player_suspended", bob.pk, "Abuse")
