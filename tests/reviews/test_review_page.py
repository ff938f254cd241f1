"""The review on the replay page (reviews.pages): the button that asks for it (a
plain form), the progress while the bot searches, then the graph (a line per seat,
each point a link to its position), the same numbers in a table, and the costliest
moves with the bot's move and Try this position; in the reader's language.

Personas: alice and bob played the game; charlie watches it (it is public) and is
signed in; a visitor who is not signed in only reads."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.test import Client

from games.models import Game
from games.words import move_in_words
from reviews.models import GameReview
from reviews.selectors import review_moves
from tests.games.game_helpers import start_two_player_game
from tests.reviews.review_helpers import Sent, finished_game

pytestmark = pytest.mark.django_db


def signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def replay(client: Client, game: Game, query: str = "", **headers: Any) -> str:
    answer = client.get(f"/games/{game.pk}/replay/{query}", **headers)
    assert answer.status_code == 200
    return answer.content.decode()


def review_section(page: str) -> str:
    match = re.search(r'<section id="review".*?</section>', page, re.S)
    assert match is not None
    return match.group(0)


@pytest.fixture
def over(alice: Any, bob: Any) -> Game:
    return finished_game(alice, [bob], public=True)


@pytest.fixture
def reviewed(over: Game, alice: Any, commit: Any) -> Game:
    with commit():
        answer = signed_in(alice).post(f"/games/{over.pk}/review/", {"ply": "3"})
    assert answer.status_code == 302
    assert answer["Location"] == f"/games/{over.pk}/replay/?ply=3#review"
    assert GameReview.objects.get(game=over).status == GameReview.Status.DONE
    return over


def test_the_replay_of_a_game_over_offers_a_button_that_asks_for_its_review(over: Game, charlie: Any) -> None:
    panel = review_section(replay(signed_in(charlie), over))
    assert 'action="/games/%s/review/"' % over.pk in panel and 'method="post"' in panel
    assert "Review this game" in panel and "csrfmiddlewaretoken" in panel


def test_a_visitor_who_is_not_signed_in_is_asked_to_log_in(over: Game, client: Client) -> None:
    panel = review_section(replay(client, over))
    assert "Review this game" not in panel and "/accounts/login/?next=" in panel
    answer = client.post(f"/games/{over.pk}/review/")
    assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/")
    assert not GameReview.objects.exists()


def test_an_active_games_replay_has_no_review(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    assert 'id="review"' not in replay(signed_in(alice), game)


def test_a_pending_review_says_how_far_the_bot_has_gone(over: Game, alice: Any, commit: Any, sent: Sent) -> None:
    with commit():
        signed_in(alice).post(f"/games/{over.pk}/review/")
    with commit():
        sent.run_next()
    panel = review_section(replay(signed_in(alice), over))
    total = over.moves.count()
    assert f"The search bot is reviewing this game: 1 of {total} moves done." in panel
    assert "Review this game" not in panel


def test_a_done_review_draws_a_line_per_seat_each_point_a_link_to_its_position(reviewed: Game, client: Client) -> None:
    panel = review_section(replay(client, reviewed, "?ply=5"))
    total = reviewed.moves.count()
    lines = re.findall(r'<polyline points="([^"]+)" fill="none" stroke="(#[0-9a-f]{6})" stroke-width="2.5"( stroke-dasharray="[^"]+")?', panel)
    assert len(lines) == 2
    assert len({colour for _, colour, _ in lines}) == 2 and len({dash for _, _, dash in lines}) == 2
    assert all(len(points.split()) == total + 1 for points, _, _ in lines)
    links = re.findall(rf'<a href="/games/{reviewed.pk}/replay/\?ply=(\d+)#board" tabindex="-1" class="review-point">', panel)
    assert [int(k) for k in links] == list(range(total + 1))
    assert "Moves played" in panel and "Chance of winning" in panel  # the axes
    assert "Alice" in panel and "Bob" in panel  # the legend


def test_the_table_gives_every_seats_chance_after_each_move(reviewed: Game, client: Client) -> None:
    panel = review_section(replay(client, reviewed))
    table = re.search(r"<table>.*?</table>", panel, re.S)
    assert table is not None
    rows = re.findall(r"<tr><th scope=\"row\">(.*?)</tr>", table.group(0), re.S)
    assert len(rows) == reviewed.moves.count() + 1  # the deal, then each move
    assert "Alice's chance" in unescape(table.group(0)) and "Bob's chance" in unescape(table.group(0))
    for row in rows:
        chances = [int(value) for value in re.findall(r'<td class="num">(\d+)%</td>', row)]
        assert len(chances) == 2 and abs(sum(chances) - 100) <= 1


def test_the_costliest_moves_name_the_bots_move_and_offer_the_position_in_a_sandbox(
    over: Game, alice: Any, charlie: Any, commit: Any, settings: Any
) -> None:
    settings.REVIEW_MISTAKE_DROP = 1e-9  # every move that cost anything is a mistake
    with commit():
        signed_in(alice).post(f"/games/{over.pk}/review/")
    client = signed_in(charlie)
    panel = review_section(replay(client, over))
    items = re.findall(r'<li id="review-move-(\d+)">(.*?)</li>', panel, re.S)
    assert items, "some move cost its mover something"
    for number, item in items:
        assert "Mistake" in item
        assert "The bot would have played:" in item or "The bot would have played the same move." in item
        assert f'action="/games/{over.pk}/sandbox/"' in item
        assert f'<input type="hidden" name="ply" value="{int(number) - 1}">' in item
    number, item = items[0]
    seat = re.search(r'name="seat" value="(\d)"', item)
    assert seat is not None
    answer = client.post(f"/games/{over.pk}/sandbox/", {"ply": str(int(number) - 1), "seat": seat.group(1), "bot": "greedy"})
    assert answer.status_code in (302, 303)
    assert Game.objects.filter(kind=Game.Kind.SANDBOX, sandbox_of=over).count() == 1


def moves_list(page: str) -> list[str]:
    """The items of the replay's own list of moves (not the review's panel)."""
    match = re.search(r'<section aria-labelledby="moves-heading".*?</section>', page, re.S)
    assert match is not None
    return re.findall(r"<li[ >].*?</li>", match.group(0), re.S)


def test_the_replays_list_of_moves_marks_each_mistake_with_the_bots_move(
    over: Game, alice: Any, charlie: Any, commit: Any, settings: Any
) -> None:
    settings.REVIEW_MISTAKE_DROP = 1e-9  # every move that cost anything is a mistake
    with commit():
        signed_in(alice).post(f"/games/{over.pk}/review/")
    mistakes = {move["ply"]: move for move in review_moves(GameReview.objects.get(game=over)) if move["mistake"]}
    assert mistakes, "some move cost its mover something"
    items = moves_list(replay(signed_in(charlie), over))
    assert len(items) == over.moves.count()
    for ply, item in enumerate(items):
        mark = re.search(r'<span class="move-mark"><a href="#review-move-(\d+)"[^>]*>Mistake, −(\d+)%</a>(.*?)</span>', item, re.S)
        if ply not in mistakes:
            assert mark is None, (ply, item)
            continue
        assert mark is not None, (ply, item)
        assert int(mark.group(1)) == ply + 1
        assert int(mark.group(2)) == round(100 * mistakes[ply]["drop"])
        best = mistakes[ply]["best"]
        assert (f"(the bot: {unescape(move_in_words(best, over.variant))})" in unescape(mark.group(3))) if best else mark.group(3) == ""


def test_no_review_no_mark_in_the_list_of_moves(over: Game, charlie: Any) -> None:
    items = moves_list(replay(signed_in(charlie), over))
    assert items and not any("move-mark" in item for item in items)


def test_a_refusal_is_shown_in_the_panel(alice: Any, bob: Any, commit: Any, settings: Any) -> None:
    settings.REVIEWS_PER_DAY = 1
    first, second = finished_game(alice, [bob]), finished_game(alice, [bob])
    client = signed_in(alice)
    with commit():
        client.post(f"/games/{first.pk}/review/")
    answer = client.post(f"/games/{second.pk}/review/", follow=True)
    panel = review_section(answer.content.decode())
    assert 'role="alert"' in panel and "at most 1 review a day" in panel
    assert not GameReview.objects.filter(game=second).exists()


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("it", ("Analisi del bot di ricerca", "Probabilità di vittoria", "Mosse giocate", "Le probabilità in una tabella")),
        ("lv", ("Meklēšanas bota analīze", "Uzvaras iespēja", "Izdarītie gājieni", "Iespējas tabulā")),
    ],
)
def test_the_panel_speaks_the_readers_language(reviewed: Game, client: Client, language: str, words: tuple[str, ...]) -> None:
    panel = review_section(replay(client, reviewed, HTTP_ACCEPT_LANGUAGE=language))
    for word in words:
        assert word in panel, word
    assert "Review by the search bot" not in panel
