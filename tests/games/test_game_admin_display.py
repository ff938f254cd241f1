"""The game admin shows a game as a moderator reads it: the time control and the
result in words, the player to move by name, the moderation log with people's
current names (the log itself keeps ids only), and the seats to choose from when
a seat is handed over.

Personas: alice and bob play (tests/games/conftest.py); charlie takes a seat
over; mo is a staff moderator; root is a superuser.
"""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.services import player_erase
from games import moderation, services
from games.admin.display import RESULT_REASON_WORDS, span_words
from games.models import Game, ModerationEntry, Seat
from games.results import ResultReason
from tests.games.clock_helpers import seat_to_move

pytestmark = pytest.mark.django_db

GAMES = "/admin/games/game/"
LOG = "/admin/games/moderationentry/"


@pytest.fixture
def root(db: None) -> Any:
    return get_user_model().objects.create_superuser("root", "root@example.com", "a long admin password")


@pytest.fixture
def root_client(root: Any) -> Client:
    client = Client()
    client.force_login(root)
    return client


def text_of(response: Any) -> str:
    """The page as a person reads it: tags gone, entities decoded, spaces squeezed."""
    assert response.status_code == 200
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", response.content.decode())))


def change_page(client: Client, game: Game) -> str:
    return text_of(client.get(f"{GAMES}{game.pk}/change/"))


def seat_user(game: Game, index: int) -> Any:
    return Seat.objects.get(game=game, index=index).user


# --- the time control ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "seconds, words",
    [
        (60, "1 minute"),
        (30, "30 seconds"),
        (90, "1 minute 30 seconds"),
        (3 * 86400, "3 days"),
        (86400 + 6 * 3600, "1 day 6 hours"),
        (0, "no time"),
    ],
)
def test_a_span_of_time_reads_as_a_person_says_it(seconds: int, words: str) -> None:
    assert span_words(seconds) == words


def test_a_one_minute_clock_reads_one_minute_per_move_not_zero_hours(root_client: Client, active_game: Game) -> None:
    Game.objects.filter(pk=active_game.pk).update(move_seconds=60, move_timeout_hours=0)

    page = change_page(root_client, active_game)

    assert "Time control: 1 minute per move; no time bank; the 3rd timeout in a row forfeits the seat" in page
    assert "Move timeout hours" not in page


@pytest.mark.parametrize(
    "bank_start, bank_cap, words",
    [
        (10 * 3600, 2 * 86400, "3 days per move; a bank of 10 hours at the start, at most 2 days; the first timeout"),
        (0, 3600, "3 days per move; an empty bank at the start, at most 1 hour; the first timeout"),
    ],
)
def test_the_time_control_names_the_bank_and_its_cap(
    root_client: Client, active_game: Game, bank_start: int, bank_cap: int, words: str
) -> None:
    Game.objects.filter(pk=active_game.pk).update(
        move_seconds=3 * 86400, bank_start_seconds=bank_start, bank_cap_seconds=bank_cap, forfeit_after=1
    )

    page = change_page(root_client, active_game)

    assert f"{words} forfeits the seat" in page


# --- the result ----------------------------------------------------------------------------


def test_the_result_names_the_winner_the_places_the_scores_and_why(
    root_client: Client, active_game: Game, alice: Any, bob: Any
) -> None:
    services.game_resign(game=active_game, user=alice)
    active_game.refresh_from_db()
    bob_seat = Seat.objects.get(game=active_game, user=bob).index
    alice_seat = Seat.objects.get(game=active_game, user=alice).index

    page = change_page(root_client, active_game)

    assert f"Winner: bob (seat {bob_seat})" in page
    assert f"1 bob (seat {bob_seat}) 0 points" in page
    assert f"2 alice (seat {alice_seat}) 0 points resigned" in page
    assert "Why it ended: every other player resigned (resignation)." in page
    assert '"winners"' not in page and "[1]" not in page


@pytest.mark.parametrize("reason", list(ResultReason))
def test_every_way_a_game_can_end_has_words_in_the_admin(reason: ResultReason) -> None:
    assert RESULT_REASON_WORDS[reason]


def test_an_adjudicated_tie_names_both_winners(root_client: Client, active_game: Game, root: Any) -> None:
    moderation.moderation_game_adjudicate(game_id=active_game.pk, by_user=root, reason="Outage", places=[1, 1])

    page = change_page(root_client, active_game)

    first, second = seat_user(active_game, 0).username, seat_user(active_game, 1).username
    assert f"Winners: {first} (seat 0) and {second} (seat 1)" in page
    assert "Why it ended: a moderator decided the places (adjudicated)." in page


def test_an_aborted_game_says_it_has_no_result(root_client: Client, active_game: Game, root: Any) -> None:
    moderation.moderation_game_abort(game_id=active_game.pk, by_user=root, reason="Annulled")

    assert "Result: No result: the game was aborted." in change_page(root_client, active_game)


# --- the player to move ------------------------------------------------------------------------


def test_the_player_to_move_is_named_once_with_the_seat_beside_the_name(root_client: Client, active_game: Game) -> None:
    seat = seat_to_move(active_game)

    page = change_page(root_client, active_game)

    assert page.count("To move:") == 1
    assert f"To move: {seat.user.username} (seat {seat.index})" in page


# --- people in the moderation log ----------------------------------------------------------------


def test_the_log_names_the_moderator_and_the_player_as_they_are_called_now(
    root_client: Client, root: Any, active_game: Game, bob: Any
) -> None:
    moderation.moderation_player_warn(user=bob, by_user=root, reason="Rude in chat", game_id=active_game.pk)
    bob.player.display_name = "Bobby Tables"
    bob.player.save()

    listing = text_of(root_client.get(LOG))
    entry = text_of(root_client.get(f"{LOG}{ModerationEntry.objects.get().pk}/change/"))

    for page in (listing, entry):
        assert f"root (user {root.pk})" in page
        assert f"Bobby Tables (bob, user {bob.pk})" in page
        assert "User id" not in page and "Target user id" not in page


def test_an_erased_account_keeps_its_id_and_shows_its_erased_name(
    root_client: Client, root: Any, active_game: Game, bob: Any
) -> None:
    moderation.moderation_player_warn(user=bob, by_user=root, reason="Spam")
    player_erase(user=bob)

    page = text_of(root_client.get(LOG))

    assert f"deleted player {bob.pk} (deleted-{bob.pk}, user {bob.pk})" in page
    assert "Bob (bob" not in page


def test_an_id_with_no_account_reads_as_deleted(root_client: Client) -> None:
    ModerationEntry.objects.create(
        user_id=9990, action=ModerationEntry.Action.PLAYER_WARNED, target_user_id=9991, reason="Old entry",
        at=timezone.now(),
    )

    page = text_of(root_client.get(LOG))

    assert "user 9990 (deleted)" in page and "user 9991 (deleted)" in page


def test_the_log_list_asks_for_the_names_in_the_same_query_however_many_entries(
    root_client: Client, root: Any, alice: Any, bob: Any, charlie: Any
) -> None:
    def queries_for_the_list() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert root_client.get(LOG).status_code == 200
        return len(captured)

    moderation.moderation_player_warn(user=alice, by_user=root, reason="First")
    few = queries_for_the_list()
    for user in (bob, charlie, alice, bob, charlie):
        moderation.moderation_player_warn(user=user, by_user=root, reason="Again")

    assert queries_for_the_list() == few


def test_the_game_page_lists_its_moderation_log_with_names(
    root_client: Client, root: Any, active_game: Game, charlie: Any
) -> None:
    seat = seat_to_move(active_game)
    old = seat.user
    moderation.moderation_seat_replace(
        game_id=active_game.pk, seat_index=seat.index or 0, by_user=root, reason="Gone", new_user=charlie
    )

    page = change_page(root_client, active_game)
    entry = text_of(root_client.get(f"{LOG}{ModerationEntry.objects.get().pk}/change/"))

    assert f"Replaced a seat root (user {root.pk}) {old.player.display_name} ({old.username}, user {old.pk}) Gone" in page
    assert f"new player: Charlie (charlie, user {charlie.pk})" in entry


# --- handing a seat over ---------------------------------------------------------------------------


def test_the_replace_seat_form_offers_the_games_seats_by_player(
    root_client: Client, active_game: Game, alice: Any, bob: Any
) -> None:
    page = root_client.post(GAMES, {"action": "moderate_replace_seat", "_selected_action": [active_game.pk]})

    html = page.content.decode()
    assert page.status_code == 200
    assert re.search(r'<select name="seat"', html)
    for index in (0, 1):
        name = seat_user(active_game, index).username
        assert f'<option value="{index}">seat {index}: {name}</option>' in html


def test_a_seat_the_game_does_not_have_is_refused_by_the_form(root_client: Client, active_game: Game) -> None:
    page = root_client.post(
        GAMES,
        {
            "action": "moderate_replace_seat",
            "_selected_action": [active_game.pk],
            "post": "yes",
            "seat": "3",
            "reason": "Gone",
        },
    )

    assert page.status_code == 200
    assert "Select a valid choice" in page.content.decode()
    assert ModerationEntry.objects.count() == 0
