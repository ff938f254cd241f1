"""What the synchronous and the asynchronous client share, free of I/O: the
requests each method makes, when and how long to wait before a retry, and how an
answer becomes a value or an exception. ``Client`` and ``AsyncClient`` only send."""

from __future__ import annotations

import email.utils
import random
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx

from .errors import error_for

API = "/api/v1"
STREAM_PATH = f"{API}/stream/"
USER_AGENT = "splendor-client/0.1.0"

#: Statuses that mean "not now": the server asks the client to come back later.
RETRY_STATUSES = frozenset({429, 503})

Params = dict[str, str | int]


@dataclass(frozen=True)
class RetryPolicy:
    """How a refused or failed request is retried.

    ``max_retries``: retries after the first try (so ``max_retries + 1`` tries at
    most). A 429 or 503 waits what its ``Retry-After`` says (seconds or an HTTP
    date), but never more than ``max_wait`` seconds; without the header, and after
    a network failure, ``backoff`` doubled at each retry.
    """

    max_retries: int = 3
    max_wait: float = 60.0
    backoff: float = 0.5

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError("max_retries cannot be negative")
        if self.max_wait < 0 or self.backoff < 0:
            raise ValueError("max_wait and backoff cannot be negative")

    def delay(self, attempt: int, retry_after: str | None = None, *, now: float | None = None) -> float:
        """Seconds to wait before retry number ``attempt`` (from 1)."""
        wait = parse_retry_after(retry_after, now=now)
        if wait is None:
            wait = self.backoff * 2.0 ** (attempt - 1)
        return max(0.0, min(wait, self.max_wait))


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value (RFC 9110: a number of
    seconds or an HTTP date), or None when there is none or it cannot be read."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


@dataclass(frozen=True)
class Request:
    """One API call, before it is sent. ``safe_to_resend``: a network failure may
    be retried (a read, or a move with its ``Idempotency-Key``); a create or a
    join is not resent blindly, as the server may have done it already."""

    method: str
    path: str
    params: Params = field(default_factory=dict)
    json: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    safe_to_resend: bool = False
    authenticated: bool = True


def decode(response: httpx.Response) -> Any:
    """The answer's JSON, or the exception for a refusal."""
    if response.status_code >= 400:
        try:
            body: Any = response.json()
        except ValueError:
            body = None
        raise error_for(response.status_code, body)
    if response.status_code == 204 or not response.content:
        return None
    return response.json()


def jitter(delay: float) -> float:
    """A delay spread between half and all of itself, so that many clients cut off
    together do not all come back in the same instant."""
    return delay * random.uniform(0.5, 1.0)


def _if_match(version: int | None) -> dict[str, str]:
    return {} if version is None else {"If-Match": f'"{version}"'}


def _game(game_id: str) -> str:
    if not game_id or "/" in game_id or game_id in (".", ".."):
        raise ValueError(f"not a game id: {game_id!r}")
    return f"{API}/games/{game_id}/"


# --- the requests --------------------------------------------------------------


def me() -> Request:
    return Request("GET", f"{API}/me/", safe_to_resend=True)


def game(game_id: str) -> Request:
    return Request("GET", _game(game_id), safe_to_resend=True)


def legal_moves(game_id: str) -> Request:
    return Request("GET", _game(game_id) + "legal-moves/", safe_to_resend=True)


def moves(game_id: str) -> Request:
    return Request("GET", _game(game_id) + "moves/", safe_to_resend=True)


def games_page(
    *,
    mine: bool = False,
    my_turn: bool = False,
    status: str | None = None,
    kind: str | None = None,
    limit: int | None = None,
    offset: int | None = None,
) -> Request:
    params: Params = {}
    if mine:
        params["mine"] = 1
    if my_turn:
        params["my_turn"] = 1
    if status is not None:
        params["status"] = status
    if kind is not None:
        params["kind"] = kind
    if limit is not None:
        params["limit"] = limit
    if offset is not None:
        params["offset"] = offset
    return Request("GET", f"{API}/games/", params=params, safe_to_resend=True)


def next_page(request: Request, next_url: str | None) -> Request | None:
    """The request for the page a ``next`` link names, or None after the last.

    Only the link's query is taken: the path stays the list's own and the request
    goes to this client's server, so a link naming another host (a proxy's
    mistake) never receives the token."""
    if not next_url:
        return None
    params: Params = dict(parse_qsl(urlsplit(next_url).query, keep_blank_values=True))
    return Request(request.method, request.path, params=params, safe_to_resend=True)


def create_game(
    *,
    variant: str,
    seats: int,
    invited: Iterable[str],
    options: Mapping[str, Any],
) -> Request:
    body: dict[str, Any] = {"variant": variant, "seats": seats, "invited": list(invited), **options}
    return Request("POST", f"{API}/games/", json=body)


def join(game_id: str, expected_version: int | None) -> Request:
    body = {} if expected_version is None else {"expected_version": expected_version}
    return Request("POST", _game(game_id) + "join/", json=body)


def play(game_id: str, move: str, expected_version: int, idempotency_key: str | None) -> Request:
    if not isinstance(move, str) or not move.strip():
        raise ValueError("a move is a non-empty text such as 'take WUG'")
    if isinstance(expected_version, bool) or not isinstance(expected_version, int):
        raise TypeError("expected_version is the game's version as an int")
    key = idempotency_key or str(uuid.uuid4())
    return Request(
        "POST",
        _game(game_id) + "moves/",
        json={"move": move, "expected_version": expected_version},
        headers={"Idempotency-Key": key},
        safe_to_resend=True,
    )


def resign(game_id: str, if_match_version: int | None) -> Request:
    return Request("POST", _game(game_id) + "resign/", json={}, headers=_if_match(if_match_version))


def decline(game_id: str, if_match_version: int | None) -> Request:
    return Request("POST", _game(game_id) + "decline/", json={}, headers=_if_match(if_match_version))


def cancel(game_id: str, if_match_version: int | None) -> Request:
    return Request("POST", _game(game_id) + "cancel/", json={}, headers=_if_match(if_match_version))


def plan(game_id: str) -> Request:
    return Request("GET", _game(game_id) + "plan/", safe_to_resend=True)


def set_plan(game_id: str, lines: Iterable[Mapping[str, Any]], expected_version: int) -> Request:
    if isinstance(expected_version, bool) or not isinstance(expected_version, int):
        raise TypeError("expected_version is the game's version as an int")
    # Storing the same plan twice stores it once: safe to resend.
    body = {"lines": [dict(line) for line in lines], "expected_version": expected_version}
    return Request("PUT", _game(game_id) + "plan/", json=body, safe_to_resend=True)


def clear_plan(game_id: str) -> Request:
    return Request("DELETE", _game(game_id) + "plan/", safe_to_resend=True)


def _thread(thread: str) -> Params:
    if thread not in ("players", "spectators"):
        raise ValueError("a thread is 'players' or 'spectators'")
    return {} if thread == "players" else {"thread": thread}


def chat(game_id: str, thread: str, after: int | None) -> Request:
    params = _thread(thread)
    if after is not None:
        params["after"] = after
    return Request("GET", _game(game_id) + "chat/", params=params, safe_to_resend=True)


def say(game_id: str, text: str, thread: str) -> Request:
    if not isinstance(text, str) or not text.strip():
        raise ValueError("a line of table talk is a non-empty text")
    # Not resent blindly: the line may have been posted already.
    return Request("POST", _game(game_id) + "chat/", params=_thread(thread), json={"text": text})


def create_token(*, name: str, scopes: Iterable[str] | None, username: str | None, password: str | None) -> Request:
    body: dict[str, Any] = {"name": name}
    if scopes is not None:
        body["scopes"] = list(scopes)
    if username is not None or password is not None:
        if username is None or password is None:
            raise ValueError("give both username and password, or neither (then the client's token is used)")
        body["username"] = username
        body["password"] = password
    return Request("POST", f"{API}/tokens/", json=body, authenticated=username is None)


BASE_HEADERS = {"User-Agent": USER_AGENT, "Accept": "application/json"}


class Secret:
    """A token kept out of every ``repr``: a client, its attributes or a traceback's
    locals printed to a log show ``Secret('***')``, never the value."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__


def request_headers(request: Request, token: Secret | None) -> dict[str, str]:
    """The request's own headers, with the token unless the request signs in
    with a password instead."""
    headers = dict(request.headers)
    if token is not None and request.authenticated:
        headers["Authorization"] = f"Bearer {token.reveal()}"
    return headers


def check_base_url(base_url: str) -> str:
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"the server's address must start with http:// or https://, not {base_url!r}")
    return base_url.rstrip("/")
