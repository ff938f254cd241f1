"""Waking the streams that have news.

With ``STREAM_REDIS_URL`` (production): the process that stored a change publishes
the accounts' ids on one Redis channel, and each process that serves streams holds
one subscription for all its streams. Without it (the embedded default) each such
process polls the database for accounts with recent events, every
``STREAM_POLL_SECONDS``, with one query for all its streams. Either way a stream
reads its events from the database: a message is only a hint, and a lost one costs
at most a heartbeat's delay (each stream reads again at every heartbeat).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

import redis
import redis.asyncio
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone

from core.redis_budget import RedisBudgetSpent, RedisCircuitOpen, connection_class_for
from streams import selectors

logger = logging.getLogger(__name__)

CHANNEL = "splendor:stream"
_publishers: dict[str, redis.Redis] = {}


def _client(url: str) -> redis.Redis:
    """The publishing client for ``url``: within the request's Redis budget, and
    failing at once while the server's circuit is open (core.redis_budget) — after
    a publish that timed out, the requests that follow do not wait on it again."""
    publisher = _publishers.get(url)
    if publisher is None:
        publisher = _publishers[url] = redis.Redis.from_url(
            url,
            socket_connect_timeout=settings.BROKER_TIMEOUT_SECONDS,
            socket_timeout=settings.BROKER_TIMEOUT_SECONDS,
            retry_on_timeout=False,
            connection_class=connection_class_for(url),
        )
    return publisher


def publish(user_ids: Iterable[int]) -> None:
    """Tell the processes serving streams that these accounts have news. Never
    raises: a stream that misses the message reads its events at its next heartbeat."""
    ids = ",".join(str(user_id) for user_id in user_ids)
    if not ids or not settings.STREAM_REDIS_URL:
        return
    try:
        _client(str(settings.STREAM_REDIS_URL)).publish(CHANNEL, ids)
    except redis.RedisError as exc:
        if not isinstance(exc, RedisCircuitOpen | RedisBudgetSpent):  # said once, when the server failed
            logger.warning(
                "stream news for users %s not published (%s); their streams read it at the next heartbeat", ids, exc
            )


class Hub:
    """One per event loop: the streams of this process, woken by account."""

    def __init__(self) -> None:
        self.waiting: dict[int, set[asyncio.Event]] = {}
        self._task: asyncio.Task[None] | None = None

    def subscribe(self, user_id: int) -> asyncio.Event:
        woken = asyncio.Event()
        self.waiting.setdefault(user_id, set()).add(woken)
        if self._task is None or self._task.done():
            listen = self._listen_redis if settings.STREAM_REDIS_URL else self._poll_database
            self._task = asyncio.get_running_loop().create_task(listen())
        return woken

    def unsubscribe(self, user_id: int, woken: asyncio.Event) -> None:
        waiting = self.waiting.get(user_id)
        if waiting is not None:
            waiting.discard(woken)
            if not waiting:
                del self.waiting[user_id]

    def wake(self, user_ids: Iterable[int]) -> None:
        for user_id in user_ids:
            for woken in self.waiting.get(user_id, ()):
                woken.set()

    def wake_all(self) -> None:
        self.wake(list(self.waiting))

    async def _listen_redis(self) -> None:
        delay = 0.5
        while self.waiting:
            client: Any = redis.asyncio.Redis.from_url(str(settings.STREAM_REDIS_URL), socket_connect_timeout=2.0)
            try:
                async with client.pubsub() as pubsub:
                    await pubsub.subscribe(CHANNEL)
                    # Whatever was published while not subscribed is read now.
                    self.wake_all()
                    delay = 0.5
                    while self.waiting:
                        message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=5.0)
                        if message is not None:
                            self.wake(_user_ids(message.get("data")))
            except (redis.RedisError, OSError) as exc:
                logger.warning("stream hub: Redis subscription lost (%s); again in %.1f s", exc, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 10.0)
            finally:
                await client.aclose()

    async def _poll_database(self) -> None:
        seen: dict[int, int] = {}
        read = sync_to_async(_recent_heads, thread_sensitive=False)
        while self.waiting:
            await asyncio.sleep(settings.STREAM_POLL_SECONDS)
            try:
                heads = await read(settings.STREAM_POLL_SECONDS * 4 + 2)
            except Exception:
                logger.exception("stream hub: reading recent events failed")
                continue
            news = [user_id for user_id, head in heads.items() if seen.get(user_id) != head]
            seen = heads
            self.wake(news)


def _recent_heads(window_seconds: float) -> dict[int, int]:
    try:
        return selectors.stream_recent_heads(since=timezone.now() - timedelta(seconds=window_seconds))
    finally:
        close_old_connections()


def _user_ids(data: object) -> list[int]:
    text = data.decode() if isinstance(data, bytes) else str(data or "")
    return [int(part) for part in text.split(",") if part.strip().isdigit()]


_hubs: dict[int, Hub] = {}


def hub() -> Hub:
    """This event loop's hub."""
    loop = asyncio.get_running_loop()
    found = _hubs.get(id(loop))
    if found is None:
        found = _hubs[id(loop)] = Hub()
    return found
