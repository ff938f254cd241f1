"""The deadlines calendar (docs/calendar.md): one event per game where it is the
account's turn, ending at its deadline, with an alarm at each reminder hour;
paused games and league seasons; valid iCalendar, read back with ``icalendar``."""

from __future__ import annotations

from datetime import UTC, date, timedelta
from typing import Any

import pytest
from django.utils import timezone
from icalendar import Calendar

from games import services
from games.models import Game
from notifications.preferences.services import preferences_update
from tests.calendars.calendar_helpers import (
    events, fetch, game_of, games_waiting_on, parsed, seat_to_move, turn_events,
)
from tests.games.board_helpers import first_take, play

pytestmark = pytest.mark.django_db


def test_the_calendar_of_an_account_with_three_games_shows_their_three_deadlines(
    alice: Any, bob: Any, charlie: Any, dave: Any
) -> None:
    games = games_waiting_on(alice, bob, charlie, dave)
    calendar = parsed(alice)
    found = {game_of(event): event for event in turn_events(calendar)}
    assert set(found) == {game.pk for game in games}
    for game in games:
        game.refresh_from_db()
        event = found[game.pk]
        assert game.deadline_at and game.turn_started_at
        assert event.decoded("DTEND") == game.deadline_at.replace(microsecond=0)
        assert event.decoded("DTSTART") == game.turn_started_at.replace(microsecond=0)
        assert event.decoded("DTEND").tzinfo is not None and event.decoded("DTEND").utcoffset() == timedelta(0)


def test_every_event_has_what_rfc_5545_requires_and_every_alarm_its_trigger_action_and_words(
    alice: Any, bob: Any, charlie: Any
) -> None:
    games_waiting_on(alice, bob, charlie)
    body = fetch(alice).content
    calendar = Calendar.from_ical(body)
    calendar.validate()  # PRODID, VERSION, at least one component
    assert [component.errors for component in calendar.walk() if component.errors] == []  # every value parsed
    assert calendar["VERSION"] == "2.0" and "PRODID" in calendar and "X-WR-CALNAME" in calendar
    assert b"\r\nREFRESH-INTERVAL;VALUE=DURATION:PT1H\r\n" in body and b"\r\nX-PUBLISHED-TTL:PT1H\r\n" in body
    assert body.startswith(b"BEGIN:VCALENDAR\r\n") and body.endswith(b"END:VCALENDAR\r\n")
    assert all(len(line) <= 75 for line in body.split(b"\r\n"))  # folded, RFC 5545 3.1
    assert events(calendar)
    for event in events(calendar):
        assert {"UID", "DTSTAMP", "DTSTART", "DTEND", "SUMMARY"} <= set(event)
        assert event.decoded("DTEND") > event.decoded("DTSTART")
    alarms = list(calendar.walk("VALARM"))
    assert alarms
    for alarm in alarms:
        assert {"TRIGGER", "ACTION", "DESCRIPTION"} <= set(alarm)
        assert alarm["ACTION"] == "DISPLAY"


def test_the_alarms_ring_at_the_reminder_hours_before_the_deadline(alice: Any, bob: Any) -> None:
    preferences_update(user=alice, reminder_hours=[12, 1])
    games_waiting_on(alice, bob)
    (event,) = turn_events(parsed(alice))
    triggers = sorted(alarm.decoded("TRIGGER") for alarm in event.walk("VALARM"))
    assert triggers == [-timedelta(hours=12), -timedelta(hours=1)]
    assert {alarm["TRIGGER"].params["RELATED"] for alarm in event.walk("VALARM")} == {"END"}


def test_no_alarm_rings_before_the_turn_began(alice: Any, bob: Any) -> None:
    preferences_update(user=alice, reminder_hours=[100, 2])  # the turn has 72 hours
    games_waiting_on(alice, bob)
    (event,) = turn_events(parsed(alice))
    assert [alarm.decoded("TRIGGER") for alarm in event.walk("VALARM")] == [-timedelta(hours=2)]


def test_no_reminder_hours_means_no_alarm(alice: Any, bob: Any) -> None:
    preferences_update(user=alice, reminder_hours=[])
    games_waiting_on(alice, bob)
    (event,) = turn_events(parsed(alice))
    assert list(event.walk("VALARM")) == []


def test_an_event_names_the_opponents_and_links_the_game_page(alice: Any, bob: Any) -> None:
    (game,) = games_waiting_on(alice, bob)
    (event,) = turn_events(parsed(alice))
    assert "Bob" in str(event["SUMMARY"]) and "Bob" in str(event["DESCRIPTION"])
    assert str(event["URL"]) == f"http://testserver/games/{game.pk}/" or str(event["URL"]).endswith(f"/games/{game.pk}/")
    assert f"/games/{game.pk}/" in str(event["DESCRIPTION"])
    assert "seat=" not in str(event["DESCRIPTION"])  # the page, never a seat's signed link


def test_after_a_move_the_game_leaves_the_movers_calendar_and_enters_the_opponents(alice: Any, bob: Any) -> None:
    (game,) = games_waiting_on(alice, bob)
    assert [game_of(event) for event in turn_events(parsed(alice))] == [game.pk]
    assert turn_events(parsed(bob)) == []
    play(game, first_take(game))
    assert turn_events(parsed(alice)) == []
    (event,) = turn_events(parsed(bob))
    game.refresh_from_db()
    assert game.deadline_at and game_of(event) == game.pk
    assert event.decoded("DTEND") == game.deadline_at.replace(microsecond=0)


def test_a_finished_game_is_not_in_the_calendar(alice: Any, bob: Any) -> None:
    (game,) = games_waiting_on(alice, bob)
    services.game_resign(game=game, user=bob)
    assert turn_events(parsed(alice)) == []


def test_a_practice_game_against_a_bot_has_no_deadline_and_is_not_in_the_calendar(alice: Any) -> None:
    game = services.practice_game_create(creator=alice, bots=[services.bot_names()[0]])
    if seat_to_move(game).user_id != alice.pk:
        play(game, first_take(game))  # the bot's move, which a worker would play
    assert game.kind == Game.Kind.PRACTICE and seat_to_move(game).user_id == alice.pk
    assert turn_events(parsed(alice)) == []


def test_a_paused_game_is_an_all_day_event_today_that_says_so_without_an_alarm(alice: Any, bob: Any) -> None:
    (game,) = games_waiting_on(alice, bob)
    services.game_pause(game_id=game.pk, reason="server")
    (event,) = turn_events(parsed(alice))
    today = timezone.now().astimezone(UTC).date()
    assert event.decoded("DTSTART") == today and event.decoded("DTEND") == today + timedelta(days=1)
    assert "Paused" in str(event["SUMMARY"]) and "stopped" in str(event["DESCRIPTION"])
    assert list(event.walk("VALARM")) == []


def test_a_turn_keeps_its_uid_through_a_pause_and_its_sequence_grows(alice: Any, bob: Any) -> None:
    (game,) = games_waiting_on(alice, bob)
    (running,) = turn_events(parsed(alice))
    services.game_pause(game_id=game.pk, reason="server")
    (paused,) = turn_events(parsed(alice))
    assert paused["UID"] == running["UID"]
    assert paused.decoded("SEQUENCE") > running.decoded("SEQUENCE")


def test_the_calendar_is_in_the_accounts_language(alice: Any, bob: Any) -> None:
    from accounts.services import player_language_set

    player_language_set(user=alice, language="it")
    games_waiting_on(alice, bob)
    answer = fetch(alice)
    calendar = Calendar.from_ical(answer.content)
    (event,) = turn_events(calendar)
    assert str(event["SUMMARY"]) == "Tocca a te in Splendor contro Bob"
    assert "Avversari: Bob" in str(event["DESCRIPTION"])
    assert str(calendar["X-WR-CALNAME"]) == "Scadenze di Splendor"
    assert answer["Content-Language"] == "it"


def test_an_alarm_in_latvian_counts_hours_in_the_languages_three_forms(alice: Any, bob: Any) -> None:
    from accounts.services import player_language_set

    player_language_set(user=alice, language="lv")
    preferences_update(user=alice, reminder_hours=[21, 12, 2])
    games_waiting_on(alice, bob)
    (event,) = turn_events(parsed(alice))
    words = sorted(str(alarm["DESCRIPTION"]).split(" atli")[1] for alarm in event.walk("VALARM"))
    assert words == ["cis 12 stundu", "kusi 21 stunda", "kušas 2 stundas"]


def test_a_calendar_with_nothing_to_show_is_still_valid(alice: Any) -> None:
    body = fetch(alice).content
    calendar = Calendar.from_ical(body)
    calendar.validate()
    assert events(calendar) == [] and calendar.errors == []
    assert [str(zone["TZID"]) for zone in calendar.walk("VTIMEZONE")] == ["UTC"]


def test_the_same_games_give_the_same_bytes(alice: Any, bob: Any) -> None:
    games_waiting_on(alice, bob)
    assert fetch(alice).content == fetch(alice).content


def test_the_seasons_of_the_accounts_leagues_start_and_end_as_all_day_events(alice: Any, bob: Any) -> None:
    from leagues.models import League, Membership, Season

    now = timezone.now()
    mine = League.objects.create(name="Riga Sapphires")
    Membership.objects.create(league=mine, user=alice, status=Membership.Status.ACTIVE, requested_at=now)
    Season.objects.create(league=mine, number=2, starts_on=date(2027, 1, 4), ends_on=date(2027, 3, 28))
    other = League.objects.create(name="Bob's own league")
    Membership.objects.create(league=other, user=bob, status=Membership.Status.ACTIVE, requested_at=now)
    Season.objects.create(league=other, number=1, starts_on=date(2027, 1, 4), ends_on=date(2027, 2, 1))
    calendar = parsed(alice)
    seasons = {str(event["SUMMARY"]): event for event in events(calendar)}
    assert set(seasons) == {"Riga Sapphires: season 2 starts", "Riga Sapphires: season 2 ends"}
    starts, ends = seasons["Riga Sapphires: season 2 starts"], seasons["Riga Sapphires: season 2 ends"]
    assert starts.decoded("DTSTART") == date(2027, 1, 4) and starts.decoded("DTEND") == date(2027, 1, 5)
    assert ends.decoded("DTSTART") == date(2027, 3, 28) and ends.decoded("DTEND") == date(2027, 3, 29)
    assert starts["UID"] != ends["UID"]


def test_a_season_long_over_or_of_a_league_left_is_not_in_the_calendar(alice: Any) -> None:
    from leagues.models import League, Membership, Season

    now = timezone.now()
    today = now.astimezone(UTC).date()
    left = League.objects.create(name="Left behind")
    Membership.objects.create(league=left, user=alice, status=Membership.Status.LEFT, requested_at=now)
    Season.objects.create(league=left, number=1, starts_on=today, ends_on=today + timedelta(days=30))
    mine = League.objects.create(name="Still here")
    Membership.objects.create(league=mine, user=alice, status=Membership.Status.ACTIVE, requested_at=now)
    Season.objects.create(league=mine, number=1, starts_on=today - timedelta(days=400), ends_on=today - timedelta(days=300))
    Season.objects.create(league=mine, number=2, starts_on=today - timedelta(days=30), ends_on=today + timedelta(days=30))
    summaries = sorted(str(event["SUMMARY"]) for event in events(parsed(alice)))
    assert summaries == ["Still here: season 2 ends", "Still here: season 2 starts"]
