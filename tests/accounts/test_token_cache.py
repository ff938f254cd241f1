"""API tokens kept a moment in each process (accounts.token_cache).

- In this process, a token that authenticated answers the next requests without a
  query; whatever refuses a token (revoking, suspending, disabling, erasing, fewer
  scopes) refuses it at the very next request.
- A change made by another process (here: an UPDATE that sends no signal, which is
  all this process sees of it) is seen once the entry is API_TOKEN_CACHE_SECONDS
  old: the cache's clock is moved on instead of waiting.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from accounts.authentication import BearerTokenAuthentication
from accounts.models import ApiToken, Player
from accounts.services import (
    player_disable,
    player_erase,
    player_suspend,
    player_unsuspend,
    token_create,
    token_revoke,
)
from accounts.token_cache import TokenCache, token_cache
from accounts.tokens import token_hash
from tests.accounts.conftest import client_with


class Clock:
    """The cache's clock, moved on by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch, settings: Any) -> Iterator[Clock]:
    # The default, whatever the suite's (a cache whose entries age on the wall clock
    # would make other tests' query counts depend on how fast they run).
    settings.API_TOKEN_CACHE_SECONDS = 1
    clock = Clock()
    monkeypatch.setattr(token_cache, "clock", clock)
    token_cache.clear()
    yield clock
    token_cache.clear()


@pytest.fixture
def plain(alice: Any, clock: Clock) -> str:
    return token_create(user=alice, name="bot", scopes=["play"])[1]


def authenticate(plain: str) -> tuple[Any, ApiToken]:
    request = Request(APIRequestFactory().get("/api/v1/me/", HTTP_AUTHORIZATION=f"Bearer {plain}"))
    answer = BearerTokenAuthentication().authenticate(request)
    assert answer is not None
    return answer


def kept(plain: str) -> None:
    """Authenticate, and see that the token is now kept (so what follows tests the cache)."""
    authenticate(plain)
    assert token_hash(plain) in token_cache._entries


def refusal(plain: str, path: str = "/api/v1/me/") -> str:
    answer = client_with(plain).get(path)
    assert answer.status_code == 401, answer.content
    return str(answer.json()["code"])


def test_a_kept_token_authenticates_without_a_query(plain: str, django_assert_num_queries: Any) -> None:
    authenticate(plain)  # read, kept, and its first use written
    with django_assert_num_queries(0):
        user, token = authenticate(plain)
    assert user.username == "alice" and user.player.display_name == "Alice" and token.has_scope("play")


def test_a_request_makes_one_query_fewer_with_the_cache_than_without(
    plain: str, settings: Any, django_assert_num_queries: Any
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = client_with(plain)
    client.get("/api/v1/me/")  # the calendar address is made, the first use written
    client.get("/api/v1/me/")
    with CaptureQueriesContext(connection) as kept:
        assert client.get("/api/v1/me/").status_code == 200
    settings.API_TOKEN_CACHE_SECONDS = 0
    with CaptureQueriesContext(connection) as read:
        assert client.get("/api/v1/me/").status_code == 200
    assert len(kept) == len(read) - 1
    assert not any("accounts_apitoken" in query["sql"] for query in kept.captured_queries)


def test_with_the_setting_at_0_nothing_is_kept(plain: str, settings: Any, django_assert_num_queries: Any) -> None:
    settings.API_TOKEN_CACHE_SECONDS = 0
    authenticate(plain)
    with django_assert_num_queries(1):
        authenticate(plain)
    assert len(token_cache) == 0


def test_the_cache_is_keyed_by_the_tokens_hash_never_its_secret(plain: str) -> None:
    authenticate(plain)
    assert list(token_cache._entries) == [token_hash(plain)]
    assert plain not in repr(token_cache._entries)


def test_each_request_gets_objects_of_its_own(plain: str) -> None:
    first_user, first_token = authenticate(plain)
    first_user.first_name = "Mallory"
    first_user.player.display_name = "Mallory"
    first_token.scopes.append("admin")
    second_user, second_token = authenticate(plain)
    assert second_user is not first_user and second_user.player is not first_user.player
    assert second_user.first_name == "" and second_user.player.display_name == "Alice"
    assert second_token.scopes == ["play", "read"]
    assert second_user.player.user is second_user and second_token.user is second_user


def test_a_user_without_a_player_or_calendar_address_is_kept_as_such(
    db: Any, clock: Clock, django_assert_num_queries: Any
) -> None:
    from django.contrib.auth import get_user_model

    root = get_user_model().objects.create_user(username="root", email="root@example.com")
    _, secret = token_create(user=root, name="t", scopes=["read"])
    authenticate(secret)
    with django_assert_num_queries(0):
        user, _ = authenticate(secret)
        assert getattr(user, "player", None) is None
        assert getattr(user, "calendar_feed", None) is None


# --- a change in this process: refused at the very next request -------------------


def test_a_revoked_token_is_refused_at_once(alice: Any, plain: str) -> None:
    kept(plain)
    token_revoke(token=ApiToken.objects.get(key_hash=token_hash(plain)), by_user=alice)
    assert refusal(plain) == "token_revoked"


def test_a_token_deleted_through_the_api_is_refused_at_once(alice: Any, plain: str) -> None:
    client = client_with(plain)
    kept(plain)
    token = ApiToken.objects.get(key_hash=token_hash(plain))
    assert client.delete(f"/api/v1/tokens/{token.pk}/").status_code in (200, 204)
    assert refusal(plain) == "token_revoked"


def test_a_suspended_account_is_refused_at_once_and_served_again_once_lifted(
    alice: Any, bob: Any, plain: str
) -> None:
    kept(plain)
    player_suspend(user=alice, by_user=bob, reason="abuse")
    assert refusal(plain) == "account_suspended"
    player_unsuspend(user=alice, by_user=bob)
    assert client_with(plain).get("/api/v1/me/").status_code == 200  # a refusal is never kept


def test_a_disabled_account_is_refused_at_once(alice: Any, plain: str) -> None:
    kept(plain)
    player_disable(user=alice)
    assert refusal(plain) == "account_disabled"


def test_an_account_made_inactive_in_the_user_admin_is_refused_at_once(alice: Any, plain: str) -> None:
    kept(plain)
    alice.is_active = False
    alice.save()
    assert refusal(plain) == "account_disabled"


def test_an_erased_accounts_token_is_refused_at_once(alice: Any, plain: str) -> None:
    kept(plain)
    player_erase(user=alice)
    assert refusal(plain) == "invalid_token"


def test_a_token_with_fewer_scopes_is_refused_what_it_no_longer_grants_at_once(plain: str) -> None:
    client = client_with(plain)
    assert client.post("/api/v1/games/", {"seats": 2}, format="json").status_code != 403
    assert token_hash(plain) in token_cache._entries
    token = ApiToken.objects.get(key_hash=token_hash(plain))
    token.scopes = ["read"]
    token.save()
    answer = client.post("/api/v1/games/", {"seats": 2}, format="json")
    assert answer.status_code == 403 and answer.json()["code"] == "insufficient_scope"


def test_staff_rights_taken_away_are_seen_at_once(alice: Any, plain: str) -> None:
    alice.is_staff = True
    alice.save()
    assert authenticate(plain)[0].is_staff
    alice.is_staff = False
    alice.save()
    assert not authenticate(plain)[0].is_staff


def test_a_change_committed_after_a_look_up_began_is_not_kept(plain: str, alice: Any) -> None:
    """A request reads the rows, another thread revokes and forgets, then the first
    request stores what it read: it must not be kept."""
    cache = TokenCache(clock=lambda: 0.0)
    token = ApiToken.objects.select_related("user__player", "user__calendar_feed").get(key_hash=token_hash(plain))
    began = cache.begin()
    cache.forget_user(alice.pk)
    cache.put(token_hash(plain), token, began=began)
    assert cache.get(token_hash(plain), max_age=1) is None


def test_a_revoke_inside_a_transaction_is_forgotten_again_when_it_commits(
    alice: Any, plain: str, django_capture_on_commit_callbacks: Any
) -> None:
    from django.db import transaction

    with django_capture_on_commit_callbacks(execute=True):
        with transaction.atomic():
            token_revoke(token=ApiToken.objects.get(key_hash=token_hash(plain)), by_user=alice)
            # Another request of this process read the rows before the commit and kept them.
            token = ApiToken.objects.select_related("user__player", "user__calendar_feed").get(
                key_hash=token_hash(plain)
            )
            token.revoked_at = None
            token_cache.put(token_hash(plain), token, began=token_cache.begin())
            assert len(token_cache) == 1
    assert len(token_cache) == 0
    assert refusal(plain) == "token_revoked"


# --- a change in another process: seen once the entry is the setting's age -----


@pytest.mark.parametrize("change", ["revoke", "suspend", "disable", "erase", "scopes"])
def test_a_change_made_elsewhere_is_seen_once_the_entry_is_the_settings_age(
    alice: Any, plain: str, clock: Clock, settings: Any, change: str
) -> None:
    settings.API_TOKEN_CACHE_SECONDS = 1
    kept(plain)
    # What another process's change leaves in this one: the rows changed, no signal here.
    tokens = ApiToken.objects.filter(key_hash=token_hash(plain))
    now = timezone.now()
    if change == "revoke":
        tokens.update(revoked_at=now)
    elif change == "suspend":
        Player.objects.filter(user=alice).update(suspended_at=now)
    elif change == "disable":
        type(alice).objects.filter(pk=alice.pk).update(is_active=False)
    elif change == "erase":
        tokens.delete()
    else:
        tokens.update(scopes=["read"])
    clock.now += 0.9
    assert authenticate(plain)[1].has_scope("play")  # still kept: within the bound
    clock.now += 0.1
    if change == "scopes":
        assert not authenticate(plain)[1].has_scope("play")
    else:
        with pytest.raises(AuthenticationFailed):
            authenticate(plain)


def test_the_age_counts_from_before_the_query_that_read_the_rows(plain: str, clock: Clock) -> None:
    began = token_cache.begin()
    clock.now += 0.6
    token = ApiToken.objects.select_related("user__player", "user__calendar_feed").get(key_hash=token_hash(plain))
    token_cache.put(token_hash(plain), token, began=began)
    clock.now += 0.4
    assert token_cache.get(token_hash(plain), max_age=1) is None


# --- the last use, the bound on memory ---------------------------------------------


def test_the_last_use_is_still_written_once_a_minute(
    plain: str, clock: Clock, django_assert_num_queries: Any
) -> None:
    authenticate(plain)
    first = ApiToken.objects.get(key_hash=token_hash(plain)).last_used_at
    assert first is not None
    with time_machine.travel(timezone.now() + timedelta(minutes=2), tick=False):
        with django_assert_num_queries(1):  # the write alone: the token is kept
            authenticate(plain)
        with django_assert_num_queries(0):  # the kept copy knows of it
            authenticate(plain)
    later = ApiToken.objects.get(key_hash=token_hash(plain)).last_used_at
    assert later is not None and later - first >= timedelta(minutes=2)


def test_the_least_recently_used_token_goes_first_when_the_cache_is_full(alice: Any, clock: Clock) -> None:
    cache = TokenCache(max_entries=2, clock=clock)
    secrets = [token_create(user=alice, name=f"t{n}", scopes=["read"])[1] for n in range(3)]
    tokens = {
        secret: ApiToken.objects.select_related("user__player", "user__calendar_feed").get(key_hash=token_hash(secret))
        for secret in secrets
    }
    cache.put(token_hash(secrets[0]), tokens[secrets[0]], began=cache.begin())
    cache.put(token_hash(secrets[1]), tokens[secrets[1]], began=cache.begin())
    assert cache.get(token_hash(secrets[0]), max_age=1) is not None  # used: now the most recent
    cache.put(token_hash(secrets[2]), tokens[secrets[2]], began=cache.begin())
    assert len(cache) == 2
    assert cache.get(token_hash(secrets[1]), max_age=1) is None
    assert cache.get(token_hash(secrets[0]), max_age=1) is not None


def test_an_unknown_or_refused_token_is_read_every_time(
    alice: Any, bob: Any, plain: str, django_assert_num_queries: Any
) -> None:
    unknown = "spl_" + "x" * 43
    for _ in range(2):
        with django_assert_num_queries(1), pytest.raises(AuthenticationFailed):
            authenticate(unknown)
    player_suspend(user=alice, by_user=bob, reason="abuse")
    for _ in range(2):
        with django_assert_num_queries(1), pytest.raises(AuthenticationFailed):
            authenticate(plain)
    assert len(token_cache) == 0


def test_the_setting_is_whole_seconds_from_0_to_10(monkeypatch: pytest.MonkeyPatch) -> None:
    from splendor_site import api_settings

    try:
        for wrong in ("11", "0.5", "-1", "soon"):
            monkeypatch.setenv("API_TOKEN_CACHE_SECONDS", wrong)
            with pytest.raises(ImproperlyConfigured, match="API_TOKEN_CACHE_SECONDS"):
                importlib.reload(api_settings)
        monkeypatch.setenv("API_TOKEN_CACHE_SECONDS", "0")
        assert importlib.reload(api_settings).API_TOKEN_CACHE_SECONDS == 0
    finally:
        monkeypatch.delenv("API_TOKEN_CACHE_SECONDS")
        assert importlib.reload(api_settings).API_TOKEN_CACHE_SECONDS == 1
