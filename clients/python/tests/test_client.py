"""Client: retries, idempotency keys, pagination, errors and the token."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest
from client_fakes import SERVER, TOKEN, Sleeps, problem
from splendor_client import ApiError, AuthError, Client, ConflictError, IllegalMoveError, RateLimitedError, RetryPolicy

GAME = {"id": "g1", "status": "active", "version": 8, "seats": [], "board": None}


def client_for(handler: object, **kwargs: object) -> tuple[Client, Sleeps]:
    sleeps = Sleeps()
    client = Client(SERVER, TOKEN, transport=httpx.MockTransport(handler), sleep=sleeps, **kwargs)  # type: ignore[arg-type]
    return client, sleeps


def test_a_429_is_retried_after_the_seconds_retry_after_names() -> None:
    answers = [httpx.Response(429, headers={"Retry-After": "7"}, json={"code": "throttled"}), httpx.Response(200, json={"username": "alice"})]
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answers.pop(0)

    client, sleeps = client_for(handler)
    assert client.me()["username"] == "alice"
    assert sleeps.waits == [7.0]
    assert len(seen) == 2


def test_a_503_is_retried_after_the_http_date_retry_after_names() -> None:
    when = datetime.now(UTC) + timedelta(seconds=30)
    answers = [httpx.Response(503, headers={"Retry-After": format_datetime(when, usegmt=True)}), httpx.Response(200, json=GAME)]
    client, sleeps = client_for(lambda request: answers.pop(0))
    assert client.game("g1")["version"] == 8
    assert len(sleeps.waits) == 1 and 25 <= sleeps.waits[0] <= 30


def test_retries_are_bounded_and_a_long_retry_after_is_capped() -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        answer = problem(429, "throttled", "Slow down.", retry_after=3600)
        answer.headers["Retry-After"] = "3600"
        return answer

    client, sleeps = client_for(handler, retry=RetryPolicy(max_retries=2, max_wait=20))
    with pytest.raises(RateLimitedError) as caught:
        client.me()
    assert len(calls) == 3
    assert sleeps.waits == [20.0, 20.0]
    assert caught.value.status == 429 and caught.value.code == "throttled" and caught.value.retry_after == 3600


def test_a_move_sends_expected_version_and_an_idempotency_key_and_retries_with_the_same_key() -> None:
    seen: list[httpx.Request] = []
    answers = [httpx.Response(503, headers={"Retry-After": "1"}), httpx.Response(201, json={"move": "take WUG", "ply": 4, "game": GAME})]

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answers.pop(0)

    client, _ = client_for(handler)
    created = client.play("g1", "take WUG", expected_version=7)
    assert created["move"] == "take WUG"
    assert [r.url.path for r in seen] == ["/api/v1/games/g1/moves/"] * 2
    assert [json.loads(r.content) for r in seen] == [{"move": "take WUG", "expected_version": 7}] * 2
    keys = {r.headers["Idempotency-Key"] for r in seen}
    assert len(keys) == 1 and len(keys.pop()) == 36


def test_a_move_lost_on_the_network_is_sent_again_with_the_same_key() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if len(seen) == 1:
            raise httpx.ReadError("connection reset")
        return httpx.Response(201, json={"move": "pass", "ply": 4, "game": GAME})

    client, sleeps = client_for(handler)
    client.play("g1", "pass", expected_version=7)
    assert seen[0].headers["Idempotency-Key"] == seen[1].headers["Idempotency-Key"]
    assert sleeps.waits == [0.5]


def test_each_move_has_a_key_of_its_own() -> None:
    keys: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        keys.append(request.headers["Idempotency-Key"])
        return httpx.Response(201, json={"move": "pass", "ply": 4, "game": GAME})

    client, _ = client_for(handler)
    client.play("g1", "pass", expected_version=7)
    client.play("g1", "pass", expected_version=9)
    client.play("g1", "pass", expected_version=11, idempotency_key="mine-1")
    assert keys[0] != keys[1] and keys[2] == "mine-1"


def test_a_create_lost_on_the_network_is_not_sent_again() -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        raise httpx.ReadError("connection reset")

    client, _ = client_for(handler)
    with pytest.raises(httpx.ReadError):
        client.create_game("base", 2, invited=["bob"])
    assert len(calls) == 1


def test_a_move_needs_a_version_and_a_text() -> None:
    client, _ = client_for(lambda request: httpx.Response(500))
    with pytest.raises(TypeError):
        client.play("g1", "pass", expected_version="7")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        client.play("g1", "  ", expected_version=7)
    with pytest.raises(ValueError):
        client.game("../me")


def test_the_game_list_is_read_page_after_page_from_next_links_on_this_server_only() -> None:
    seen: list[httpx.URL] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url)
        offset = int(request.url.params.get("offset", "0"))
        results = [{"id": f"g{offset + i}"} for i in range(2)] if offset < 4 else [{"id": "g4"}]
        # The second link names another host: only its query is followed.
        host = SERVER if offset == 0 else "https://elsewhere.test"
        nxt = f"{host}/api/v1/games/?limit=2&mine=1&offset={offset + 2}" if offset < 4 else None
        return httpx.Response(200, json={"count": 5, "next": nxt, "previous": None, "results": results})

    client, _ = client_for(handler)
    ids = [g["id"] for g in client.my_games(page_size=2)]
    assert ids == ["g0", "g1", "g2", "g3", "g4"]
    assert [u.host for u in seen] == ["splendor.test"] * 3
    assert seen[0].params["mine"] == "1" and seen[0].params["limit"] == "2"
    assert [u.params.get("offset") for u in seen] == [None, "2", "4"]


def test_a_refusal_carries_its_code_detail_status_and_members() -> None:
    client, _ = client_for(lambda request: problem(409, "stale_version", "The game has moved on.", current_version=9))
    with pytest.raises(ConflictError) as caught:
        client.play("g1", "pass", expected_version=7)
    error = caught.value
    assert (error.status, error.code, error.detail, error.current_version) == (409, "stale_version", "The game has moved on.", 9)


def test_an_illegal_move_names_its_rule() -> None:
    client, _ = client_for(lambda request: problem(422, "illegal_move", "red has 3 tokens", rule="B-TAKE-2"))
    with pytest.raises(IllegalMoveError) as caught:
        client.play("g1", "take RR", expected_version=7)
    assert caught.value.rule == "B-TAKE-2" and isinstance(caught.value, ApiError)


def test_a_refusal_that_is_not_a_problem_body_still_raises_with_its_status() -> None:
    client, _ = client_for(lambda request: httpx.Response(502, text="<html>Bad gateway</html>"))
    with pytest.raises(ApiError) as caught:
        client.me()
    assert (caught.value.status, caught.value.code) == (502, "http_502")


def test_the_token_goes_in_the_authorization_header_and_nowhere_else() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return problem(401, "invalid_token", "This token is not valid.")

    client, _ = client_for(handler)
    with pytest.raises(AuthError) as caught:
        client.me()
    assert seen[0].headers["Authorization"] == f"Bearer {TOKEN}"
    assert TOKEN not in str(seen[0].url)
    assert TOKEN not in repr(client) and TOKEN not in str(caught.value) and TOKEN not in repr(vars(client))


def test_a_first_token_is_asked_for_with_a_password_and_no_bearer() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(201, json={"id": 1, "name": "bot", "prefix": "spl_ab", "token": "spl_new"})

    client = Client(SERVER, transport=httpx.MockTransport(handler))
    assert client.create_token("bot", scopes=["read", "play"], username="alice", password="pw")["token"] == "spl_new"
    assert "Authorization" not in seen[0].headers
    assert json.loads(seen[0].content) == {"name": "bot", "scopes": ["read", "play"], "username": "alice", "password": "pw"}


def test_the_create_body_is_the_api_s() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(201, json=GAME)

    client, _ = client_for(handler)
    client.create_game("marvel", 3, invited=["bob"], move_timeout_hours=24, public=True)
    assert json.loads(seen[0].content) == {
        "variant": "marvel", "seats": 3, "invited": ["bob"], "move_timeout_hours": 24, "public": True
    }


def test_resign_with_a_version_sends_if_match() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=GAME)

    client, _ = client_for(handler)
    client.resign("g1", if_match_version=8)
    client.decline("g2")
    assert seen[0].headers["If-Match"] == '"8"' and seen[0].url.path == "/api/v1/games/g1/resign/"
    assert "If-Match" not in seen[1].headers and seen[1].url.path == "/api/v1/games/g2/decline/"


def test_the_server_address_must_be_http() -> None:
    with pytest.raises(ValueError, match="http"):
        Client("splendor.test", TOKEN)


def test_a_plan_is_stored_read_and_cleared_on_its_own_path() -> None:
    seen: list[httpx.Request] = []
    plan = {"game_id": "g1", "version": 8, "your_seat": 1, "can_store": True, "outcomes": [],
            "lines": [{"if": "take WUG", "then": "buy 1-05", "next": [{"if": "any", "then": "take RR"}]}]}

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(204) if request.method == "DELETE" else httpx.Response(200, json=plan)

    client, _ = client_for(handler)
    stored = client.set_plan("g1", plan["lines"], expected_version=8)  # type: ignore[arg-type]
    assert stored["lines"][0]["then"] == "buy 1-05"
    assert client.plan("g1")["your_seat"] == 1
    assert client.clear_plan("g1") is None
    assert [(r.method, r.url.path) for r in seen] == [
        ("PUT", "/api/v1/games/g1/plan/"), ("GET", "/api/v1/games/g1/plan/"), ("DELETE", "/api/v1/games/g1/plan/")
    ]
    assert json.loads(seen[0].content) == {"lines": plan["lines"], "expected_version": 8}
    with pytest.raises(TypeError):
        client.set_plan("g1", [], expected_version="8")  # type: ignore[arg-type]


def test_table_talk_is_read_and_written_in_the_thread_asked_for() -> None:
    seen: list[httpx.Request] = []
    line = {"id": 3, "thread": "spectators", "author_id": 2, "author": "Bob", "seat": None, "text": "hi",
            "hidden": False, "erased": False, "created_at": "2026-12-02T10:00:00Z"}

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.method == "POST":
            return httpx.Response(201, json=line)
        return httpx.Response(200, json={"game_id": "g1", "thread": "players", "lines": [line]})

    client, _ = client_for(handler)
    assert client.say("g1", "hi", thread="spectators")["id"] == 3
    assert client.chat("g1", after=2)["lines"][0]["text"] == "hi"
    assert seen[0].url.params["thread"] == "spectators" and json.loads(seen[0].content) == {"text": "hi"}
    assert "thread" not in seen[1].url.params and seen[1].url.params["after"] == "2"
    with pytest.raises(ValueError, match="thread"):
        client.chat("g1", thread="everyone")
    with pytest.raises(ValueError, match="non-empty"):
        client.say("g1", "   ")
