"""The tournament pages in a real browser, at desktop (1280 px) and phone (390 px)
widths: a Swiss of five at two-seat tables (a bye each round) one round and a
game in, and a knockout of five (three byes, the first match and a semi-final
played). Arranged through the services, each game ended by a resignation; the
outbox consumer "tournaments" moves the rounds on as the games end. Each page is
saved as a screenshot (tests/browser/README.md, "Tournaments"), checked with axe
(no violation at all), and on a phone the page never scrolls sideways: the bracket
scrolls inside its own box."""

from __future__ import annotations

from typing import Any

import pytest

from games import services as game_services
from games.models import Game
from leagues.models import PlayerRating
from tests.games.game_helpers import make_player
from tournaments import services
from tournaments.models import Tournament, TournamentGame

PASSWORD = "a long and unusual passphrase"
WIDTHS = {"desktop": 1280, "phone": 390}
# Rated from the top down, so that the seeds and the Swiss order are known.
NAMES = ("alice", "bartolomeo_ferraris", "carol", "dace_ozolina", "erik")


@pytest.fixture(autouse=True)
def _tournaments_hear(game_extensions: Any) -> None:
    """Only the tournaments and ratings consumers read the outbox (no email)."""
    game_extensions.hearing("tournaments", "ratings")


@pytest.fixture(params=list(WIDTHS))
def width(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def assert_no_axe_violation(page: Any) -> None:
    from axe_playwright_python.sync_playwright import Axe

    violations = Axe().run(page).response["violations"]
    found = [f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']]}" for v in violations]
    assert found == [], "\n".join(found)


def assert_fits(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


def _players() -> list[Any]:
    players = []
    for number, name in enumerate(NAMES):
        user = make_player(name)
        PlayerRating.objects.create(user=user, variant="base", rating=1900 - 100 * number)
        players.append(user)
    players[0].set_password(PASSWORD)
    players[0].save()
    return players


def _resign_all_but(game: Game, winner: str) -> None:
    for seat in game.seats.select_related("user").order_by("index"):
        if seat.user.username != winner:
            game_services.game_resign(game=Game.objects.get(pk=game.pk), user=seat.user)


def _games_of(tournament: Tournament, number: int) -> list[TournamentGame]:
    return list(
        TournamentGame.objects.filter(table__round__tournament=tournament, table__round__number=number)
        .select_related("game")
        .order_by("table__position", "number")
    )


def _swiss(players: list[Any]) -> Tournament:
    tournament = services.tournament_create(
        creator=players[0], name="Winter Swiss", format="swiss", seats=2, rounds=3, move_seconds=72 * 3600,
        bank_seconds=48 * 3600, bank_cap_seconds=96 * 3600,
    )  # fmt: skip
    for user in players:
        services.tournament_join(tournament_id=tournament.pk, user=user)
    services.tournament_start(tournament_id=tournament.pk, by=players[0])
    for played in _games_of(tournament, 1):
        first = played.game.seats.select_related("user").order_by("join_position").first()
        assert first is not None
        _resign_all_but(played.game, first.user.username)
    round_2 = _games_of(tournament, 2)
    assert round_2, "the consumer opened round 2 when round 1's games ended"
    last = round_2[-1].game.seats.select_related("user").order_by("join_position").last()
    assert last is not None
    _resign_all_but(round_2[-1].game, last.user.username)
    return tournament


def _knockout(players: list[Any]) -> Tournament:
    tournament = services.tournament_create(creator=players[0], name="Spring Cup", format="knockout", seats=2)
    for user in players:
        services.tournament_join(tournament_id=tournament.pk, user=user)
    services.tournament_start(tournament_id=tournament.pk, by=players[0])
    # Five in a bracket of eight: the top three seeds have byes; the fourth and fifth play.
    (first,) = _games_of(tournament, 1)
    _resign_all_but(first.game, "dace_ozolina")
    semis = _games_of(tournament, 2)
    assert len(semis) == 2, "the consumer paired the semi-finals"
    second = next(g for g in semis if g.game.seats.filter(user__username="carol").exists())
    _resign_all_but(second.game, "bartolomeo_ferraris")
    return tournament


def _log_in(page: Any, base: str) -> None:
    page.goto(base + "/accounts/login/")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/accounts/games/")


def _open(new_page: Any, width: str) -> Any:
    pixels = WIDTHS[width]
    return new_page(viewport={"width": pixels, "height": 900 if pixels > 600 else 844}, is_mobile=pixels < 600)


def test_a_swiss_and_a_knockout_read_well_on_desktop_and_phone(
    live_server: Any, new_page: Any, screenshot: Any, width: str
) -> None:
    players = _players()
    swiss = _swiss(players)
    knockout = _knockout(players)
    page = _open(new_page, width)
    _log_in(page, live_server.url)

    page.goto(live_server.url + "/tournaments/")
    assert page.get_by_role("link", name="Winter Swiss").is_visible()
    assert_fits(page)
    assert_no_axe_violation(page)
    screenshot(page, f"tournament-list-{width}")

    page.get_by_role("link", name="Winter Swiss").click()
    page.wait_for_url(f"**/tournaments/{swiss.pk}/")
    assert page.get_by_role("heading", name="Standings").is_visible()
    assert page.get_by_role("heading", name="Round 2").is_visible()
    assert page.get_by_role("button", name="Leave").is_visible()
    assert page.get_by_text("Bye:").count() == 2
    assert_fits(page)
    assert_no_axe_violation(page)
    screenshot(page, f"tournament-swiss-{width}")

    page.goto(f"{live_server.url}/tournaments/{knockout.pk}/")
    bracket = page.locator(".bracket-box")
    assert bracket.get_by_role("heading", name="Final", exact=True).is_visible()
    assert bracket.locator(".side.bye").count() == 3
    assert bracket.locator(".side.winner").count() == 5  # three byes and two matches decided
    assert_fits(page)
    if width == "phone":
        # Wider than the phone: it scrolls inside its own box, the page does not.
        assert bracket.evaluate("box => box.scrollWidth > box.clientWidth")
    assert_no_axe_violation(page)
    screenshot(page, f"tournament-knockout-{width}")
    bracket.scroll_into_view_if_needed()
    bracket.screenshot(path=str(_path(f"tournament-bracket-{width}")))

    page.get_by_role("link", name="My games").first.click()
    page.wait_for_url("**/accounts/games/")
    assert page.get_by_text("Spring Cup, round 2").count() >= 1
    screenshot(page, f"tournament-my-games-{width}")


def _path(name: str) -> Any:
    from tests.browser.conftest import SCREENSHOTS

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS / f"{name}.png"


ELEVEN = ("anna", "ben", "chiara", "dainis", "elena", "filippo", "gunta", "hugo", "ilze", "jacopo_bianchi", "kristaps")


def _win_match(tournament: Tournament, table_position: int, winners: list[str]) -> None:
    """Play a match of the first round game by game: ``winners`` names each game's winner."""
    for number, winner in enumerate(winners, start=1):
        played = TournamentGame.objects.select_related("game").get(
            table__round__tournament=tournament, table__round__number=1, table__position=table_position, number=number
        )
        _resign_all_but(played.game, winner)


def test_a_knockout_of_eleven_best_of_three_draws_four_rounds(
    live_server: Any, new_page: Any, screenshot: Any
) -> None:
    players = []
    for number, name in enumerate(ELEVEN):
        user = make_player(name)
        PlayerRating.objects.create(user=user, variant="base", rating=2000 - 50 * number)
        players.append(user)
    tournament = services.tournament_create(
        creator=players[0], name="Autumn Knockout", format="knockout", seats=2, games_per_match=3
    )
    for user in players:
        services.tournament_join(tournament_id=tournament.pk, user=user)
    services.tournament_start(tournament_id=tournament.pk, by=players[0])
    # Sixteen places for eleven: five byes and three matches in the first round.
    matches = {
        table.position: [int(e) for e in table.entries]
        for table in tournament.round_set.get(number=1).tables.all()
        if len(table.entries) == 2
    }
    assert len(matches) == 3
    names = {e.pk: e.user.username for e in tournament.entries.select_related("user")}
    first, second, _third = sorted(matches)
    high, low = (names[e] for e in matches[first])
    _win_match(tournament, first, [high, low, high])  # decided in the third game
    high, low = (names[e] for e in matches[second])
    _win_match(tournament, second, [low, low])

    page = _open(new_page, "desktop")
    page.goto(f"{live_server.url}/tournaments/{tournament.pk}/")
    bracket = page.locator(".bracket-box")
    assert bracket.locator(".bracket-round").count() == 4
    assert bracket.locator(".side.bye").count() == 5
    assert bracket.get_by_role("link", name="Game 3").count() == 1
    assert_fits(page)
    assert_no_axe_violation(page)
    screenshot(page, "tournament-knockout-eleven-desktop")
    bracket.screenshot(path=str(_path("tournament-bracket-eleven-desktop")))

    page.set_viewport_size({"width": 390, "height": 844})
    assert_fits(page)
    assert bracket.evaluate("box => box.scrollWidth > box.clientWidth")
    bracket.evaluate("box => { box.scrollLeft = box.scrollWidth }")
    bracket.screenshot(path=str(_path("tournament-bracket-eleven-phone-scrolled")))
