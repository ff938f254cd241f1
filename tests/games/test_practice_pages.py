"""The pages of practice games and sandboxes: the practice page (a form that starts
a game against bots, and the player's practice games and sandboxes listed apart
from My games), a practice game's and a sandbox's own page, and "Try this
position" (POST /games/<id>/sandbox/) on a game's page and its replay.

alice plays the games and makes the sandboxes; bob is her opponent in the real
game and holds a blind reservation in it (the hidden card the leak test looks
for); charlie stands outside: a stranger to a private game, a spectator of a
public one.
"""

from __future__ import annotations

import re
from typing import Any

import engine
import pytest
from django.test import Client

from games import services
from games.models import Game, Seat
from tests.accounts.pages_helpers import logged_in_client, page_text
from tests.games.game_helpers import play_to_end, start_two_player_game, user_to_move

pytestmark = pytest.mark.django_db

PRACTICE = "/accounts/games/practice/"



def _sandbox_id(answer: Any) -> str:
    assert answer.status_code == 303, answer.content.decode()[:2000]
    match = re.fullmatch(r"/games/([^/]+)/", answer["Location"])
    assert match, answer["Location"]
    return match.group(1)


def _legal(game: Game) -> list[str]:
    game.refresh_from_db()
    return [engine.format_move(m) for m in engine.legal_moves(engine.from_dict(game.state))]


def _offered(html: str) -> list[str]:
    return sorted(set(re.findall(r'<button type="submit" name="move" value="([^"]+)"', html)))


# --- the practice page ------------------------------------------------------------------


def test_the_practice_page_asks_to_log_in(db: None) -> None:
    answer = Client().get(PRACTICE)
    assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/")


def test_the_practice_page_offers_the_bots_in_plain_words(alice: Any) -> None:
    text = page_text(logged_in_client(alice).get(PRACTICE))
    for label in (
        "Search bot — thinks ahead (ismcts)",
        "Greedy bot — looks one move ahead (greedy)",
        "Random bot — any legal move (random)",
    ):
        assert label in text
    assert "Bot 2 (optional)" in text and "Bot 3 (optional)" in text


def test_a_player_starts_a_practice_game_and_is_taken_to_its_page(alice: Any, commit: Any) -> None:
    client = logged_in_client(alice)
    with commit():
        answer = client.post(PRACTICE, {"variant": "marvel", "bot_1": "greedy", "bot_2": "", "bot_3": "random"})
    game = Game.objects.get(pk=_sandbox_id(answer))
    assert game.kind == Game.Kind.PRACTICE and game.variant == "marvel" and game.status == Game.Status.ACTIVE
    assert sorted(s.bot_name for s in game.seats.all()) == ["", "greedy", "random"]
    text = page_text(client.get(answer["Location"]))
    # The bots in seat order, which the deal decides.
    assert re.search(r"Practice game against the (greedy|random) bot and the (greedy|random) bot", text)
    assert "the greedy bot" in text and "the random bot" in text
    assert user_to_move(game) == alice  # the bots moved first if the deal said so


@pytest.mark.parametrize(
    ("form", "words"),
    [
        ({"variant": "base", "bot_1": "deep-blue"}, "Select a valid choice. deep-blue is not one of the available choices."),
        ({"variant": "base", "bot_1": ""}, "This field is required."),
        ({"variant": "chess", "bot_1": "greedy"}, "Select a valid choice. chess is not one of the available choices."),
    ],
)
def test_the_practice_form_names_what_is_wrong(alice: Any, form: dict[str, str], words: str) -> None:
    answer = logged_in_client(alice).post(PRACTICE, form)
    assert answer.status_code == 200
    assert words in page_text(answer)
    assert not Game.objects.filter(kind=Game.Kind.PRACTICE).exists()


def test_a_refusal_of_the_service_is_shown_on_the_form(alice: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from games.errors import InvalidGameSetup

    def refuse(**kwargs: Any) -> Game:
        raise InvalidGameSetup("There is no bot called 'hal'.")

    monkeypatch.setattr(services, "practice_game_create", refuse)
    answer = logged_in_client(alice).post(PRACTICE, {"variant": "base", "bot_1": "greedy"})
    assert answer.status_code == 200 and "There is no bot called 'hal'." in page_text(answer)


def test_practice_games_and_sandboxes_are_listed_apart_and_never_in_my_games(
    alice: Any, bob_reserved_blind: Game, commit: Any
) -> None:
    client = logged_in_client(alice)
    with commit():
        practice_id = _sandbox_id(client.post(PRACTICE, {"variant": "base", "bot_1": "ismcts"}))
        sandbox_id = _sandbox_id(client.post(f"/games/{bob_reserved_blind.pk}/sandbox/", {"bot": ""}))
    html = client.get(PRACTICE).content.decode()
    practice_part = html.split('id="practice-games"', 1)[1].split("</section>", 1)[0]
    sandbox_part = html.split('id="sandboxes"', 1)[1].split("</section>", 1)[0]
    assert f'data-game="{practice_id}"' in practice_part and sandbox_id not in practice_part
    assert f'data-game="{sandbox_id}"' in sandbox_part and practice_id not in sandbox_part
    assert "the search bot" in practice_part
    assert f"from game {bob_reserved_blind.pk}" in sandbox_part and "yourself" in sandbox_part
    my_games = client.get("/accounts/games/").content.decode()
    assert practice_id not in my_games and sandbox_id not in my_games
    assert f'data-game="{bob_reserved_blind.pk}"' in my_games
    assert 'href="/accounts/games/practice/"' in my_games
    assert 'href="/accounts/games/practice/"' in client.get("/accounts/games/new/").content.decode()


def test_a_practice_games_page_has_no_clock_and_no_link_to_revoke(alice: Any, commit: Any) -> None:
    client = logged_in_client(alice)
    with commit():
        game_id = _sandbox_id(client.post(PRACTICE, {"variant": "base", "bot_1": "greedy"}))
    text = page_text(client.get(f"/games/{game_id}/"))
    assert "Practice game against the greedy bot" in text
    assert "Clock:" not in text and "Revoke this link" not in text and "Try this position" not in text
    assert "Resign" in text


def test_the_page_says_it_waits_for_the_bot(alice: Any) -> None:
    # The bot's first move is queued on commit, which never comes here: as if the worker had not played yet.
    game = next(
        game
        for game in (services.practice_game_create(creator=alice, bots=["greedy"]) for _ in range(60))
        if user_to_move(game) != alice
    )
    text = page_text(logged_in_client(alice).get(f"/games/{game.pk}/"))
    assert "Waiting for the greedy bot to move: it plays in a moment" in text


# --- "Try this position" -------------------------------------------------------------------


def test_a_player_of_an_active_game_is_offered_to_try_the_position(alice: Any, bob_reserved_blind: Game) -> None:
    text = page_text(logged_in_client(alice).get(f"/games/{bob_reserved_blind.pk}/"))
    assert "Try this position" in text and "Play every seat yourself" in text and "Against the search bot" in text


def test_a_visitor_of_a_public_game_is_asked_to_log_in_to_try_it(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob, public=True)
    html = Client().get(f"/games/{game.pk}/").content.decode()
    assert f'href="/accounts/login/?next=%2Fgames%2F{game.pk}%2F">Log in to try this position' in html
    assert 'id="try-form"' not in html


def test_a_spectator_of_a_public_game_makes_a_sandbox_taking_the_seat_to_move(
    alice: Any, bob: Any, charlie: Any, commit: Any
) -> None:
    game = start_two_player_game(alice, bob, public=True)
    with commit():
        answer = logged_in_client(charlie).post(f"/games/{game.pk}/sandbox/", {"bot": "greedy", "seat": str(game.to_move)})
    sandbox = Game.objects.get(pk=_sandbox_id(answer))
    assert Seat.objects.get(game=sandbox, user=charlie).index == game.to_move
    assert Seat.objects.filter(game=sandbox, bot_name="greedy").count() == 1


def test_a_stranger_to_a_private_game_gets_a_404(charlie: Any, bob_reserved_blind: Game) -> None:
    answer = logged_in_client(charlie).post(f"/games/{bob_reserved_blind.pk}/sandbox/", {"bot": ""})
    assert answer.status_code == 404
    assert not Game.objects.filter(kind=Game.Kind.SANDBOX).exists()


def test_nobody_logged_in_is_sent_to_log_in(bob_reserved_blind: Game) -> None:
    answer = Client().post(f"/games/{bob_reserved_blind.pk}/sandbox/", {"bot": ""})
    assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/")


def test_an_active_rated_game_offers_no_bot_and_refuses_one_with_the_reason(alice: Any, bob: Any) -> None:
    game = services.game_create(creator=alice, seats=2, invited=[bob], rated=True)
    services.seat_join(game=game, user=bob)
    client = logged_in_client(alice)
    html = client.get(f"/games/{game.pk}/").content.decode()
    assert 'id="try-no-bots"' in html and 'name="bot"' not in html
    answer = client.post(f"/games/{game.pk}/sandbox/", {"bot": "greedy"})
    assert answer.status_code == 400
    text = page_text(answer)
    assert "No sandbox made: This game counts (it is rated or a league's) and is still being played" in text
    assert not Game.objects.filter(kind=Game.Kind.SANDBOX).exists()
    assert _sandbox_id(client.post(f"/games/{game.pk}/sandbox/", {"bot": ""}))


def test_an_unknown_bot_is_refused_on_the_page(alice: Any, bob_reserved_blind: Game) -> None:
    answer = logged_in_client(alice).post(f"/games/{bob_reserved_blind.pk}/sandbox/", {"bot": "hal"})
    assert answer.status_code == 400 and "There is no bot called 'hal'" in page_text(answer)


def test_the_replay_offers_the_position_it_shows(alice: Any, bob: Any, commit: Any) -> None:
    game = start_two_player_game(alice, bob)
    play_to_end(game)
    client = logged_in_client(alice)
    html = client.get(f"/games/{game.pk}/replay/?ply=6").content.decode()
    assert '<input type="hidden" name="ply" value="6">' in html
    assert "Try this position" not in page_text(client.get(f"/games/{game.pk}/replay/"))  # the end: nothing to play
    assert "Try this position" not in page_text(client.get(f"/games/{game.pk}/"))
    with commit():
        answer = client.post(f"/games/{game.pk}/sandbox/", {"ply": "6", "seat": "1", "bot": "random"})
    sandbox = Game.objects.get(pk=_sandbox_id(answer))
    assert sandbox.start_state is not None and engine.from_dict(sandbox.start_state).ply == 6
    assert Seat.objects.get(game=sandbox, user=alice).index == 1


def test_a_ply_that_is_no_plain_number_is_a_400_not_a_server_error(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    play_to_end(game)
    client = logged_in_client(alice)
    for bad in ("²", "٣", "9" * 5000, "-1"):
        assert client.post(f"/games/{game.pk}/sandbox/", {"ply": bad, "bot": ""}).status_code == 400
        assert client.get(f"/games/{game.pk}/replay/", {"ply": bad}).status_code == 400
    assert not Game.objects.filter(kind=Game.Kind.SANDBOX).exists()


def test_the_end_of_a_game_is_refused_on_its_replay(alice: Any, bob: Any) -> None:
    game = start_two_player_game(alice, bob)
    play_to_end(game)
    total = game.moves.count()
    answer = logged_in_client(alice).post(f"/games/{game.pk}/sandbox/", {"ply": str(total), "bot": ""})
    assert answer.status_code == 409
    text = page_text(answer)
    assert f"Replay of game {game.pk}" in text and "No sandbox made: That position is the end of the game" in text


# --- a sandbox's own page -------------------------------------------------------------------


def test_the_sandbox_page_says_where_it_comes_from_and_leaves_the_game_alone(
    alice: Any, bob_reserved_blind: Game
) -> None:
    game = bob_reserved_blind
    version, state = game.version, game.state
    client = logged_in_client(alice)
    sandbox_id = _sandbox_id(client.post(f"/games/{game.pk}/sandbox/", {"bot": ""}))
    html = client.get(f"/games/{sandbox_id}/").content.decode()
    text = page_text(client.get(f"/games/{sandbox_id}/"))
    assert f"Sandbox of game {game.pk}: the cards you could not see there were dealt again" in text
    assert f'href="/games/{game.pk}/"' in html
    assert "Clock:" not in text and "Revoke this link" not in text
    game.refresh_from_db()
    assert (game.version, game.state) == (version, state)


def test_the_hot_seat_to_move_is_shown_and_played_on_the_owners_page(alice: Any, bob: Any, bob_reserved_blind: Game) -> None:
    client = logged_in_client(alice)
    sandbox = Game.objects.get(pk=_sandbox_id(client.post(f"/games/{bob_reserved_blind.pk}/sandbox/", {"bot": ""})))
    own = Seat.objects.get(game=sandbox, user=alice).index
    assert own is not None and sandbox.to_move == own
    text = page_text(client.get(f"/games/{sandbox.pk}/"))
    assert f"You are playing seat {own + 1} (your own seat)" in text
    move = _legal(sandbox)[0]
    client.post(f"/games/{sandbox.pk}/", {"action": "move", "move": move, "version": str(sandbox.version)})
    sandbox.refresh_from_db()
    hot = sandbox.to_move
    assert hot is not None and hot != own
    answer = client.get(f"/games/{sandbox.pk}/")
    assert f"You are playing seat {hot + 1} (hot seat)" in page_text(answer)
    html = answer.content.decode()
    assert _offered(html) == sorted(_legal(sandbox))
    # The hot seat's own area is drawn first, its blind reservation face up to it.
    blind = next(card for card, is_blind in sandbox.state["seats"][hot]["reserved"] if is_blind)  # type: ignore[index]
    assert f'data-card="{blind}"' in html
    played = client.post(f"/games/{sandbox.pk}/", {"action": "move", "move": _legal(sandbox)[0], "version": str(sandbox.version)})
    assert played.status_code == 303
    sandbox.refresh_from_db()
    assert sandbox.to_move == own and sandbox.moves.filter(seat=hot).count() == 1


# --- leaks -------------------------------------------------------------------------------------


def _names(html: str, card: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(card)}(?![\w-])", html) is not None


def test_the_sandbox_page_never_names_the_sources_hidden_cards(
    alice: Any, bob: Any, bob_reserved_blind: Game
) -> None:
    """bob's blind reservation and the real decks stay hidden: the sandbox's page names
    only what alice saw, and what the sandbox dealt itself (its own card for bob's
    blind reservation, face up once alice plays bob's hot seat)."""
    game = bob_reserved_blind
    assert game.state is not None
    bob_index = Seat.objects.get(game=game, user=bob).index
    assert bob_index is not None
    real_blind = next(card for card, is_blind in game.state["seats"][bob_index]["reserved"] if is_blind)
    hidden = {card for deck in game.state["decks"] for card in deck} | {real_blind}
    client = logged_in_client(alice)
    for _ in range(6):
        sandbox = Game.objects.get(pk=_sandbox_id(client.post(f"/games/{game.pk}/sandbox/", {"bot": ""})))
        assert sandbox.state is not None
        html = client.get(f"/games/{sandbox.pk}/").content.decode()
        assert not [card for card in hidden if _names(html, card)], "alice's own view names no hidden card"
        # alice plays her turn; the page is now drawn for bob's hot seat, whose blind card is the sandbox's own.
        client.post(f"/games/{sandbox.pk}/", {"action": "move", "move": "take WUG", "version": str(sandbox.version)})
        sandbox.refresh_from_db()
        assert sandbox.state is not None
        dealt = next(card for card, is_blind in sandbox.state["seats"][bob_index]["reserved"] if is_blind)
        html = client.get(f"/games/{sandbox.pk}/").content.decode()
        assert _names(html, dealt)
        named = {card for card in hidden if _names(html, card)}
        assert named <= {dealt}, f"the sandbox's page names hidden cards of the source: {named - {dealt}}"
        if dealt != real_blind:
            assert not _names(html, real_blind)
