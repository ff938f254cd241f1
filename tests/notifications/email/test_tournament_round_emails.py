"""A tournament round's start is emailed to each of its players: "Round N of <the
tournament> has started", naming their opponents and linking their game, in the
game's own subject and thread; the round's bye is told that it sits out. Its
followers hear of it elsewhere (the stream, webhooks), never by email. The seed
of the tournament's draws is in no email.

Personas (tests/tournaments/conftest.py's rated players): p1 (the strongest)
meets p2 in round 1 of a three-player Swiss at two-seat tables, and p3 has the
bye; fan follows the tournament without playing in it.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail

from accounts.models import Player
from games.models import GameEvent
from notifications.email.render import display_name, game_subject
from notifications.models import GameMute, Notification, Preferences
from tests.games.game_helpers import make_player
from tests.notifications.email_helpers import everything_in, headline_of, html_of, mail_to
from tests.tournaments.conftest import rated_players
from tests.tournaments.news_helpers import game_of, round_games, round_played, tournament_started

ROUND_KIND = "tournament_round"


@pytest.fixture
def players(db: None) -> list[Any]:
    return rated_players(3)


@pytest.fixture
def fan(db: None) -> Any:
    return make_player("fan")


def round_mail(user: Any, number: int = 1) -> list[Any]:
    """The emails to ``user`` about a round's start: headline (a game's email) or subject (the bye's)."""
    words = f"Round {number} of Winter Cup has started"
    return [m for m in mail_to(user) if headline_of(m).startswith(words) or m.subject.startswith(words)]


def test_each_player_with_a_game_gets_one_email_naming_their_opponent_and_game(
    players: list[Any], fan: Any, commit: Any
) -> None:
    p1, p2, p3 = players
    with commit():
        tournament = tournament_started(players, followers=[fan])
    game = game_of(tournament, 1, p1)
    for me, opponent in ((p1, p2), (p2, p1)):
        (message,) = round_mail(me)
        # The game's subject: the round's email joins the thread of the game it is about.
        assert message.subject == game_subject(game)
        assert headline_of(message) == "Round 1 of Winter Cup has started"
        assert f"You play against {display_name(opponent)}." in message.body
        assert f"/games/{game.pk}/" in message.body
        assert f"/games/{game.pk}/" in html_of(message)
    notification = Notification.objects.get(kind=ROUND_KIND, user=p1)
    assert notification.game_id == game.pk
    assert notification.event is not None and notification.event.kind == GameEvent.Kind.TOURNAMENT_ROUND_STARTED


def test_the_player_with_the_bye_is_told_so_in_an_email_about_no_game(
    players: list[Any], fan: Any, commit: Any
) -> None:
    p3 = players[2]
    with commit():
        tournament_started(players, followers=[fan])
    (message,) = round_mail(p3)
    assert message.subject == "Round 1 of Winter Cup has started"
    assert "You have the bye in round 1 of Winter Cup" in message.body
    assert "/games/" not in message.body
    assert Notification.objects.get(kind=ROUND_KIND, user=p3).game_id is None


def test_a_follower_who_does_not_play_gets_no_email(players: list[Any], fan: Any, commit: Any) -> None:
    with commit():
        tournament_started(players, followers=[fan])
    assert mail_to(fan) == []
    assert not Notification.objects.filter(user=fan).exists()
    assert Notification.objects.filter(kind=ROUND_KIND).count() == 3


def test_a_knockout_bye_goes_through_without_playing(db: None, commit: Any) -> None:
    players = rated_players(3)
    with commit():
        tournament_started(players, format="knockout", rounds=None)
    (message,) = round_mail(players[0])  # the top seed has the bye in a bracket of four
    assert "You have a bye in round 1 of Winter Cup: you go through to the next round without playing." in message.body


def test_the_round_email_follows_email_preferences_and_a_muted_game(
    players: list[Any], commit: Any
) -> None:
    p1, p2, p3 = players
    Preferences.objects.create(user=p3, mode=Preferences.Mode.OFF)
    # The game does not exist yet: p2 mutes it as soon as it does, before the email is decided.
    with commit():
        tournament = tournament_started(players)
        GameMute.objects.create(user=p2, game=game_of(tournament, 1, p2))
    assert len(round_mail(p1)) == 1
    assert round_mail(p2) == [] and round_mail(p3) == []
    reasons = dict(Notification.objects.filter(kind=ROUND_KIND).values_list("user__username", "last_error"))
    assert reasons == {"p1": "", "p2": "game muted", "p3": "mode off"}


def test_handling_the_event_twice_sends_nothing_more(players: list[Any], commit: Any) -> None:
    from notifications.email.game_events import event_handle

    with commit():
        tournament = tournament_started(players)
    sent = len(mail.outbox)
    event = GameEvent.objects.get(kind=GameEvent.Kind.TOURNAMENT_ROUND_STARTED, game=round_games(tournament, 1)[0])
    with commit():
        event_handle(event)
    assert len(mail.outbox) == sent


def test_the_round_email_is_in_each_players_language(players: list[Any], commit: Any) -> None:
    p1, p2, p3 = players
    Player.objects.filter(user=p1).update(language="it")
    Player.objects.filter(user=p2).update(language="lv")
    Player.objects.filter(user=p3).update(language="it")
    with commit():
        tournament_started(players)
    (italian,) = [m for m in mail_to(p1) if "Il round 1 di Winter Cup" in m.body]
    assert headline_of(italian) == "Il round 1 di Winter Cup è iniziato"
    assert f"Giochi contro {display_name(p2)}." in italian.body
    (latvian,) = [m for m in mail_to(p2) if "Sācies turnīra" in m.body]
    assert headline_of(latvian) == "Sācies turnīra Winter Cup 1. raunds"
    assert f"Tu spēlē pret {display_name(p1)}." in latvian.body
    (bye,) = [m for m in mail_to(p3) if "Riposi nel round 1" in m.body]
    assert bye.subject == "Il round 1 di Winter Cup è iniziato"
    for message in (italian, latvian, bye):
        assert "Hello" not in message.body and "has started" not in everything_in(message)


def test_a_tournament_name_is_one_line_in_the_headline(players: list[Any], commit: Any) -> None:
    with commit():
        tournament_started(players, name="Winter\nCup")
    (message,) = round_mail(players[0])
    assert headline_of(message) == "Round 1 of Winter Cup has started"


def test_the_next_rounds_start_is_emailed_too(transactional_db: None, settings: Any) -> None:
    """Rounds move on when their games end (the tournaments consumer, on commit)."""
    players = rated_players(3)
    tournament = tournament_started(players)
    round_played(tournament, 1)
    tournament.refresh_from_db()
    assert tournament.round_set.count() == 2
    for player in players:
        assert len(round_mail(player, 2)) == 1
    assert Notification.objects.filter(kind=ROUND_KIND).count() == 6


def test_no_round_email_carries_the_tournaments_seed(transactional_db: None, settings: Any) -> None:
    players = rated_players(3)
    tournament = tournament_started(players, rounds=2)
    round_played(tournament, 1)
    round_played(tournament, 2)
    tournament.refresh_from_db()
    assert tournament.status == "finished"
    messages = [m for p in players for m in mail_to(p)]
    assert len([m for m in messages if "of Winter Cup has started" in everything_in(m)]) == 6
    for message in messages:
        text = everything_in(message)
        assert tournament.seed not in text
        assert str(tournament.seed_int()) not in text
