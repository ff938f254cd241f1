"""An API token with its user, the user's player and calendar address, read by
one statement written once per connection.

Every API request whose token this process does not keep (accounts.token_cache)
reads these rows; built by the ORM (``select_related`` and ``get``) the query
cost more than a millisecond of Python each time, most of an authentication.
The rows become model instances as the ORM would make them (core.model_rows),
and the relations are cached as ``select_related`` leaves them: a missing player
or calendar address is known to be missing, and nothing is read again.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import connections, router
from django.db.backends.base.base import BaseDatabaseWrapper

from accounts.models import ApiToken, CalendarFeed, Player
from core.model_rows import ModelColumns, PerConnection, column_of


@dataclass(frozen=True)
class _Plan:
    token: ModelColumns
    user: ModelColumns
    player: ModelColumns
    feed: ModelColumns
    statement: str


def _written(db: BaseDatabaseWrapper) -> _Plan:
    q = db.ops.quote_name
    user_model = get_user_model()
    token_table, user_table = ApiToken._meta.db_table, user_model._meta.db_table
    player_table, feed_table = Player._meta.db_table, CalendarFeed._meta.db_table
    token = ModelColumns.of(ApiToken, token_table, db)
    user = ModelColumns.of(user_model, user_table, db)
    player = ModelColumns.of(Player, player_table, db)
    feed = ModelColumns.of(CalendarFeed, feed_table, db)
    user_pk = f"{q(user_table)}.{q(column_of(user_model, 'pk'))}"
    statement = (
        f"SELECT {token.select(q)}, {user.select(q)}, {player.select(q)}, {feed.select(q)} FROM {q(token_table)} "
        f"INNER JOIN {q(user_table)} ON ({q(token_table)}.{q(column_of(ApiToken, 'user'))} = {user_pk}) "
        f"LEFT OUTER JOIN {q(player_table)} ON ({user_pk} = {q(player_table)}.{q(column_of(Player, 'user'))}) "
        f"LEFT OUTER JOIN {q(feed_table)} ON ({user_pk} = {q(feed_table)}.{q(column_of(CalendarFeed, 'user'))}) "
        f"WHERE {q(token_table)}.{q(column_of(ApiToken, 'key_hash'))} = %s"
    )
    return _Plan(token=token, user=user, player=player, feed=feed, statement=statement)


_plan = PerConnection(_written)


def token_with_account(key_hash: str) -> ApiToken | None:
    """The token (revoked or not) whose secret's SHA-256 is ``key_hash``, with its
    user, the user's player and calendar address cached on it; None when there is
    no such token. The same objects as
    ``ApiToken.objects.select_related("user__player", "user__calendar_feed").get(key_hash=...)``."""
    db = connections[router.db_for_read(ApiToken)]
    plan = _plan(db)
    with db.cursor() as cursor:
        cursor.execute(plan.statement, [key_hash])
        row = cursor.fetchone()
    if row is None:
        return None
    token = plan.token.read(row, 0, db)
    start = len(plan.token.attnames)
    user = plan.user.read(row, start, db)
    start += len(plan.user.attnames)
    player = plan.player.read(row, start, db)
    start += len(plan.player.attnames)
    feed = plan.feed.read(row, start, db)
    assert isinstance(token, ApiToken) and user is not None
    ApiToken._meta.get_field("user").set_cached_value(token, user)
    for model, found in ((Player, player), (CalendarFeed, feed)):
        # The reverse one-to-one on the user: the row, or None, read no more.
        one_to_one = model._meta.get_field("user")
        one_to_one.remote_field.set_cached_value(user, found)
        if found is not None:
            one_to_one.set_cached_value(found, user)
    return token
