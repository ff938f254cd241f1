"""The tournament pages (tournaments.pages): /tournaments/ and /tournaments/<id>/
for anyone when public, a 404 to strangers when private (as the API), Join and
Leave buttons that call the services and show a refusal as a message, and
nothing secret in the HTML: not the tournament's seed, not a game's seed or its
hidden cards."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.test import Client

from games import services as game_services
from games.models import Game
from tests.accounts.pages_helpers import logged_in_client
from tests.tournaments.conftest import rated_players
from tournaments import rounds, services
from tournaments.models import Entry, Tournament, TournamentGame
from tournaments.pages import PAGE_CONTENT_SECURITY_POLICY


def text_of(answer: Any) -> str:
    content = answer.content.decode()
    content = re.sub(r"<(script|style)\b.*?</\1>", " ", content, flags=re.DOTALL)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", content)))


def swiss(creator: Any, **fields: Any) -> Tournament:
    options = {"name": "Winter Swiss", "format": "swiss", "seats": 2, "rounds": 3, **fields}
    return services.tournament_create(creator=creator, **options)


@pytest.fixture
def players(db: None) -> list[Any]:
    return rated_players(5)


def test_a_public_tournament_is_listed_and_readable_without_an_account(players: list[Any]) -> None:
    tournament = swiss(players[0])
    for user in players[:3]:
        services.tournament_join(tournament_id=tournament.pk, user=user)

    listed = Client().get("/tournaments/")
    page = Client().get(f"/tournaments/{tournament.pk}/")

    assert listed.status_code == 200 and f'href="/tournaments/{tournament.pk}/"' in listed.content.decode()
    assert page.status_code == 200
    words = text_of(page)
    assert "Winter Swiss" in words and "Swiss" in words and "Open for entries" in words
    assert "p1" in words and "Standings" in words and "Buchholz" in words
    assert "Log in to join." in words
    # No form to join for someone not signed in.
    assert "/join/" not in page.content.decode()
    assert page["Content-Security-Policy"] == PAGE_CONTENT_SECURITY_POLICY
    assert "style-src 'self'" in PAGE_CONTENT_SECURITY_POLICY


def test_a_private_tournament_is_a_404_to_a_stranger_and_seen_by_an_entrant(players: list[Any]) -> None:
    organiser, invited, stranger = players[0], players[1], players[2]
    tournament = swiss(organiser, name="Club night", public=False)
    services.tournament_invite(tournament_id=tournament.pk, by=organiser, usernames=[invited.username])

    assert Client().get(f"/tournaments/{tournament.pk}/").status_code == 404
    assert logged_in_client(stranger).get(f"/tournaments/{tournament.pk}/").status_code == 404
    assert logged_in_client(stranger).post(f"/tournaments/{tournament.pk}/join/").status_code == 404
    assert "Club night" not in logged_in_client(stranger).get("/tournaments/").content.decode()
    assert "Club night" not in Client().get("/tournaments/").content.decode()

    seen = logged_in_client(invited).get(f"/tournaments/{tournament.pk}/")
    assert seen.status_code == 200 and "Club night" in text_of(seen)
    assert "Accept the invitation" in text_of(seen)
    assert "Club night" in text_of(logged_in_client(invited).get("/tournaments/"))
    assert logged_in_client(organiser).get(f"/tournaments/{tournament.pk}/").status_code == 200


def test_join_and_leave_buttons_enter_and_withdraw_the_player(players: list[Any]) -> None:
    tournament = swiss(players[0])
    client = logged_in_client(players[1])
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert f'action="/tournaments/{tournament.pk}/join/"' in page

    joined = client.post(f"/tournaments/{tournament.pk}/join/", follow=True)

    assert joined.redirect_chain == [(f"/tournaments/{tournament.pk}/", 303)]
    assert "You are in Winter Swiss." in text_of(joined)
    assert Entry.objects.get(tournament=tournament, user=players[1]).status == Entry.Status.ACTIVE
    assert "Your entry: Playing" in text_of(joined) and "Leave" in text_of(joined)

    left = client.post(f"/tournaments/{tournament.pk}/leave/", follow=True)

    assert "You left Winter Swiss." in text_of(left)
    assert Entry.objects.get(tournament=tournament, user=players[1]).status == Entry.Status.WITHDRAWN


def test_a_refused_join_is_a_message_on_the_page_not_an_error(players: list[Any]) -> None:
    tournament = swiss(players[0], max_players=2)
    for user in players[:2]:
        services.tournament_join(tournament_id=tournament.pk, user=user)
    client = logged_in_client(players[2])

    full = client.post(f"/tournaments/{tournament.pk}/join/", follow=True)
    left = client.post(f"/tournaments/{tournament.pk}/leave/", follow=True)

    assert full.status_code == 200 and full.redirect_chain[-1][1] == 303
    assert 'class="notice error"' in full.content.decode()
    assert not Entry.objects.filter(tournament=tournament, user=players[2]).exists()
    assert left.status_code == 200 and 'class="notice error"' in left.content.decode()


def test_joining_needs_an_account_and_a_post(players: list[Any]) -> None:
    tournament = swiss(players[0])

    anonymous = Client().post(f"/tournaments/{tournament.pk}/join/")
    fetched = logged_in_client(players[1]).get(f"/tournaments/{tournament.pk}/join/")

    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/")
    assert fetched.status_code == 405


def test_the_page_shows_the_seed_of_nothing_and_no_hidden_card(players: list[Any]) -> None:
    tournament = swiss(players[0], seats=2, rounds=2)
    for user in players[:4]:
        services.tournament_join(tournament_id=tournament.pk, user=user)
    services.tournament_start(tournament_id=tournament.pk, by=players[0])
    tournament.refresh_from_db()
    games = list(Game.objects.filter(tournament_game__table__round__tournament=tournament))
    assert len(games) == 2

    for client in (Client(), logged_in_client(players[0]), logged_in_client(players[1])):
        content = client.get(f"/tournaments/{tournament.pk}/").content.decode()
        assert tournament.seed not in content and str(tournament.seed_int()) not in content
        for game in games:
            assert f'href="/games/{game.pk}/"' in content
            assert game.seed and game.seed not in content
            decks = (game.state or {}).get("decks") or []
            hidden = [str(card) for deck in decks for card in (deck if isinstance(deck, list) else [])]
            assert not [card for card in hidden if len(card) > 2 and card in content]


def test_a_knockout_page_draws_its_bracket_with_byes_and_winners(players: list[Any]) -> None:
    tournament = services.tournament_create(creator=players[0], name="Cup", format="knockout", seats=2)
    for user in players:
        services.tournament_join(tournament_id=tournament.pk, user=user)
    services.tournament_start(tournament_id=tournament.pk, by=players[0])
    # Five players in a bracket of eight: seeds 1-3 have byes, seeds 4 and 5 play.
    match = TournamentGame.objects.get(table__round__tournament=tournament)
    loser = match.game.seats.get(user__username="p5").user
    game_services.game_resign(game=match.game, user=loser)
    # What the outbox consumer "tournaments" does once the game's end is committed.
    rounds.tournament_advance(tournament_id=tournament.pk)

    content = logged_in_client(players[0]).get(f"/tournaments/{tournament.pk}/").content.decode()

    assert 'class="bracket"' in content
    assert content.count('class="side bye"') == 3
    assert 'class="side winner"' in content
    words = text_of(Client().get(f"/tournaments/{tournament.pk}/"))
    assert "Quarter-finals" in words and "Semi-finals" in words and "Final" in words
    assert "won by p4" in words
    # The semi-finals are paired, each box linking its game.
    semis = TournamentGame.objects.filter(table__round__tournament=tournament, table__round__number=2)
    assert semis.count() == 2
    content = Client().get(f"/tournaments/{tournament.pk}/").content.decode()
    assert all(content.count(f'href="/games/{semi.game_id}/"') == 2 for semi in semis)


def test_my_games_names_each_games_tournament_and_round(players: list[Any]) -> None:
    tournament = swiss(players[0], rounds=2)
    for user in players[:2]:
        services.tournament_join(tournament_id=tournament.pk, user=user)
    services.tournament_start(tournament_id=tournament.pk, by=players[0])
    game = Game.objects.get(tournament_game__table__round__tournament=tournament)

    content = logged_in_client(players[1]).get("/accounts/games/").content.decode()

    row = re.search(rf'<tr data-game="{game.pk}">(.*?)</tr>', content, re.DOTALL)
    assert row is not None and "Winter Swiss, round 1" in row.group(1)
    assert 'href="/tournaments/"' in content


def test_a_finished_knockout_names_its_winner_and_offers_no_buttons(players: list[Any]) -> None:
    tournament = services.tournament_create(creator=players[0], name="Final only", format="knockout", seats=2)
    for user in players[:2]:
        services.tournament_join(tournament_id=tournament.pk, user=user)
    services.tournament_start(tournament_id=tournament.pk, by=players[0])
    final = TournamentGame.objects.get(table__round__tournament=tournament)
    game_services.game_resign(game=final.game, user=players[1])
    rounds.tournament_advance(tournament_id=tournament.pk)

    answer = logged_in_client(players[0]).get(f"/tournaments/{tournament.pk}/")

    words = text_of(answer)
    assert "Won by p1" in words and "Finished" in words
    assert "/join/" not in answer.content.decode() and "/leave/" not in answer.content.decode()


def test_the_bracket_puts_the_winners_through_in_the_boxes_still_to_come() -> None:
    from tournaments.page_selectors import bracket

    def table(players: list[str], winner: str | None, decided_by: str = "") -> dict[str, Any]:
        return {"players": players, "winner": winner, "decided_by": decided_by, "games": []}

    first = {"tables": [table(["a"], "a", "bye"), table(["d", "e"], "e"), table(["b"], "b", "bye"), table(["c", "f"], None)]}

    columns = bracket([first], 3)

    assert [len(c.matches) for c in columns] == [4, 2, 1]
    assert [c.players for c in columns] == [8, 4, 2]
    assert [side.name for side in columns[1].matches[0].sides] == ["a", "e"]
    assert [side.name for side in columns[1].matches[1].sides] == ["b", ""]
    assert columns[0].matches[0].sides[1].bye and columns[0].matches[0].sides[0].winner
    assert bracket([], 3) == []
