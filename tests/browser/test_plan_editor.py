"""The plan editor on the game page: the seat that waits writes a plan in its box,
stores it (the form posts back to the page), sees it drawn again, and the
opponent's move plays it. Its screenshot is the editor with a stored plan."""

from __future__ import annotations

from typing import Any

from games import links, services
from games.models import Game, Move, Seat
from tests.games.game_helpers import make_player

PLAN = "if reserve deck1 then take white blue green\n  if any then reserve deck 2\nif take WUG then take RR"


def _path(seat: Seat) -> str:
    url = links.seat_link_url(seat=seat)
    return url[url.index("/games/") :]


def test_the_waiting_player_stores_a_plan_on_the_page_and_the_opponents_move_plays_it(
    live_server: Any, new_page: Any, screenshot: Any
) -> None:
    alice, bob = make_player("alice"), make_player("bob")
    game = services.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    services.seat_join(game=game, user=bob)
    game.refresh_from_db()
    mover = Seat.objects.get(game=game, index=game.to_move)
    waiting = Seat.objects.exclude(pk=mover.pk).get(game=game)

    page = new_page()
    page.goto(live_server.url + _path(waiting))
    page.fill("#plan-text", PLAN)
    with page.expect_navigation():
        page.click("#plan-store")
    assert "Your plan is stored" in page.locator("main").inner_text()
    assert page.input_value("#plan-text") == (
        "if reserve from deck 1 then take white, blue and green\n  if any then reserve from deck 2\n"
        "if take white, blue and green then take 2 red"
    )
    page.locator("#plan").scroll_into_view_if_needed()
    screenshot(page, "game-page-plan-editor")

    services.move_submit(game_id=game.pk, user=mover.user, text="reserve deck1", expected_version=game.version)
    assert Move.objects.get(game=game, ply=1).text == "take WUG"
    page.goto(live_server.url + f"/games/{game.pk}/")
    text = page.locator("#plan").inner_text()
    assert "After reserve from deck 1 your plan played take white, blue and green." in text
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE


def test_the_plan_editor_fits_a_phone_in_latvian(live_server: Any, new_page: Any, screenshot: Any) -> None:
    """The editor's words in the player's language, and nothing wider than a 390 px phone."""
    ann, ben = make_player("ann"), make_player("ben")
    game = services.game_create(creator=ann, variant="base", seats=2, invited=[ben])
    services.seat_join(game=game, user=ben)
    game.refresh_from_db()
    waiting = Seat.objects.exclude(index=game.to_move).get(game=game)
    waiting.user.player.language = "lv"
    waiting.user.player.save(update_fields=["language"])
    services.plan_store(
        game_id=game.pk, user=waiting.user, expected_version=game.version,
        lines=[{"if": "reserve deck1", "then": "take WUG", "next": [{"if": "any", "then": "take RR"}]}],
    )
    phone = new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    phone.goto(live_server.url + _path(waiting))
    text = phone.locator("#plan").inner_text()
    assert "Tavs plāns" in text and "Saglabāt plānu" in text and "Dzēst plānu" in text
    assert phone.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0
    phone.locator("#plan").scroll_into_view_if_needed()
    screenshot(phone, "game-page-plan-editor-phone-lv")
