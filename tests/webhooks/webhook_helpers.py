"""Helpers shared by the webhooks tests: a DNS table, a recording transport,
registering endpoints and making games through the games services."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

from games import services as game_services
from games.models import Game
from webhooks import services
from webhooks.models import Endpoint
from webhooks.services import Outcome

PUBLIC_ADDRESS = "93.184.215.14"

Committed = Callable[[], AbstractContextManager[Any]]


@dataclass
class FakeDNS:
    table: dict[str, list[str]] = field(default_factory=dict)

    def getaddrinfo(self, host: Any, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        name = host.decode() if isinstance(host, bytes) else str(host)
        try:
            addresses = [str(ipaddress.ip_address(name))]
        except ValueError:
            if name not in self.table:
                raise socket.gaierror(socket.EAI_NONAME, "Name or service not known") from None
            addresses = self.table[name]
        infos = []
        for address in addresses:
            family = socket.AF_INET6 if ":" in address else socket.AF_INET
            sockaddr: tuple[Any, ...] = (address, port or 0, 0, 0) if family == socket.AF_INET6 else (address, port or 0)
            infos.append((family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", sockaddr))
        return infos


@dataclass
class Sent:
    url: str
    body: bytes
    headers: dict[str, str]


@dataclass
class Transport:
    """Answers each request with the next of ``answers`` (a status code, or None
    for no answer), then with ``default``."""

    sent: list[Sent] = field(default_factory=list)
    answers: list[int | None] = field(default_factory=list)
    default: int | None = 200
    during_send: Callable[[], None] | None = None

    def post(self, *, url: str, body: bytes, headers: dict[str, str]) -> Outcome:
        self.sent.append(Sent(url, body, dict(headers)))
        if self.during_send is not None:
            self.during_send()
        status = self.answers.pop(0) if self.answers else self.default
        if status is None:
            return Outcome(None, "No answer within 5 seconds.", 5000)
        return Outcome(status, "" if 200 <= status < 300 else f"HTTP {status}", 12)

    def to(self, url: str) -> list[Sent]:
        return [sent for sent in self.sent if sent.url == url]


def register(user: Any, url: str | None = None, events: list[str] | None = None) -> Endpoint:
    return services.endpoint_create(
        owner=user, url=url or f"https://hooks.{user.username}.example/splendor", events=events or []
    )


def new_game(alice: Any, bob: Any, committed: Committed) -> Game:
    """alice invites bob to a two-seat game and he joins: game_created, seat_joined, game_started."""
    with committed():
        game = game_services.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    with committed():
        game_services.seat_join(game=game, user=bob)
    game.refresh_from_db()
    return game
