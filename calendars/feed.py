"""An account's deadlines calendar as iCalendar text (RFC 5545), written with
the ``icalendar`` package from what ``calendars.selectors.calendar_content``
read. docs/calendar.md describes the events for the people who subscribe.

- A game where it is the account's turn: an event from the turn's start to its
  deadline, with an alarm at each of the account's reminder hours that falls
  inside the turn. A paused game (no deadline runs) is an all-day event on the
  current day, in UTC, that says so, without an alarm: it moves on by a day each
  day until the clock runs again.
- A league season: an all-day event on its first day and one on its last.
- A round of a tournament the account plays in: an event at the moment it
  started, or is scheduled to.

The same content gives the same bytes: every date comes from the content (DTSTAMP
is the game's or season's last change, not the time of the request), so that the
ETag of the body changes only when the calendar does.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from urllib.parse import urlsplit

from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from icalendar import Alarm, Calendar, Event, Timezone, TimezoneStandard, vDuration

from calendars.selectors import CalendarContent, RoundStart, SeasonDates, Turn

PRODID = "-//Splendor by post//Deadlines calendar//EN"
# How often a calendar app should fetch the feed again (a hint most apps follow).
REFRESH_INTERVAL = timedelta(hours=1)


def _utc(moment: datetime) -> datetime:
    """In UTC, to the second (iCalendar has no fractions: a deadline shown a
    fraction early is never one missed)."""
    return moment.astimezone(UTC).replace(microsecond=0)


def _uid(kind: str, key: str, site_url: str) -> str:
    return f"{kind}-{key}@{urlsplit(site_url).hostname or 'localhost'}"


def _opponents(turn: Turn) -> str:
    return ", ".join(turn.opponents) or "-"


def _turn_event(turn: Turn, *, site_url: str, reminder_hours: tuple[int, ...], today: date) -> Event:
    event = Event()
    # One event per turn: the same turn keeps its UID through a pause or an
    # extension, and its SEQUENCE (the game's version) grows with each change.
    event.add("uid", _uid("turn", f"{turn.game_id}-{turn.ply}", site_url))
    event.add("dtstamp", _utc(turn.changed_at))
    event.add("sequence", turn.version)
    link = site_url + reverse("game-page", kwargs={"game_id": turn.game_id})
    event.add("url", link)
    # A deadline is a reminder, not a meeting: it does not make the account look busy.
    event.add("transp", "TRANSPARENT")
    lines = []
    if turn.deadline_at is None or turn.turn_started_at is None:
        event.add("summary", _("Paused: your move in %(variant)s against %(opponents)s")
                  % {"variant": turn.variant, "opponents": _opponents(turn)})
        event.add("dtstart", today)
        event.add("dtend", today + timedelta(days=1))
        lines.append(_("The game's clock is stopped: no deadline runs until it starts again."))
    else:
        event.add("summary", _("Your move in %(variant)s against %(opponents)s")
                  % {"variant": turn.variant, "opponents": _opponents(turn)})
        event.add("dtstart", _utc(turn.turn_started_at))
        event.add("dtend", _utc(turn.deadline_at))
        lines.append(_("Deadline: %(deadline)s UTC") % {"deadline": f"{turn.deadline_at.astimezone(UTC):%Y-%m-%d %H:%M}"})
        for hours in reminder_hours:
            # An alarm before the turn began would ring for a turn not yet yours.
            if turn.deadline_at - timedelta(hours=hours) >= turn.turn_started_at:
                event.add_component(_alarm(turn, hours))
    lines.append(_("Opponents: %(opponents)s") % {"opponents": _opponents(turn)})
    lines.append(_("The game: %(link)s") % {"link": link})
    event.add("description", "\n".join(lines))
    return event


def _alarm(turn: Turn, hours: int) -> Alarm:
    alarm = Alarm()
    alarm.add("action", "DISPLAY")
    alarm.add("trigger", -timedelta(hours=hours), parameters={"RELATED": "END"})
    alarm.add(
        "description",
        ngettext(
            "%(hours)d hour left for your move in %(variant)s against %(opponents)s",
            "%(hours)d hours left for your move in %(variant)s against %(opponents)s",
            hours,
        )
        % {"hours": hours, "variant": turn.variant, "opponents": _opponents(turn)},
    )
    return alarm


def _season_events(season: SeasonDates, *, site_url: str) -> list[Event]:
    events = []
    names = {"league": season.league, "number": season.number}
    for which, day, summary in (
        ("start", season.starts_on, _("%(league)s: season %(number)d starts") % names),
        ("end", season.ends_on, _("%(league)s: season %(number)d ends") % names),
    ):
        event = Event()
        event.add("uid", _uid(f"season-{which}", f"{season.league_id}-{season.number}", site_url))
        event.add("dtstamp", _utc(season.changed_at))
        event.add("summary", summary)
        event.add("dtstart", day)
        event.add("dtend", day + timedelta(days=1))
        event.add("transp", "TRANSPARENT")
        events.append(event)
    return events


def _round_event(start: RoundStart, *, site_url: str) -> Event:
    """A moment, not a meeting: a start with no end takes up no time (RFC 5545, 3.6.1)."""
    names = {"tournament": " ".join(start.tournament.split()), "number": start.number}
    event = Event()
    # One event per round: a scheduled round keeps its UID when it opens (at its time or later).
    event.add("uid", _uid("round", f"{start.tournament_id}-{start.number}", site_url))
    event.add("dtstamp", _utc(start.changed_at))
    event.add("summary", _("%(tournament)s: round %(number)d starts") % names)
    event.add("dtstart", _utc(start.starts_at))
    event.add("transp", "TRANSPARENT")
    return event


def calendar_render(*, content: CalendarContent, language: str, site_url: str, today: date) -> bytes:
    """The calendar in ``language``, dated in UTC; ``today`` (UTC) dates the paused games' events."""
    with translation.override(language):
        calendar = Calendar()
        calendar.add("prodid", PRODID)
        calendar.add("version", "2.0")
        calendar.add("calscale", "GREGORIAN")
        calendar.add("method", "PUBLISH")
        calendar.add("x-wr-calname", _("Splendor deadlines"))
        calendar.add("x-wr-timezone", "UTC")
        calendar.add("refresh-interval", REFRESH_INTERVAL, parameters={"VALUE": "DURATION"})
        calendar.add("x-published-ttl", vDuration(REFRESH_INTERVAL))
        for turn in content.turns:
            calendar.add_component(
                _turn_event(turn, site_url=site_url, reminder_hours=content.reminder_hours, today=today)
            )
        for season in content.seasons:
            for event in _season_events(season, site_url=site_url):
                calendar.add_component(event)
        for start in content.rounds:
            calendar.add_component(_round_event(start, site_url=site_url))
        if not calendar.subcomponents:
            # RFC 5545 (3.4, 3.6) asks for at least one component: a calendar with
            # nothing to show describes the time zone its (absent) events would be in.
            calendar.add_component(_utc_zone())
        body: bytes = calendar.to_ical()
        return body


def _utc_zone() -> Timezone:
    zone = Timezone()
    zone.add("tzid", "UTC")
    standard = TimezoneStandard()
    standard.add("dtstart", datetime(1970, 1, 1))
    standard.add("tzoffsetfrom", timedelta(0))
    standard.add("tzoffsetto", timedelta(0))
    standard.add("tzname", "UTC")
    zone.add_component(standard)
    return zone


def today_utc(now: datetime) -> date:
    return now.astimezone(UTC).date()
