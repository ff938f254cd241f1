"""A league admin moderates the table talk of their own leagues' games: they list
and open its lines, hide one with a reason (through chat.services, so that the
players read it as hidden), and reach no line of another league's game or of a
game outside the leagues, by list, by URL or by a hand-made POST.

Personas (conftest.py): mallory administers "Mallory's League" (alice and bob
play in it); carol and dave play in "Another League"; erin plays alice in a game
of no league. zed is staff in "League admins" who administers no league.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from chat import services as chat_services
from chat.models import ChatMessage
from games import services as game_services
from games.models import Game, ModerationEntry
from leagues import services
from leagues.models import League
from leagues.services import league_admins_group
from tests.games.game_helpers import client_for, make_player
from tests.leagues.conftest import add_members, make_league, make_season

LINES = "/admin/leagues/leaguechatmessage/"


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _game_of(league: League) -> Game:
    return Game.objects.get(league_game__season__league=league)


def _say(game: Game, user: Any, text: str) -> ChatMessage:
    return chat_services.chat_message_post(game_id=game.pk, user=user, text=text)


def _hide(client: Client, message: ChatMessage, reason: str = "Insults") -> Any:
    return client.post(
        LINES, {"action": "chat_hide", "_selected_action": [message.pk], "post": "yes", "reason": reason}
    )


@pytest.fixture
def leagues(mallory: Any, players: list[Any]) -> tuple[League, League]:
    mine = make_league("Mallory's League")
    mine.admins.add(mallory)
    theirs = make_league("Another League")
    add_members(mine, players[:2])
    add_members(theirs, players[2:])
    services.season_start(season_id=make_season(mine).pk)
    services.season_start(season_id=make_season(theirs).pk)
    return mine, theirs


@pytest.fixture
def lines(leagues: tuple[League, League], players: list[Any], erin: Any) -> dict[str, ChatMessage]:
    """One line in each game: of mallory's league, of another league, of no league."""
    alice, bob, carol, _ = players
    mine, theirs = leagues
    casual = game_services.game_create(creator=alice, variant="base", seats=2, invited=[erin])
    game_services.seat_join(game=casual, user=erin)
    return {
        "mine": _say(_game_of(mine), bob, "mine: you cheat, alice"),
        "theirs": _say(_game_of(theirs), carol, "theirs: good luck"),
        "casual": _say(casual, erin, "casual: nice move"),
    }


def test_a_league_admin_lists_the_lines_of_their_leagues_games_only(
    mallory: Any, lines: dict[str, ChatMessage]
) -> None:
    listed = _client(mallory).get(LINES)

    page = listed.content.decode()
    assert listed.status_code == 200
    assert "mine: you cheat, alice" in page
    assert "theirs: good luck" not in page and "casual: nice move" not in page
    assert "Mallory&#x27;s League" in page and "Another League" not in page  # the league filter: theirs only


def test_the_league_admins_chat_list_names_the_author(mallory: Any, lines: dict[str, ChatMessage]) -> None:
    page = _client(mallory).get(LINES).content.decode()

    assert '<td class="field-author_name">bob</td>' in page


def test_a_league_admin_opens_their_leagues_line_and_gets_404_for_any_other(
    mallory: Any, lines: dict[str, ChatMessage]
) -> None:
    client = _client(mallory)

    opened = client.get(f"{LINES}{lines['mine'].pk}/change/")
    assert opened.status_code == 200 and "mine: you cheat, alice" in opened.content.decode()
    assert client.get(f"{LINES}{lines['theirs'].pk}/change/").status_code == 404
    assert client.get(f"{LINES}{lines['casual'].pk}/change/").status_code == 404
    assert client.get(f"{LINES}{lines['theirs'].pk}/history/").status_code == 404


def test_a_league_admin_hides_a_line_with_a_reason_and_its_players_read_it_as_hidden(
    mallory: Any, players: list[Any], lines: dict[str, ChatMessage]
) -> None:
    alice = players[0]
    line = lines["mine"]
    api = client_for(alice, scopes=("read", "play"))
    before = api.get(f"/api/v1/games/{line.game_id}/chat/").json()["lines"]
    assert [(entry["text"], entry["hidden"]) for entry in before] == [("mine: you cheat, alice", False)]

    asked = _client(mallory).post(LINES, {"action": "chat_hide", "_selected_action": [line.pk]})
    assert asked.status_code == 200 and 'name="reason"' in asked.content.decode()
    assert _hide(_client(mallory), line, "Insults").status_code == 302

    line.refresh_from_db()
    assert line.is_hidden and line.hidden_reason == "Insults" and line.hidden_by_id == mallory.pk
    entry = ModerationEntry.objects.get(action="chat_message_hidden")
    assert entry.game_id == line.game_id and entry.user_id == mallory.pk and entry.reason == "Insults"
    assert "Insults" in _client(mallory).get("/admin/leagues/leaguemoderationentry/").content.decode()
    after = api.get(f"/api/v1/games/{line.game_id}/chat/").json()["lines"]
    assert [(entry["text"], entry["hidden"]) for entry in after] == [("", True)]


def test_hiding_asks_for_a_reason_and_hides_nothing_without_one(mallory: Any, lines: dict[str, ChatMessage]) -> None:
    refused = _hide(_client(mallory), lines["mine"], "   ")

    assert refused.status_code == 200 and 'name="reason"' in refused.content.decode()
    lines["mine"].refresh_from_db()
    assert not lines["mine"].is_hidden and not ModerationEntry.objects.exists()


@pytest.mark.parametrize("which", ["theirs", "casual"])
def test_a_hand_made_hide_of_a_line_outside_their_leagues_is_refused_and_changes_nothing(
    mallory: Any, lines: dict[str, ChatMessage], which: str
) -> None:
    client = _client(mallory)

    alone = _hide(client, lines[which])
    with_their_own = client.post(
        LINES,
        {
            "action": "chat_hide",
            "_selected_action": [lines["mine"].pk, lines[which].pk],
            "post": "yes",
            "reason": "Insults",
        },
    )

    assert alone.status_code == 403 and with_their_own.status_code == 403
    assert ChatMessage.objects.count() == 3
    assert not ChatMessage.objects.filter(hidden_at__isnull=False).exists()
    assert not ModerationEntry.objects.exists()


def test_a_league_admin_of_no_league_sees_no_table_talk(db: None, lines: dict[str, ChatMessage]) -> None:
    zed = make_player("zed")
    zed.is_staff = True
    zed.save()
    zed.groups.add(league_admins_group())
    client = _client(zed)

    assert client.get(LINES).status_code == 403
    assert _hide(client, lines["mine"]).status_code == 403
    assert not ChatMessage.objects.filter(hidden_at__isnull=False).exists()


def test_a_league_admin_gets_nothing_from_the_site_wide_chat_admin(
    mallory: Any, lines: dict[str, ChatMessage]
) -> None:
    client = _client(mallory)

    assert client.get("/admin/chat/chatmessage/").status_code == 403
    assert client.get("/admin/chat/chatreport/").status_code == 403
    forged = client.post(
        "/admin/chat/chatmessage/",
        {"action": "chat_hide", "_selected_action": [lines["mine"].pk], "post": "yes", "reason": "Insults"},
    )
    assert forged.status_code == 403
    assert not ChatMessage.objects.filter(hidden_at__isnull=False).exists()


def test_the_league_admins_group_holds_the_league_chat_permission(db: None) -> None:
    codenames = set(league_admins_group().permissions.values_list("codename", flat=True))

    assert "view_leaguechatmessage" in codenames
    assert "view_chatmessage" not in codenames
