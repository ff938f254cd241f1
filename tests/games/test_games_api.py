from __future__ import annotations

from typing import Any

import engine
import pytest
from rest_framework.test import APIClient

from games import services
from games.models import Game, IdempotencyRecord, Move, Seat
from tests.games.game_helpers import client_for, play_moves, user_to_move

pytestmark = pytest.mark.django_db

PROBLEM = "application/problem+json"
# Validation errors carry the site's "field: message" text; everything else,
# including the engine's words for an illegal move, reads as a sentence.
ENGINE_WORDS = {"validation_error"}


def assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith(PROBLEM)
    body = response.json()
    assert body["status"] == status and body["code"] == code
    assert body["detail"]
    if code not in ENGINE_WORDS:
        assert body["detail"].rstrip().endswith(".") and not body["detail"][0].islower()
    return body


def url(game: Game | str, suffix: str = "") -> str:
    game_id = game.pk if isinstance(game, Game) else game
    return f"/api/v1/games/{game_id}/{suffix}"


def a_take(game: Game) -> str:
    game.refresh_from_db()
    state = engine.from_dict(game.state)
    return next(t for t in map(engine.format_move, engine.legal_moves(state)) if t.startswith("take ") and "return" not in t)


@pytest.fixture
def active_game_options() -> dict[str, Any]:
    # active_game (tests/conftest.py) public: charlie, who has no seat, watches it as a
    # spectator here. What a private game shows to those without a seat:
    # tests/games/test_private_games.py.
    return {"public": True}


@pytest.fixture
def clients(alice: Any, bob: Any, charlie: Any) -> dict[str, APIClient]:
    return {"alice": client_for(alice), "bob": client_for(bob), "charlie": client_for(charlie)}


def mover_and_waiter(game: Game, clients: dict[str, APIClient]) -> tuple[APIClient, APIClient]:
    mover = user_to_move(game).username
    waiter = "bob" if mover == "alice" else "alice"
    return clients[mover], clients[waiter]


# --- create, list, join ---------------------------------------------------------------


def test_creating_a_game_seats_the_creator_and_reserves_invited_seats(clients: dict[str, APIClient]) -> None:
    response = clients["alice"].post(
        "/api/v1/games/", {"variant": "marvel", "seats": 3, "invited": ["bob"], "move_timeout_hours": 24}
    )

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "open" and body["variant"] == "marvel" and body["seat_count"] == 3
    assert body["open_seats"] == 1 and body["move_timeout_hours"] == 24
    assert [(s["username"], s["joined"], s["invited"]) for s in body["seats"]] == [
        ("alice", True, False),
        ("bob", False, True),
    ]
    assert body["seats"][0]["display_name"] == "Alice"
    assert body["board"] is None and body["seed_commitment"] is None
    assert response["ETag"] == f'"{body["version"]}"'


def test_inviting_an_unknown_username_is_a_validation_error(clients: dict[str, APIClient]) -> None:
    response = clients["alice"].post("/api/v1/games/", {"seats": 2, "invited": ["nobody"]})
    body = assert_problem(response, 400, "validation_error")
    assert "invited" in body["errors"]


def test_five_seats_are_a_validation_error(clients: dict[str, APIClient]) -> None:
    assert_problem(clients["alice"].post("/api/v1/games/", {"seats": 5}), 400, "validation_error")


def test_inconsistent_open_seats_are_refused_as_an_invalid_setup(clients: dict[str, APIClient]) -> None:
    response = clients["alice"].post("/api/v1/games/", {"seats": 2, "invited": ["bob"], "open_seats": 1})
    assert_problem(response, 400, "invalid_game_setup")


def test_joining_the_last_seat_starts_the_game_and_publishes_the_commitment(clients: dict[str, APIClient]) -> None:
    game_id = clients["alice"].post("/api/v1/games/", {"seats": 2}).json()["id"]

    response = clients["bob"].post(url(game_id, "join/"), {})

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "active"
    assert len(body["seed_commitment"]) == 64 and body["seed"] is None
    assert sorted(s["seat"] for s in body["seats"]) == [0, 1]
    assert body["your_seat"] in (0, 1) and body["board"]["seat"] == body["your_seat"]
    assert body["deadline_at"] is not None


def test_joining_a_full_game_is_refused(active_game: Game, clients: dict[str, APIClient]) -> None:
    assert_problem(clients["charlie"].post(url(active_game, "join/"), {}), 409, "seat_unavailable")


def test_joining_with_a_stale_version_is_refused(alice: Any, clients: dict[str, APIClient]) -> None:
    game = services.game_create(creator=alice, seats=2)
    body = assert_problem(clients["bob"].post(url(game, "join/"), {"expected_version": 0}), 409, "stale_version")
    assert body["current_version"] == 1


def test_the_list_filters_my_games_my_turn_and_status(
    alice: Any, bob: Any, charlie: Any, active_game: Game, clients: dict[str, APIClient]
) -> None:
    open_game = services.game_create(creator=charlie, seats=2, public=True)

    everything = clients["alice"].get("/api/v1/games/").json()
    mine = clients["alice"].get("/api/v1/games/?mine=1").json()
    waiting = clients["alice"].get("/api/v1/games/?status=open").json()
    my_turn_alice = clients["alice"].get("/api/v1/games/?my_turn=1").json()
    my_turn_bob = clients["bob"].get("/api/v1/games/?my_turn=true").json()

    assert everything["count"] == 2
    assert [g["id"] for g in mine["results"]] == [active_game.pk]
    assert [g["id"] for g in waiting["results"]] == [open_game.pk]
    to_move = user_to_move(active_game).username
    turn_lists = {"alice": my_turn_alice, "bob": my_turn_bob}
    assert [g["id"] for g in turn_lists[to_move]["results"]] == [active_game.pk]
    assert [g["id"] for g in turn_lists["bob" if to_move == "alice" else "alice"]["results"]] == []
    assert "board" not in everything["results"][0]


def test_the_list_is_paginated(alice: Any, clients: dict[str, APIClient]) -> None:
    for _ in range(3):
        services.game_create(creator=alice, seats=2)
    page = clients["alice"].get("/api/v1/games/?limit=2").json()
    assert page["count"] == 3 and len(page["results"]) == 2 and page["next"]


def test_an_unknown_status_filter_is_a_validation_error(clients: dict[str, APIClient]) -> None:
    assert_problem(clients["alice"].get("/api/v1/games/?status=paused"), 400, "validation_error")


# --- the game, ETag and 304 -------------------------------------------------------------


def test_a_seat_sees_its_own_view_and_a_spectator_the_spectator_view(
    active_game: Game, clients: dict[str, APIClient], alice: Any
) -> None:
    alice_seat = Seat.objects.get(game=active_game, user=alice).index
    as_alice = clients["alice"].get(url(active_game)).json()
    as_charlie = clients["charlie"].get(url(active_game)).json()

    state = engine.from_dict(active_game.state)
    assert as_alice["board"] == engine.observe(state, alice_seat)
    assert as_alice["your_seat"] == alice_seat
    assert as_charlie["board"] == engine.observe(state, None)
    assert as_charlie["your_seat"] is None


def test_the_game_carries_its_version_as_etag_and_answers_304_when_unchanged(
    active_game: Game, clients: dict[str, APIClient]
) -> None:
    first = clients["charlie"].get(url(active_game))
    assert first["ETag"] == f'"{active_game.version}"'

    unchanged = clients["charlie"].get(url(active_game), HTTP_IF_NONE_MATCH=first["ETag"])
    assert unchanged.status_code == 304 and unchanged["ETag"] == first["ETag"]

    play_moves(active_game, 1)
    changed = clients["charlie"].get(url(active_game), HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200 and changed["ETag"] == f'"{active_game.version + 1}"'


def test_an_unknown_game_is_not_found_on_every_endpoint(clients: dict[str, APIClient]) -> None:
    for suffix in ["", "legal-moves/", "moves/", "export/"]:
        assert_problem(clients["alice"].get(url("nosuchgame", suffix)), 404, "game_not_found")
    for suffix in ["join/", "resign/"]:
        assert_problem(clients["alice"].post(url("nosuchgame", suffix), {}), 404, "game_not_found")
    assert_problem(
        clients["alice"].post(url("nosuchgame", "moves/"), {"move": "pass", "expected_version": 1}),
        404,
        "game_not_found",
    )


# --- legal moves and moves ------------------------------------------------------------------


def test_legal_moves_are_listed_only_for_the_seat_to_move(active_game: Game, clients: dict[str, APIClient]) -> None:
    mover, waiter = mover_and_waiter(active_game, clients)
    expected = [engine.format_move(m) for m in engine.legal_moves(engine.from_dict(active_game.state))]

    assert mover.get(url(active_game, "legal-moves/")).json()["moves"] == expected
    assert waiter.get(url(active_game, "legal-moves/")).json()["moves"] == []
    assert clients["charlie"].get(url(active_game, "legal-moves/")).json()["moves"] == []


def test_a_move_returns_201_with_the_canonical_move_and_the_new_view(
    active_game: Game, clients: dict[str, APIClient]
) -> None:
    mover, _ = mover_and_waiter(active_game, clients)
    text = a_take(active_game)
    friendly = text.replace("take ", "TAKE ").lower()

    response = mover.post(url(active_game, "moves/"), {"move": friendly, "expected_version": active_game.version})

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["move"] == text and body["ply"] == 0
    assert body["game"]["version"] == active_game.version + 1
    assert body["game"]["board"]["ply"] == 1
    assert response["ETag"] == f'"{active_game.version + 1}"'
    assert Move.objects.get(game=active_game).text == text


def test_a_move_without_any_version_is_answered_428(active_game: Game, clients: dict[str, APIClient]) -> None:
    mover, _ = mover_and_waiter(active_game, clients)
    body = assert_problem(
        mover.post(url(active_game, "moves/"), {"move": a_take(active_game)}), 428, "precondition_required"
    )
    assert body["current_version"] == active_game.version


def test_a_move_with_a_mismatched_if_match_is_answered_412(active_game: Game, clients: dict[str, APIClient]) -> None:
    mover, _ = mover_and_waiter(active_game, clients)
    response = mover.post(url(active_game, "moves/"), {"move": a_take(active_game)}, HTTP_IF_MATCH='"1"')
    body = assert_problem(response, 412, "precondition_failed")
    assert body["current_version"] == active_game.version


def test_a_move_with_a_matching_if_match_is_played(active_game: Game, clients: dict[str, APIClient]) -> None:
    mover, _ = mover_and_waiter(active_game, clients)
    response = mover.post(
        url(active_game, "moves/"), {"move": a_take(active_game)}, HTTP_IF_MATCH=f'"{active_game.version}"'
    )
    assert response.status_code == 201


def test_a_move_on_a_stale_version_is_answered_409_with_the_current_version(
    active_game: Game, clients: dict[str, APIClient]
) -> None:
    mover, _ = mover_and_waiter(active_game, clients)
    response = mover.post(url(active_game, "moves/"), {"move": a_take(active_game), "expected_version": 1})
    body = assert_problem(response, 409, "stale_version")
    assert body["current_version"] == active_game.version


def test_a_move_out_of_turn_is_answered_409_not_your_turn(active_game: Game, clients: dict[str, APIClient]) -> None:
    _, waiter = mover_and_waiter(active_game, clients)
    response = waiter.post(url(active_game, "moves/"), {"move": a_take(active_game), "expected_version": 3})
    assert_problem(response, 409, "not_your_turn")


def test_a_move_by_a_non_player_is_answered_403_not_a_player(active_game: Game, clients: dict[str, APIClient]) -> None:
    response = clients["charlie"].post(url(active_game, "moves/"), {"move": "take WUG", "expected_version": 3})
    assert_problem(response, 403, "not_a_player")


def test_a_move_before_the_start_is_answered_409_game_not_active(alice: Any, clients: dict[str, APIClient]) -> None:
    game = services.game_create(creator=alice, seats=2)
    response = clients["alice"].post(url(game, "moves/"), {"move": "take WUG", "expected_version": 1})
    assert_problem(response, 409, "game_not_active")


def test_unreadable_notation_is_answered_400_invalid_notation(
    active_game: Game, clients: dict[str, APIClient]
) -> None:
    mover, _ = mover_and_waiter(active_game, clients)
    response = mover.post(url(active_game, "moves/"), {"move": "juggle the gems", "expected_version": 3})
    assert_problem(response, 400, "invalid_notation")


def test_an_illegal_move_is_answered_422_with_the_rule(active_game: Game, clients: dict[str, APIClient]) -> None:
    mover, _ = mover_and_waiter(active_game, clients)
    state = engine.from_dict(active_game.state)
    with pytest.raises(engine.IllegalMove) as expected:
        engine.parse_move(state, "buy 3-01")

    body = assert_problem(mover.post(url(active_game, "moves/"), {"move": "buy 3-01", "expected_version": 3}), 422, "illegal_move")
    assert body["rule"] == expected.value.rule
    # the engine's words, as a sentence (the email reply shows the same words)
    message = expected.value.message
    assert body["detail"] == message[0].upper() + message[1:] + "."


def test_a_move_missing_a_required_choice_is_answered_422_ambiguous_with_the_choices(
    active_game: Game, clients: dict[str, APIClient]
) -> None:
    # Take gems until the mover would go over ten: the take then needs a " return".
    for _ in range(40):
        state = engine.from_dict(Game.objects.get(pk=active_game.pk).state)
        texts = [engine.format_move(m) for m in engine.legal_moves(state)]
        needing_return = [t for t in texts if t.startswith("take ") and " return " in t]
        if needing_return:
            break
        play_moves(active_game, 1, policy=lambda s, moves: next(m for m in moves if m.startswith("take ")))
    else:
        pytest.fail("no position needing a return was reached")
    active_game.refresh_from_db()
    bare = needing_return[0].split(" return ")[0]
    mover = client_for(user_to_move(active_game))

    response = mover.post(url(active_game, "moves/"), {"move": bare, "expected_version": active_game.version})

    body = assert_problem(response, 422, "ambiguous_move")
    assert body["rule"] == "B-LIMIT-1"
    assert needing_return[0] in body["choices"] or any(c.startswith(bare + " return ") for c in body["choices"])


def test_a_blank_move_is_a_validation_error(active_game: Game, clients: dict[str, APIClient]) -> None:
    mover, _ = mover_and_waiter(active_game, clients)
    assert_problem(mover.post(url(active_game, "moves/"), {"expected_version": 3}), 400, "validation_error")


def test_the_history_lists_moves_in_canonical_text(active_game: Game, clients: dict[str, APIClient]) -> None:
    play_moves(active_game, 4)
    history = clients["charlie"].get(url(active_game, "moves/")).json()
    assert [entry["move"] for entry in history] == list(
        Move.objects.filter(game=active_game).order_by("ply").values_list("text", flat=True)
    )
    assert [entry["ply"] for entry in history] == [0, 1, 2, 3]


# --- idempotency --------------------------------------------------------------------------------


def test_a_repeated_idempotency_key_replays_the_first_response_and_plays_nothing(
    active_game: Game, clients: dict[str, APIClient]
) -> None:
    mover, _ = mover_and_waiter(active_game, clients)
    payload = {"move": a_take(active_game), "expected_version": active_game.version}

    first = mover.post(url(active_game, "moves/"), payload, HTTP_IDEMPOTENCY_KEY="turn-1")
    again = mover.post(url(active_game, "moves/"), payload, HTTP_IDEMPOTENCY_KEY="turn-1")

    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert Move.objects.filter(game=active_game).count() == 1
    active_game.refresh_from_db()
    assert active_game.version == first.json()["game"]["version"]
    assert IdempotencyRecord.objects.count() == 1


def test_a_replay_is_served_even_after_the_game_moved_on(active_game: Game, clients: dict[str, APIClient]) -> None:
    mover, _ = mover_and_waiter(active_game, clients)
    payload = {"move": a_take(active_game), "expected_version": active_game.version}
    first = mover.post(url(active_game, "moves/"), payload, HTTP_IDEMPOTENCY_KEY="k")
    play_moves(active_game, 2)

    again = mover.post(url(active_game, "moves/"), payload, HTTP_IDEMPOTENCY_KEY="k")

    assert again.status_code == 201 and again.json() == first.json()


def test_reusing_an_idempotency_key_for_another_request_is_refused(
    active_game: Game, clients: dict[str, APIClient]
) -> None:
    mover, _ = mover_and_waiter(active_game, clients)
    mover.post(url(active_game, "moves/"), {"move": a_take(active_game), "expected_version": 3}, HTTP_IDEMPOTENCY_KEY="k")

    response = mover.post(url(active_game, "moves/"), {"move": "pass", "expected_version": 4}, HTTP_IDEMPOTENCY_KEY="k")

    assert_problem(response, 422, "idempotency_key_reused")
    assert Move.objects.filter(game=active_game).count() == 1


def test_idempotency_keys_belong_to_one_user(active_game: Game, clients: dict[str, APIClient]) -> None:
    mover, waiter = mover_and_waiter(active_game, clients)
    first = mover.post(url(active_game, "moves/"), {"move": a_take(active_game), "expected_version": 3}, HTTP_IDEMPOTENCY_KEY="k")
    assert first.status_code == 201

    second = waiter.post(url(active_game, "moves/"), {"move": a_take(active_game), "expected_version": 4}, HTTP_IDEMPOTENCY_KEY="k")

    assert second.status_code == 201
    assert Move.objects.filter(game=active_game).count() == 2


def test_a_refused_move_stores_no_idempotency_record(active_game: Game, clients: dict[str, APIClient]) -> None:
    mover, _ = mover_and_waiter(active_game, clients)
    refused = mover.post(url(active_game, "moves/"), {"move": "dance", "expected_version": 3}, HTTP_IDEMPOTENCY_KEY="k")
    assert refused.status_code == 400
    assert not IdempotencyRecord.objects.exists()
    retried = mover.post(url(active_game, "moves/"), {"move": a_take(active_game), "expected_version": 3}, HTTP_IDEMPOTENCY_KEY="k")
    assert retried.status_code == 201


def test_an_overlong_idempotency_key_is_a_validation_error(active_game: Game, clients: dict[str, APIClient]) -> None:
    mover, _ = mover_and_waiter(active_game, clients)
    response = mover.post(
        url(active_game, "moves/"), {"move": a_take(active_game), "expected_version": 3}, HTTP_IDEMPOTENCY_KEY="k" * 256
    )
    assert_problem(response, 400, "validation_error")


# --- resign and export ---------------------------------------------------------------------------


def test_resigning_through_the_api_ends_a_two_player_game(
    active_game: Game, clients: dict[str, APIClient], bob: Any
) -> None:
    response = clients["alice"].post(url(active_game, "resign/"))

    assert response.status_code == 200, response.content
    body = response.json()
    bob_seat = Seat.objects.get(game=active_game, user=bob).index
    assert body["status"] == "finished" and body["result"]["winners"] == [bob_seat]
    assert body["seed"] is not None


def test_resigning_a_finished_game_is_answered_409(active_game: Game, clients: dict[str, APIClient]) -> None:
    clients["alice"].post(url(active_game, "resign/"))
    assert_problem(clients["bob"].post(url(active_game, "resign/")), 409, "game_not_active")


def test_the_export_reveals_the_seed_only_after_the_end(active_game: Game, clients: dict[str, APIClient]) -> None:
    play_moves(active_game, 2)
    before = clients["charlie"].get(url(active_game, "export/")).json()
    assert before["seed"] is None and len(before["moves"]) == 2
    assert before["seed_commitment"] == active_game.seed_commitment

    clients["alice"].post(url(active_game, "resign/"))
    after = clients["charlie"].get(url(active_game, "export/")).json()
    assert after["seed"] == Game.objects.get(pk=active_game.pk).seed


def test_the_join_response_shows_the_seats_as_they_are_after_the_start(
    alice: Any, bob: Any, charlie: Any, clients: dict[str, APIClient]
) -> None:
    game = services.game_create(creator=alice, seats=3, invited=[bob])
    clients["bob"].post(url(game, "join/"), {})

    body = clients["charlie"].post(url(game, "join/"), {}).json()

    assert body["status"] == "active"
    assert sorted(s["seat"] for s in body["seats"]) == [0, 1, 2]
    assert all(s["joined"] for s in body["seats"])
    assert body["your_seat"] is not None


def test_the_list_costs_the_same_few_queries_however_many_games_it_shows(
    alice: Any, bob: Any, clients: dict[str, APIClient], django_assert_max_num_queries: Any
) -> None:
    for _ in range(6):
        services.game_create(creator=alice, seats=2, invited=[bob])
    clients["alice"].get("/api/v1/games/")  # the token's last-used time is written once

    with django_assert_max_num_queries(8):
        response = clients["alice"].get("/api/v1/games/?mine=1")

    assert response.json()["count"] == 6


def test_an_idempotency_key_racing_in_from_another_game_is_refused_and_plays_nothing(
    active_game: Game, clients: dict[str, APIClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two requests with one key for two games pass the look-up together; the
    # second to commit meets the unique key. Simulate it: the look-up sees
    # nothing, the insert meets the other game's record.
    mover, _ = mover_and_waiter(active_game, clients)
    user = user_to_move(active_game)
    IdempotencyRecord.objects.create(user=user, key="k", fingerprint="another game", response_status=201, response_body={})
    monkeypatch.setattr(
        IdempotencyRecord.objects, "filter", lambda **kwargs: IdempotencyRecord.objects.none()
    )

    response = mover.post(url(active_game, "moves/"), {"move": a_take(active_game), "expected_version": 3}, HTTP_IDEMPOTENCY_KEY="k")

    assert_problem(response, 422, "idempotency_key_reused")
    assert not Move.objects.filter(game=active_game).exists()
    active_game.refresh_from_db()
    assert active_game.version == 3


def test_if_match_star_names_no_version_so_a_move_needs_one(active_game: Game, clients: dict[str, APIClient]) -> None:
    mover, _ = mover_and_waiter(active_game, clients)
    response = mover.post(url(active_game, "moves/"), {"move": a_take(active_game)}, HTTP_IF_MATCH="*")
    assert_problem(response, 428, "precondition_required")
    assert not Move.objects.filter(game=active_game).exists()
