"""API tokens that authenticated, kept a moment in each process.

Every API request is authenticated by its Bearer token (accounts.authentication),
which took one query: the token with its user, the user's player and calendar
address. A client that sends several requests in a row (the legal moves, then the
move) need not pay it each time: a token that authenticated is kept here, under
the SHA-256 of its secret (never the secret), for at most
``API_TOKEN_CACHE_SECONDS`` (1 s by default; 0 keeps nothing).

What is kept is a copy of the rows' values, and each request gets model objects
of its own built from it: nothing a request sets on ``request.user`` or on the
token reaches another request, and no two threads share an object.

When is a change seen (docs/api.md, "Accounts and tokens"):

- In the process that makes it, at once: every save of a token, user, player or
  calendar address, and every deletion of a user, forgets the account's tokens
  (accounts.receivers), and the services that change those rows with ``UPDATE``
  (revoking a token, disabling, suspending, lifting a suspension, erasing) forget
  them themselves; each time both at the write and when its transaction commits.
  A look-up that started before a forgetting does not keep what it read.
- A change made with a bare ``UPDATE`` outside those services (a bounce's mark
  on the player, say) is seen as a change made by another process is.
- In every other process, within ``API_TOKEN_CACHE_SECONDS``: an entry is never
  used once it is that old, counted from before the query that read it.

Only tokens that authenticated are kept: an unknown, revoked, disabled, suspended
or erased one is looked up each time, as before. At most ``MAX_ENTRIES`` tokens
are kept, the least recently used going first.
"""

from __future__ import annotations

import copy
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import models, transaction

from accounts.models import ApiToken, CalendarFeed, Player

# A few thousand clients at once per process; each entry holds four rows' values
# (about 2 KB), so a full cache is about 5 MB.
MAX_ENTRIES = 2048


def _attnames(model: type[models.Model]) -> tuple[str, ...]:
    return tuple(field.attname for field in model._meta.concrete_fields)


def _unshared(value: Any) -> Any:
    # Lists and dicts (the token's scopes) are copied in and out, so that neither
    # the request that read them nor the ones after share them; the rest is immutable.
    return copy.deepcopy(value) if isinstance(value, list | dict) else value


def _values(obj: models.Model, names: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(_unshared(getattr(obj, name)) for name in names)


def _rebuild(model: type[models.Model], names: tuple[str, ...], values: tuple[Any, ...], using: str) -> Any:
    # What the ORM does with a row it read (Model.from_db), from the kept values.
    return model.from_db(using, list(names), [_unshared(value) for value in values])


@dataclass(frozen=True)
class _Entry:
    stored_at: float
    user_id: int
    using: str
    token: tuple[Any, ...]
    user: tuple[Any, ...]
    player: tuple[Any, ...] | None
    feed: tuple[Any, ...] | None


class TokenCache:
    """A bounded, thread-safe map of token hash -> the token's rows, each entry
    used for at most ``max_age`` seconds of ``clock``."""

    def __init__(self, *, max_entries: int = MAX_ENTRIES, clock: Callable[[], float] = time.monotonic) -> None:
        self.max_entries = max_entries
        self.clock = clock
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._lock = threading.Lock()
        # Goes up at every forgetting: a look-up that began before one keeps nothing.
        self._generation = 0
        self._names: dict[type[models.Model], tuple[str, ...]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def _attnames(self, model: type[models.Model]) -> tuple[str, ...]:
        names = self._names.get(model)
        if names is None:
            names = self._names[model] = _attnames(model)
        return names

    def begin(self) -> tuple[int, float]:
        """Call before the query whose answer may be kept (``put``)."""
        return self._generation, self.clock()

    def get(self, key_hash: str, *, max_age: float) -> ApiToken | None:
        """A fresh copy of the token (with its user, player and calendar address),
        or None when it is not kept or too old."""
        with self._lock:
            entry = self._entries.get(key_hash)
            if entry is None:
                return None
            if self.clock() - entry.stored_at >= max_age:
                del self._entries[key_hash]
                return None
            self._entries.move_to_end(key_hash)
        user_model = get_user_model()
        token: ApiToken = _rebuild(ApiToken, self._attnames(ApiToken), entry.token, entry.using)
        user = _rebuild(user_model, self._attnames(user_model), entry.user, entry.using)
        player = None if entry.player is None else _rebuild(Player, self._attnames(Player), entry.player, entry.using)
        feed = None if entry.feed is None else _rebuild(CalendarFeed, self._attnames(CalendarFeed), entry.feed, entry.using)
        # As select_related("user__player", "user__calendar_feed") leaves them: a
        # missing player or address is known to be missing (no query to find out).
        token._state.fields_cache["user"] = user
        user._state.fields_cache["player"] = player
        user._state.fields_cache["calendar_feed"] = feed
        if player is not None:
            player._state.fields_cache["user"] = user
        if feed is not None:
            feed._state.fields_cache["user"] = user
        return token

    def put(self, key_hash: str, token: ApiToken, *, began: tuple[int, float]) -> None:
        """Keep ``token`` (loaded with its user, player and calendar address), unless
        an account was forgotten since ``began`` was taken."""
        generation, started = began
        user = token.user
        player = user._state.fields_cache.get("player")
        feed = user._state.fields_cache.get("calendar_feed")
        user_model = type(user)
        entry = _Entry(
            stored_at=started,
            user_id=user.pk,
            using=token._state.db or "default",
            token=_values(token, self._attnames(ApiToken)),
            user=_values(user, self._attnames(user_model)),
            player=None if player is None else _values(player, self._attnames(Player)),
            feed=None if feed is None else _values(feed, self._attnames(CalendarFeed)),
        )
        with self._lock:
            if generation != self._generation:
                return
            self._entries[key_hash] = entry
            self._entries.move_to_end(key_hash)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def note_used(self, key_hash: str, *, at: datetime) -> None:
        """The token's ``last_used_at`` was written: the kept copy says so too, so
        that the requests after it do not write it again."""
        names = self._attnames(ApiToken)
        index = names.index("last_used_at")
        with self._lock:
            entry = self._entries.get(key_hash)
            if entry is not None:
                values = (*entry.token[:index], at, *entry.token[index + 1 :])
                self._entries[key_hash] = replace(entry, token=values)

    def forget_user(self, user_id: int) -> None:
        with self._lock:
            self._generation += 1
            for key in [key for key, entry in self._entries.items() if entry.user_id == user_id]:
                del self._entries[key]

    def clear(self) -> None:
        with self._lock:
            self._generation += 1
            self._entries.clear()


# The process's one cache (gunicorn's workers each have their own after the fork).
token_cache = TokenCache()


def token_cache_seconds() -> float:
    return float(settings.API_TOKEN_CACHE_SECONDS)


def token_cache_forget(*, user_id: int) -> None:
    """Forget the account's tokens in this process, now and once the current
    transaction commits (a look-up between the two would read the rows as they
    were before the change)."""
    token_cache.forget_user(user_id)
    connection = transaction.get_connection()
    if connection.in_atomic_block:
        transaction.on_commit(lambda: token_cache.forget_user(user_id), robust=True)

