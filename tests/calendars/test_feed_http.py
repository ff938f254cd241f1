"""GET /calendar/<secret>.ics over HTTP: its media type, caching, ETag and 304
for the calendar apps that poll, HEAD, a plain 404 for any secret that opens
nothing, and a fixed handful of queries whatever the number of games."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from icalendar import Calendar

from accounts.models import CalendarFeed
from accounts.services import calendar_feed_get, player_erase, player_suspend
from tests.calendars.calendar_helpers import feed_path, fetch, games_waiting_on, parsed, turn_events
from tests.games.board_helpers import first_take, play

pytestmark = pytest.mark.django_db


def test_the_feed_is_text_calendar_in_utf_8_cached_privately_for_a_short_while(alice: Any) -> None:
    answer = fetch(alice)
    assert answer.status_code == 200
    assert answer["Content-Type"] == "text/calendar; charset=utf-8"
    cache_control = {part.strip() for part in answer["Cache-Control"].split(",")}
    assert "private" in cache_control and "max-age=300" in cache_control
    assert answer["ETag"].startswith('"') and answer["ETag"].endswith('"')
    assert answer["X-Robots-Tag"] == "noindex, nofollow" and answer["Referrer-Policy"] == "no-referrer"


def test_a_poll_with_the_etag_gets_304_without_a_body(alice: Any, bob: Any) -> None:
    games_waiting_on(alice, bob)
    first = fetch(alice)
    again = fetch(alice, **{"If-None-Match": first["ETag"]})
    assert again.status_code == 304 and again.content == b""
    assert again["ETag"] == first["ETag"]


def test_a_move_changes_the_etag_and_a_poll_with_the_old_one_gets_the_new_calendar(alice: Any, bob: Any) -> None:
    (game,) = games_waiting_on(alice, bob)
    before = fetch(alice)
    play(game, first_take(game))
    after = fetch(alice, **{"If-None-Match": before["ETag"]})
    assert after.status_code == 200 and after["ETag"] != before["ETag"]
    assert turn_events(parsed(alice)) == []


def test_head_answers_the_headers_of_get(alice: Any) -> None:
    got, head = fetch(alice), Client().head(feed_path(alice))
    assert head.status_code == 200 and head.content == b""
    assert head["ETag"] == got["ETag"] and head["Content-Type"] == got["Content-Type"]


def test_post_is_not_allowed(alice: Any) -> None:
    assert Client().post(feed_path(alice)).status_code == 405


@pytest.mark.parametrize(
    "path",
    [
        "/calendar/" + "A" * 43 + ".ics",  # made nowhere
        "/calendar/short.ics",
        "/calendar/" + "x" * 100 + ".ics",
    ],
)
def test_a_secret_that_opens_nothing_is_a_plain_404(alice: Any, path: str) -> None:
    calendar_feed_get(user=alice)
    answer = Client().get(path)
    assert answer.status_code == 404
    assert answer.content == b"Not found\n"


def test_an_unknown_secret_and_a_replaced_one_get_the_same_answer(alice: Any) -> None:
    from accounts.services import calendar_feed_rotate

    old = feed_path(alice)
    calendar_feed_rotate(user=alice)
    replaced, unknown = Client().get(old), Client().get("/calendar/" + "B" * 43 + ".ics")
    assert replaced.status_code == unknown.status_code == 404
    assert replaced.content == unknown.content
    assert replaced["Content-Type"] == unknown["Content-Type"]


def test_a_suspended_account_s_calendar_answers_404(alice: Any, bob: Any) -> None:
    path = feed_path(alice)
    player_suspend(user=alice, by_user=bob, reason="spam")
    assert Client().get(path).status_code == 404


def test_an_erased_account_s_calendar_answers_404_and_its_secret_is_gone(alice: Any) -> None:
    path = feed_path(alice)
    player_erase(user=alice)
    assert Client().get(path).status_code == 404
    assert not CalendarFeed.objects.filter(user=alice).exists()


def test_the_feed_costs_the_same_few_queries_for_one_game_or_five(
    alice: Any, bob: Any, charlie: Any, dave: Any, django_assert_max_num_queries: Any
) -> None:
    from tests.games.game_helpers import make_player

    games_waiting_on(alice, bob)
    path = feed_path(alice)
    # Five for the games, seasons and preferences; one for the tournaments (and one
    # more per tournament played in: tournaments.selectors.round_times; none here).
    with django_assert_max_num_queries(6):
        assert len(turn_events(Calendar.from_ical(Client().get(path).content))) == 1
    games_waiting_on(alice, charlie, dave, make_player("erin"), make_player("frank"))
    with django_assert_max_num_queries(6):
        assert len(turn_events(Calendar.from_ical(Client().get(path).content))) == 5
