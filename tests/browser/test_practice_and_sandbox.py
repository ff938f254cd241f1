"""Practice games and sandboxes played to the end on the game page, in a real browser.

- alice starts a base game against the greedy bot from the practice page and plays
  it out by clicking, the bot answering each of her moves before her page is drawn
  again (the tests run the bots' task inline; on the site a worker plays it and the
  page's poll redraws it).
- From an active game against bob, alice clicks "Try this position", plays every
  seat herself on one page (hot seats: the board is drawn for the seat to move), and
  the real game is the same at the end as before.
- charlie, a spectator of a finished public game, tries a position from its replay
  against the greedy bot and plays it out.
- alice, with PRACTICE_GAMES_ACTIVE_PER_ACCOUNT practice games in play, asks for one
  more and is told why not, above the form.

The human's moves are the greedy bot's choice (``engine.bots``) among the moves the
page offers, from the view of the seat to move, so that the games are short.
"""

from __future__ import annotations

from typing import Any

import engine
import pytest
from engine.bots import make_bot
from playwright.sync_api import expect

from games import services
from games.models import Game, Seat
from tests.browser.drawn import wait_for_drawn
from tests.browser.game_page_line import Turn, greedy_line
from tests.browser.test_game_page_play import click_on_board, settled_content
from tests.games.game_helpers import make_player

PASSWORD = "a long and unusual passphrase"
# A deal whose greedy line is among the shortest of the first 300 seeds (48 turns):
# `python -m tests.browser.game_page_line` searches them the same way.
SEED = 145
# The real game is played this far before alice tries its position: a sandbox of ~30 turns.
SANDBOX_FROM_PLY = 18


# The moments test_game_page_play.py saves as screenshots, already seen here: none is saved again.
_NO_SHOTS = ("gold", "return", "noble", "confirm")


def _player(name: str) -> Any:
    user = make_player(name)
    user.set_password(PASSWORD)
    user.save()
    return user


def _log_in(page: Any, base: str, username: str) -> None:
    page.goto(base + "/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/accounts/games/")


def _offered(page: Any) -> list[str]:
    values: list[str] = page.eval_on_selector_all(
        "#move-list button[data-move]", "buttons => buttons.map(b => b.dataset.move)"
    )
    return values


def _play_one(page: Any, game: Game, chooser: Any) -> int:
    """Plays, by clicking its button and confirming, the move ``chooser`` picks among
    the page's for the seat to move; returns that seat."""
    game.refresh_from_db()
    state = engine.from_dict(game.state)
    seat = engine.to_move(state)
    assert seat is not None
    offered = _offered(page)
    assert sorted(offered) == sorted(engine.format_move(m) for m in engine.legal_moves(state))
    text = chooser.choose(engine.observe(state, seat), offered)
    # On the board, as a player does: the card, deck or piles, then the move, then its confirmation.
    click_on_board(page, Turn(seat, text, tuple(offered)), lambda *shot: None, set(_NO_SHOTS))
    assert page.locator("#page-error").count() == 0, page.locator("#page-error").inner_text()
    return seat


def _play_through(page: Any, game: Game, *, human: set[int], limit: int = 200) -> tuple[int, set[int]]:
    """Plays ``game`` to its end on ``page`` for the seats in ``human``, checking after each
    move that the page is drawn at the game's version and that each bot answered.
    Returns how many moves were clicked and the seats they were played for."""
    chooser = make_bot("greedy", 1)
    clicked, seats = 0, set()
    for _ in range(limit):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        wait_for_drawn(page, game.version)
        to_move = engine.to_move(engine.from_dict(game.state))
        assert to_move in human, f"a bot is still to move at version {game.version}"
        before = game.moves.count()
        seats.add(_play_one(page, game, chooser))
        clicked += 1
        game.refresh_from_db()
        if game.status == Game.Status.ACTIVE:
            # Every bot between this seat and the next human one has moved before the page was drawn.
            after = engine.to_move(engine.from_dict(game.state))
            assert after in human, f"the bot did not answer move {before + 1}"
            assert game.moves.count() >= before + 1
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED, "the game did not end"
    return clicked, seats


def test_a_player_starts_a_practice_game_and_plays_it_to_the_end_against_the_bot(
    live_server: Any, new_page: Any, screenshot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("games.services.lifecycle.secrets.randbits", lambda bits: SEED)
    _player("alice")
    base = live_server.url
    page = new_page(viewport={"width": 1280, "height": 900})
    _log_in(page, base, "alice")
    page.click("text=Practice against bots")
    page.wait_for_url("**/accounts/games/practice/")
    page.get_by_label("Splendor", exact=True).check()
    page.select_option("#id_bot_1", "greedy")
    screenshot(page, "practice-new")
    with page.expect_navigation():
        page.get_by_role("button", name="Start the practice game").click()
    game = Game.objects.get(kind=Game.Kind.PRACTICE)
    assert page.url == f"{base}/games/{game.pk}/"
    assert page.locator("#practice-heading").inner_text() == "Practice game against the greedy bot"
    content = settled_content(page)
    assert "Clock:" not in content and "Revoke this link" not in content

    human = Seat.objects.get(game=game, bot_name="").index
    assert human is not None
    clicked = 0
    chooser = make_bot("greedy", 1)
    for _ in range(200):
        game.refresh_from_db()
        if game.status != Game.Status.ACTIVE:
            break
        wait_for_drawn(page, game.version)
        before = game.moves.count()
        _play_one(page, game, chooser)
        clicked += 1
        game.refresh_from_db()
        if game.status == Game.Status.ACTIVE:
            assert game.to_move == human and game.moves.count() == before + 2, "the bot answered the move"
            assert page.locator("#game").get_attribute("data-version") == str(game.version)
            last = page.locator(".last-moves li").last.inner_text()
            assert last.startswith(f"{before + 2}. Greedy bot:"), last
        if clicked == 6:
            screenshot(page, "practice-game")
    assert game.status == Game.Status.FINISHED and clicked >= 15
    page.goto(page.url)
    assert "Game over:" in settled_content(page)
    screenshot(page, "practice-game-over")
    page.goto(base + "/accounts/games/practice/")
    row = page.locator(f'tr[data-game="{game.pk}"]')
    assert row.count() == 1 and "Finished" in row.inner_text()


def _real_game(alice: Any, bob: Any, *, public: bool = False) -> Game:
    game = services.game_create(creator=alice, seats=2, invited=[bob], public=public)
    services.seat_join(game=game, user=bob)
    game.refresh_from_db()
    return game


def _play_line(game: Game, moves: int | None = None) -> None:
    """The greedy line of SEED, through move_submit, for ``moves`` turns (all: to the end)."""
    for turn in greedy_line(SEED)[:moves]:
        game.refresh_from_db()
        user = Seat.objects.get(game=game, index=turn.seat).user
        services.move_submit(game_id=game.pk, user=user, text=turn.text, expected_version=game.version)
    game.refresh_from_db()


def test_a_player_tries_the_position_of_her_game_and_plays_every_seat_of_the_sandbox(
    live_server: Any, new_page: Any, screenshot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("games.services.lifecycle.secrets.randbits", lambda bits: SEED)
    alice, bob = _player("alice"), _player("bob")
    game = _real_game(alice, bob)
    _play_line(game, SANDBOX_FROM_PLY)
    version, state = game.version, game.state
    base = live_server.url
    page = new_page(viewport={"width": 1280, "height": 900})
    _log_in(page, base, "alice")
    page.goto(f"{base}/games/{game.pk}/")
    page.select_option("#try-bot", label="Play every seat yourself")
    screenshot(page, "sandbox-try")
    with page.expect_navigation():
        page.click("#try-submit")
    sandbox = Game.objects.get(kind=Game.Kind.SANDBOX)
    assert page.url == f"{base}/games/{sandbox.pk}/" and sandbox.sandbox_of_id == game.pk
    heading = page.locator("#practice-heading").inner_text()
    assert heading == f"Sandbox of game {game.pk}: the cards you could not see there were dealt again"
    own = Seat.objects.get(game=sandbox, user=alice).index
    assert own is not None

    chooser = make_bot("greedy", 1)
    seats: set[int] = set()
    shot = False
    for _ in range(200):
        sandbox.refresh_from_db()
        if sandbox.status != Game.Status.ACTIVE:
            break
        wait_for_drawn(page, sandbox.version)
        to_move = engine.to_move(engine.from_dict(sandbox.state))
        assert to_move is not None
        line = page.locator("#hot-seat-line").inner_text()
        expected = "(hot seat)" if to_move != own else "(your own seat)"
        assert line.startswith(f"You are playing seat {to_move + 1} {expected}"), line
        if to_move != own and not shot:
            screenshot(page, "sandbox-hot-seat")
            shot = True
        seats.add(_play_one(page, sandbox, chooser))
    sandbox.refresh_from_db()
    assert sandbox.status == Game.Status.FINISHED and seats == {0, 1} and shot
    page.goto(page.url)
    assert "Game over:" in settled_content(page)
    screenshot(page, "sandbox-over")
    game.refresh_from_db()
    assert (game.version, game.state, game.status) == (version, state, Game.Status.ACTIVE)


def test_a_spectator_tries_a_position_of_a_finished_game_from_its_replay_against_the_bot(
    live_server: Any, new_page: Any, screenshot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("games.services.lifecycle.secrets.randbits", lambda bits: SEED)
    alice, bob = _player("alice"), _player("bob")
    charlie = _player("charlie")
    game = _real_game(alice, bob, public=True)
    _play_line(game)
    assert game.status == Game.Status.FINISHED
    total = game.moves.count()
    ply = total - 12
    base = live_server.url
    page = new_page(viewport={"width": 1280, "height": 900})
    _log_in(page, base, "charlie")
    page.goto(f"{base}/games/{game.pk}/replay/?ply={ply}")
    page.select_option("#try-bot", label="Against the greedy bot")
    screenshot(page, "sandbox-replay-try")
    with page.expect_navigation():
        page.click("#try-submit")
    sandbox = Game.objects.get(kind=Game.Kind.SANDBOX)
    assert page.url == f"{base}/games/{sandbox.pk}/"
    assert sandbox.start_state is not None and engine.from_dict(sandbox.start_state).ply == ply
    mine = Seat.objects.get(game=sandbox, user=charlie).index
    assert mine is not None
    assert Seat.objects.filter(game=sandbox, bot_name="greedy").count() == 1
    clicked, seats = _play_through(page, sandbox, human={mine})
    assert seats == {mine} and clicked >= 3
    page.goto(page.url)
    assert "Game over:" in settled_content(page)


def test_a_player_with_the_most_practice_games_in_play_is_told_why_a_sixth_is_refused(
    live_server: Any, new_page: Any, screenshot: Any, settings: Any
) -> None:
    settings.PRACTICE_GAMES_ACTIVE_PER_ACCOUNT = 5
    alice = _player("alice")
    for _ in range(5):
        services.practice_game_create(creator=alice, variant="base", bots=["random"])
    assert Game.objects.filter(kind=Game.Kind.PRACTICE, status=Game.Status.ACTIVE).count() == 5
    base = live_server.url
    page = new_page(viewport={"width": 1280, "height": 900})
    _log_in(page, base, "alice")
    page.goto(base + "/accounts/games/practice/")
    page.get_by_label("Splendor", exact=True).check()
    page.select_option("#id_bot_1", "greedy")
    page.get_by_role("button", name="Start the practice game").click()
    refusal = page.locator(".errorlist, .form-errors, [role=alert]").first
    expect(refusal).to_be_visible()
    assert "5" in refusal.inner_text(), refusal.inner_text()
    screenshot(page, "practice-limit-refused")
    assert Game.objects.filter(kind=Game.Kind.PRACTICE).count() == 5
