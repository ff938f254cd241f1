"""A token with its account read by one statement written by hand
(accounts.token_rows): the same objects, values and cached relations as the ORM's
``select_related("user__player", "user__calendar_feed")``, in one query."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Model

from accounts.models import ApiToken
from accounts.services import calendar_feed_get, token_create, token_revoke
from accounts.token_rows import token_with_account
from accounts.tokens import token_hash


def orm_read(plain: str) -> ApiToken:
    return ApiToken.objects.select_related("user__player", "user__calendar_feed").get(key_hash=token_hash(plain))


def values(obj: Model) -> dict[str, Any]:
    return {field.attname: getattr(obj, field.attname) for field in obj._meta.concrete_fields}


def test_the_statement_reads_what_the_orm_reads_with_the_relations_cached(
    alice: Any, django_assert_num_queries: Any
) -> None:
    calendar_feed_get(user=alice)
    _, plain = token_create(user=alice, name="bot", scopes=["play", "read"])
    expected = orm_read(plain)
    with django_assert_num_queries(1):
        token = token_with_account(token_hash(plain))
        assert token is not None
        user = token.user
        player, feed = user.player, user.calendar_feed
        assert player.user is user and feed.user is user
    assert values(token) == values(expected)
    assert token.scopes == ["play", "read"] and token.created_at.tzinfo is not None
    assert values(user) == values(expected.user)
    assert values(player) == values(expected.user.player)
    assert values(feed) == values(expected.user.calendar_feed)
    assert token._state.db == expected._state.db and not token._state.adding


def test_an_account_without_a_player_or_calendar_address_is_known_to_have_none(
    db: Any, django_assert_num_queries: Any
) -> None:
    root = get_user_model().objects.create_user(username="root", email="root@example.com")
    _, plain = token_create(user=root, name="t", scopes=["read"])
    with django_assert_num_queries(1):
        token = token_with_account(token_hash(plain))
        assert token is not None
        assert getattr(token.user, "player", None) is None
        assert getattr(token.user, "calendar_feed", None) is None


def test_a_revoked_token_is_read_as_revoked_and_an_unknown_one_not_at_all(alice: Any) -> None:
    row, plain = token_create(user=alice, name="bot", scopes=["play"])
    token_revoke(token=row, by_user=alice)
    token = token_with_account(token_hash(plain))
    assert token is not None and token.is_revoked
    assert token_with_account(token_hash(plain + "x")) is None
