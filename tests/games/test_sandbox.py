"""Sandboxes: ``POST /api/v1/games/{id}/sandbox/`` makes a private game of the
caller's from another game's position, the cards the caller cannot see dealt
again at random, and never touches the game it came from.

alice and bob play the source game; bob holds a blind reservation in it (the
hidden card the leak tests look for). charlie stands outside it: a stranger to a
private game, a spectator of a public one.
"""

from __future__ import annotations

import json
import random
from typing import Any

import engine
import pytest
from engine.bots import make_bot
from tests.games.game_helpers import client_for, play_to_end, start_two_player_game
from tests.games.test_games_api import assert_problem

from games import services
from games.extensions import GameExtension
from games.models import BotTurn, Game, GameEvent, Seat
from games.practice import sandbox as practice


def _seat_index(game: Game, user: Any) -> int:
    index = Seat.objects.get(game=game, user=user).index
    assert index is not None
    return index


def _sandbox(client: Any, game: Game, commit: Any, **body: Any) -> Any:
    with commit():
        return client.post(f"/api/v1/games/{game.pk}/sandbox/", body, format="json")


def test_a_player_makes_a_sandbox_from_their_seat(alice: Any, bob_reserved_blind: Game, commit: Any) -> None:
    game = bob_reserved_blind
    answer = _sandbox(client_for(alice), game, commit)
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert answer["Location"] == f"/api/v1/games/{body['id']}/"
    assert body["kind"] == "sandbox" and body["sandbox_of"] == game.pk and body["status"] == "active"
    assert body["your_seat"] == _seat_index(game, alice)
    assert body["public"] is False and body["rated"] is False and body["deadline_at"] is None
    assert body["seed_commitment"] is None
    # The position is the game's, as alice sees it.
    source_view = client_for(alice).get(f"/api/v1/games/{game.pk}/").json()["board"]
    assert body["board"]["market"] == source_view["market"]
    assert body["board"]["seats"] == source_view["seats"]


def test_the_source_game_never_changes_and_nobody_is_told(alice: Any, bob_reserved_blind: Game, commit: Any) -> None:
    game = bob_reserved_blind
    game.refresh_from_db()
    version, state, events = game.version, game.state, GameEvent.objects.filter(game=game).count()
    _sandbox(client_for(alice), game, commit, bots=["greedy"])
    game.refresh_from_db()
    assert (game.version, game.state) == (version, state)
    assert GameEvent.objects.filter(game=game).count() == events


def test_a_stranger_cannot_make_a_sandbox_of_a_private_game(charlie: Any, bob_reserved_blind: Game, commit: Any) -> None:
    assert_problem(_sandbox(client_for(charlie), bob_reserved_blind, commit), 404, "game_not_found")


def test_anyone_makes_a_sandbox_of_a_public_finished_game_from_the_spectator_view(
    alice: Any, bob: Any, charlie: Any, commit: Any
) -> None:
    game = start_two_player_game(alice, bob, public=True)
    play_to_end(game)
    answer = _sandbox(client_for(charlie), game, commit, ply=6, seat=1)
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["your_seat"] == 1
    sandbox = Game.objects.get(pk=body["id"])
    assert Seat.objects.get(game=sandbox, index=1).user == charlie
    assert engine.from_dict(sandbox.start_state).ply == 6


def test_the_end_of_a_game_is_no_position_to_play_from(alice: Any, bob: Any, commit: Any) -> None:
    game = start_two_player_game(alice, bob)
    play_to_end(game)
    assert_problem(_sandbox(client_for(alice), game, commit), 409, "sandbox_not_available")


def test_a_game_that_has_not_started_has_no_sandbox(alice: Any, commit: Any) -> None:
    game = services.game_create(creator=alice, seats=2)
    assert_problem(_sandbox(client_for(alice), game, commit), 409, "sandbox_not_available")


def test_a_moderator_cannot_make_a_sandbox_of_a_private_game_in_play(
    bob_reserved_blind: Game, dave: Any, commit: Any
) -> None:
    dave.is_superuser = True
    dave.save()
    assert_problem(_sandbox(client_for(dave), bob_reserved_blind, commit), 403, "sandbox_not_allowed")


def test_a_player_of_an_active_game_plays_their_own_seat(alice: Any, bob_reserved_blind: Game, commit: Any) -> None:
    other = 1 - _seat_index(bob_reserved_blind, alice)
    assert_problem(_sandbox(client_for(alice), bob_reserved_blind, commit, seat=other), 400, "invalid_game_setup")


def test_an_active_rated_game_has_no_bots_in_its_sandbox(alice: Any, bob: Any, commit: Any) -> None:
    game = services.game_create(creator=alice, seats=2, invited=[bob], rated=True)
    services.seat_join(game=game, user=bob)
    body = assert_problem(_sandbox(client_for(alice), game, commit, bots=["greedy"]), 400, "sandbox_bots_not_allowed")
    assert "rated" in body["detail"]
    assert _sandbox(client_for(alice), game, commit).status_code == 201


def test_a_sandbox_of_the_sandbox_of_an_active_rated_game_has_no_bots_either(
    alice: Any, bob: Any, commit: Any
) -> None:
    """Else a hot-seat sandbox would be a door to a bot that plays the live position."""
    game = services.game_create(creator=alice, seats=2, invited=[bob], rated=True)
    services.seat_join(game=game, user=bob)
    first = _sandbox(client_for(alice), game, commit).json()
    second = _sandbox(client_for(alice), Game.objects.get(pk=first["id"]), commit).json()
    for source in (first["id"], second["id"]):
        assert_problem(_sandbox(client_for(alice), Game.objects.get(pk=source), commit, bots=["ismcts"]),
                       400, "sandbox_bots_not_allowed")
    play_to_end(Game.objects.get(pk=game.pk))  # once the rated game is over, bots are welcome
    assert _sandbox(client_for(alice), Game.objects.get(pk=second["id"]), commit, bots=["greedy"]).status_code == 201


def test_a_bot_move_refused_because_the_game_moved_on_leaves_the_turn_in_line(
    alice: Any, bob_reserved_blind: Game, commit: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from games import errors
    from games.services import bot_turns

    body = _sandbox(client_for(alice), bob_reserved_blind, commit).json()
    game = Game.objects.get(pk=body["id"])
    seat = Seat.objects.get(game=game, index=game.to_move)
    Seat.objects.filter(pk=seat.pk).update(bot_name="greedy")
    assert services.bot_turn_wake(game_id=game.pk) is True
    assert BotTurn.objects.filter(game=game).exists()

    def stale(**_: Any) -> None:
        raise errors.StaleVersion("the game moved on")

    monkeypatch.setattr(bot_turns, "move_submit", stale)
    assert services.bot_turns_dispatch() == services.BotTurnPlayed(game_id=game.pk, played=False)
    turn = BotTurn.objects.get(game=game)
    assert turn.claimed_until is None  # free for the next run, at the back of the line


class InALeague(GameExtension):
    name = "in-a-league"

    def counts_in_competition(self, game_id: str) -> bool:
        return True


def test_an_active_league_game_has_no_bots_in_its_sandbox(
    alice: Any, bob_reserved_blind: Game, commit: Any, settings: Any, game_extensions: Any
) -> None:
    game_extensions.add(InALeague())
    assert_problem(_sandbox(client_for(alice), bob_reserved_blind, commit, bots=["ismcts"]), 400, "sandbox_bots_not_allowed")


def test_a_finished_rated_game_may_have_bots_in_its_sandbox(alice: Any, bob: Any, commit: Any) -> None:
    game = services.game_create(creator=alice, seats=2, invited=[bob], rated=True)
    services.seat_join(game=game, user=bob)
    play_to_end(game)
    assert _sandbox(client_for(alice), game, commit, bots=["greedy"], ply=4).status_code == 201


def test_the_bot_replies_in_a_sandbox(alice: Any, bob_reserved_blind: Game, commit: Any) -> None:
    client = client_for(alice)
    body = _sandbox(client, bob_reserved_blind, commit, bots=["greedy"]).json()
    assert body["to_move"] == body["your_seat"]
    moves = client.get(f"/api/v1/games/{body['id']}/legal-moves/").json()["moves"]
    with commit():
        played = client.post(
            f"/api/v1/games/{body['id']}/moves/", {"move": moves[0], "expected_version": body["version"]}, format="json"
        )
    assert played.status_code == 201
    after = client.get(f"/api/v1/games/{body['id']}/").json()
    assert after["to_move"] == after["your_seat"]
    assert after["version"] > played.json()["game"]["version"]


def test_the_owner_plays_every_seat_of_a_hot_seat_sandbox(alice: Any, bob_reserved_blind: Game, commit: Any) -> None:
    client = client_for(alice)
    body = _sandbox(client, bob_reserved_blind, commit).json()
    own = body["your_seat"]
    for _ in range(4):
        game = client.get(f"/api/v1/games/{body['id']}/").json()
        legal = client.get(f"/api/v1/games/{body['id']}/legal-moves/").json()
        assert legal["moves"], "the owner has the moves of whichever seat is to move"
        with commit():
            played = client.post(
                f"/api/v1/games/{body['id']}/moves/",
                {"move": legal["moves"][0], "expected_version": game["version"]},
                format="json",
            )
        assert played.status_code == 201, played.content
    seats = {move["seat"] for move in client.get(f"/api/v1/games/{body['id']}/moves/").json()}
    assert seats == {0, 1}
    assert own in seats


def test_nobody_but_the_owner_sees_or_lists_a_sandbox(
    alice: Any, bob: Any, bob_reserved_blind: Game, commit: Any
) -> None:
    sandbox_id = _sandbox(client_for(alice), bob_reserved_blind, commit).json()["id"]
    assert client_for(bob).get(f"/api/v1/games/{sandbox_id}/").status_code == 404
    assert client_for(bob).get("/api/v1/games/?kind=sandbox").json()["results"] == []
    assert [g["id"] for g in client_for(alice).get("/api/v1/games/?kind=sandbox").json()["results"]] == [sandbox_id]
    assert sandbox_id not in {g["id"] for g in client_for(alice).get("/api/v1/games/?mine=1").json()["results"]}


def test_a_sandbox_rebuilds_from_its_start_and_its_moves(alice: Any, bob_reserved_blind: Game, commit: Any) -> None:
    from games import selectors

    client = client_for(alice)
    body = _sandbox(client, bob_reserved_blind, commit, bots=["random"]).json()
    for _ in range(3):
        game = client.get(f"/api/v1/games/{body['id']}/").json()
        moves = client.get(f"/api/v1/games/{body['id']}/legal-moves/").json()["moves"]
        with commit():
            client.post(f"/api/v1/games/{body['id']}/moves/", {"move": moves[-1], "expected_version": game["version"]}, format="json")
    sandbox = Game.objects.get(pk=body["id"])
    assert sandbox.seed == "" and sandbox.start_state is not None
    assert selectors.game_rebuild_state(game=sandbox) == sandbox.state
    export = client.get(f"/api/v1/games/{body['id']}/export/").json()
    assert export["seed"] is None and export["seed_commitment"] is None
    assert export["start_state"] is None  # shown only once the sandbox is over


def test_a_finished_sandbox_exports_its_start_to_replay_its_moves_from(
    alice: Any, bob_reserved_blind: Game, commit: Any
) -> None:
    client = client_for(alice)
    body = _sandbox(client, bob_reserved_blind, commit, bots=["greedy"]).json()
    chooser = make_bot("greedy", 1)
    for _ in range(200):
        game = client.get(f"/api/v1/games/{body['id']}/").json()
        if game["status"] != "active":
            break
        moves = client.get(f"/api/v1/games/{body['id']}/legal-moves/").json()["moves"]
        move = chooser.choose(game["board"], moves)
        with commit():
            client.post(f"/api/v1/games/{body['id']}/moves/", {"move": move, "expected_version": game["version"]},
                        format="json")
    export = client.get(f"/api/v1/games/{body['id']}/export/").json()
    assert export["status"] == "finished" and export["start_state"] is not None
    state = engine.from_dict(export["start_state"])
    for text in export["moves"]:
        state = engine.apply(state, text)
    assert engine.to_dict(state) == Game.objects.get(pk=body["id"]).state
    # The real game's hidden cards are not what the sandbox was dealt.
    source = Game.objects.get(pk=bob_reserved_blind.pk).state
    assert export["start_state"]["decks"] != source["decks"]


# --- leaks -------------------------------------------------------------------------


def _bobs_blind_card(state: dict[str, Any], bob_index: int) -> str:
    return next(card for card, blind in state["seats"][bob_index]["reserved"] if blind)


def test_the_sandbox_of_an_active_game_never_holds_its_true_hidden_cards(
    alice: Any, bob: Any, bob_reserved_blind: Game, commit: Any
) -> None:
    game = bob_reserved_blind
    game.refresh_from_db()
    assert game.state is not None
    bob_index = _seat_index(game, bob)
    real_card = _bobs_blind_card(game.state, bob_index)
    same_decks = same_card = 0
    runs = 40
    for _ in range(runs):
        sandbox = Game.objects.get(pk=_sandbox(client_for(alice), game, commit).json()["id"])
        start = sandbox.start_state
        assert start is not None
        # The seen cards are the same; the unseen ones dealt again.
        assert start["market"] == game.state["market"]
        assert [len(deck) for deck in start["decks"]] == [len(deck) for deck in game.state["decks"]]
        same_decks += start["decks"] == game.state["decks"]
        same_card += _bobs_blind_card(start, bob_index) == real_card
    assert same_decks == 0
    # One level 1 card in some thirty-odd is bob's by chance, now and then; never most of the time.
    assert same_card < runs // 4


def test_the_sandbox_depends_only_on_what_the_seat_sees(
    alice: Any, bob: Any, bob_reserved_blind: Game, commit: Any, monkeypatch: Any
) -> None:
    """Two games that differ only in cards alice cannot see (deck order, bob's
    blind card) give the same sandbox for the same draw: nothing of the true hidden
    cards reaches the sandbox, or the bots that play in it."""
    game = bob_reserved_blind
    game.refresh_from_db()
    assert game.state is not None
    monkeypatch.setattr(practice, "_sandbox_rng", lambda: random.Random(7))
    first = Game.objects.get(pk=_sandbox(client_for(alice), game, commit, bots=["greedy"]).json()["id"])
    # The other truth: the decks shuffled and bob's blind card swapped for one from a deck.
    other = json.loads(json.dumps(game.state))
    bob_index = _seat_index(game, bob)
    deck = other["decks"][0]
    slot = next(i for i, (_, blind) in enumerate(other["seats"][bob_index]["reserved"]) if blind)
    card = other["seats"][bob_index]["reserved"][slot][0]
    other["seats"][bob_index]["reserved"][slot][0], deck[0] = deck[0], card
    for level in other["decks"]:
        random.Random(3).shuffle(level)
    assert engine.observe(engine.from_dict(other), _seat_index(game, alice)) == engine.observe(
        engine.from_dict(game.state), _seat_index(game, alice)
    )
    Game.objects.filter(pk=game.pk).update(state=other)
    second = Game.objects.get(pk=_sandbox(client_for(alice), game, commit, bots=["greedy"]).json()["id"])
    assert first.start_state == second.start_state
    assert first.state == second.state  # the bots' replies, if any, are the same too


def test_no_answer_about_a_sandbox_names_the_true_hidden_card(
    alice: Any, bob: Any, bob_reserved_blind: Game, commit: Any
) -> None:
    game = bob_reserved_blind
    game.refresh_from_db()
    assert game.state is not None
    real_card = _bobs_blind_card(game.state, _seat_index(game, bob))
    hidden_deck = set(game.state["decks"][0])
    client = client_for(alice)
    for _ in range(10):
        created = _sandbox(client, game, commit, bots=["greedy"])
        sandbox = Game.objects.get(pk=created.json()["id"])
        assert sandbox.start_state is not None
        if _bobs_blind_card(sandbox.start_state, _seat_index(game, bob)) == real_card:
            continue  # dealt the same card by chance: not a leak, nothing to look for
        texts = [created.content.decode()]
        for path in ("", "moves/", "legal-moves/", "export/"):
            texts.append(client.get(f"/api/v1/games/{sandbox.pk}/{path}").content.decode())
        for text in texts:
            assert f'"{real_card}"' not in text
        # Nor is any card of the real level 1 deck named where the deck is hidden.
        board = json.loads(texts[0])["board"]
        assert not hidden_deck & set(json.dumps(board["decks"]).split('"'))
