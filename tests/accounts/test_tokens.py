"""API tokens: hashed at rest, scoped, revocable, listed without secrets."""

import hashlib
from datetime import timedelta

import pytest
import time_machine
from django.db import connection
from django.utils import timezone
from rest_framework.response import Response
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from accounts.models import ApiToken
from accounts.permissions import CanPlay, CanRead, CanReadOrPlay
from accounts.services import token_create, token_revoke
from tests.accounts.conftest import client_with

PROBLEM = "application/problem+json"


def test_token_text_is_spl_and_43_url_safe_characters(alice_play_token):
    _, plain = alice_play_token
    assert plain.startswith("spl_") and len(plain) == 4 + 43


def test_the_database_holds_the_sha256_of_the_token_never_the_token(alice_play_token):
    token, plain = alice_play_token
    assert token.key_hash == hashlib.sha256(plain.encode()).hexdigest()
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM accounts_apitoken")
        rows = cursor.fetchall()
    assert rows and not any(plain in str(value) for row in rows for value in row)
    assert plain[4:] not in token.prefix


def test_play_scope_implies_read(alice):
    token, _ = token_create(user=alice, name="t", scopes=["play"])
    assert token.scopes == ["play", "read"]
    assert token.has_scope("read")


def test_unknown_scope_is_a_validation_error(alice):
    from core.errors import InvalidInput as ValidationError

    with pytest.raises(ValidationError):
        token_create(user=alice, name="t", scopes=["admin"])


def test_a_valid_token_authenticates_the_player(alice_play_token):
    _, plain = alice_play_token
    response = client_with(plain).get("/api/v1/me/")
    assert response.status_code == 200
    assert response.json()["username"] == "alice"
    assert response.json()["scopes"] == ["play", "read"]


@pytest.mark.django_db
def test_unknown_token_gets_401_invalid_token():
    response = client_with("spl_" + "x" * 43).get("/api/v1/me/")
    assert response.status_code == 401
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "invalid_token"
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'


@pytest.mark.django_db
def test_anonymous_caller_gets_401_not_403(client):
    response = client.get("/api/v1/me/")
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'


def test_revoked_token_gets_401_saying_it_was_revoked(alice, alice_play_token):
    token, plain = alice_play_token
    token_revoke(token=token, by_user=alice)
    response = client_with(plain).get("/api/v1/me/")
    assert response.status_code == 401
    body = response.json()
    assert body["code"] == "token_revoked"
    assert "was revoked" in body["detail"]


def test_revoking_twice_keeps_the_first_revocation_time(alice, alice_play_token):
    token, _ = alice_play_token
    first = token_revoke(token=token, by_user=alice).revoked_at
    assert token_revoke(token=token, by_user=alice).revoked_at == first


def test_nobody_but_the_owner_or_staff_may_revoke_a_token(alice_play_token, bob):
    token, _ = alice_play_token
    with pytest.raises(PermissionError):
        token_revoke(token=token, by_user=bob)


def test_last_used_is_written_at_most_once_a_minute(alice_play_token):
    token, plain = alice_play_token
    client = client_with(plain)
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        client.get("/api/v1/me/")
    token.refresh_from_db()
    assert token.last_used_at == start
    with time_machine.travel(start + timedelta(seconds=30), tick=False):
        client.get("/api/v1/me/")
    token.refresh_from_db()
    assert token.last_used_at == start
    with time_machine.travel(start + timedelta(seconds=61), tick=False):
        client.get("/api/v1/me/")
    token.refresh_from_db()
    assert token.last_used_at == start + timedelta(seconds=61)


# --- scopes, on a tiny view -----------------------------------------------------


class PlayView(APIView):
    permission_classes = [CanPlay]

    def post(self, request):
        return Response({"ok": True})


class ReadView(APIView):
    permission_classes = [CanRead]

    def get(self, request):
        return Response({"ok": True})


class MixedView(APIView):
    permission_classes = [CanReadOrPlay]

    def get(self, request):
        return Response({"ok": True})

    def post(self, request):
        return Response({"ok": True})


def call(view, method, token=None):
    factory = APIRequestFactory()
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    request = getattr(factory, method)("/x/", {}, format="json", **headers)
    response = view.as_view()(request)
    response.render()
    return response


def test_read_only_token_cannot_post_where_play_is_required(alice_read_token):
    _, plain = alice_read_token
    response = call(PlayView, "post", plain)
    assert response.status_code == 403
    assert response["Content-Type"] == PROBLEM
    body = response.data
    assert body["code"] == "insufficient_scope"
    assert body["required_scope"] == "play"
    assert "`play`" in body["detail"]


def test_play_token_can_post_where_play_is_required(alice_play_token):
    _, plain = alice_play_token
    assert call(PlayView, "post", plain).status_code == 200


def test_read_only_token_can_read(alice_read_token):
    _, plain = alice_read_token
    assert call(ReadView, "get", plain).status_code == 200


def test_mixed_view_wants_read_for_get_and_play_for_post(alice_read_token):
    _, plain = alice_read_token
    assert call(MixedView, "get", plain).status_code == 200
    assert call(MixedView, "post", plain).status_code == 403


@pytest.mark.django_db
def test_scope_permissions_answer_anonymous_callers_with_401():
    assert call(PlayView, "post").status_code == 401


# --- the tokens API ---------------------------------------------------------------


def test_first_token_is_minted_with_username_and_password(alice):
    response = client_with().post(
        "/api/v1/tokens/",
        {"name": "phone", "username": "alice", "password": "correct horse battery"},
        format="json",
    )
    assert response.status_code == 201
    body = response.json()
    assert body["token"].startswith("spl_")
    assert body["scopes"] == ["play", "read"]
    assert client_with(body["token"]).get("/api/v1/me/").status_code == 200


def test_wrong_password_gets_401_invalid_credentials(alice):
    response = client_with().post(
        "/api/v1/tokens/", {"name": "phone", "username": "alice", "password": "wrong"}, format="json"
    )
    assert response.status_code == 401
    assert response.json()["code"] == "invalid_credentials"


def test_a_play_token_mints_another_token(alice_play_token):
    _, plain = alice_play_token
    response = client_with(plain).post("/api/v1/tokens/", {"name": "bot", "scopes": ["read"]}, format="json")
    assert response.status_code == 201
    assert response.json()["scopes"] == ["read"]


def test_a_read_token_cannot_mint_tokens(alice_read_token):
    _, plain = alice_read_token
    response = client_with(plain).post("/api/v1/tokens/", {"name": "bot"}, format="json")
    assert response.status_code == 403
    assert response.json()["code"] == "insufficient_scope"


@pytest.mark.django_db
def test_minting_without_any_credentials_gets_401():
    response = client_with().post("/api/v1/tokens/", {"name": "bot"}, format="json")
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"


def test_token_listing_never_contains_secrets_or_hashes(alice, alice_play_token, alice_read_token):
    _, plain = alice_play_token
    response = client_with(plain).get("/api/v1/tokens/")
    assert response.status_code == 200
    text = response.content.decode()
    for token, secret in (alice_play_token, alice_read_token):
        assert secret not in text
        assert token.key_hash not in text
    body = response.json()
    assert body["count"] == 2
    assert {t["name"] for t in body["results"]} == {"laptop", "dashboard"}
    assert set(body["results"][0]) == {
        "id", "name", "prefix", "scopes", "created_at", "last_used_at", "revoked_at", "revoked",
    }


def test_token_listing_shows_only_ones_own_tokens(alice_play_token, bob):
    token_create(user=bob, name="bobs", scopes=["read"])
    _, plain = alice_play_token
    names = [t["name"] for t in client_with(plain).get("/api/v1/tokens/").json()["results"]]
    assert names == ["laptop"]


def test_deleting_ones_own_token_revokes_it(alice_play_token, alice_read_token):
    _, plain = alice_play_token
    other, other_plain = alice_read_token
    response = client_with(plain).delete(f"/api/v1/tokens/{other.pk}/")
    assert response.status_code == 204
    assert client_with(other_plain).get("/api/v1/me/").json()["code"] == "token_revoked"


def test_deleting_someone_elses_token_is_404(alice_play_token, bob):
    bobs, _ = token_create(user=bob, name="bobs", scopes=["read"])
    _, plain = alice_play_token
    response = client_with(plain).delete(f"/api/v1/tokens/{bobs.pk}/")
    assert response.status_code == 404
    assert response["Content-Type"] == PROBLEM
    assert response.json()["code"] == "not_found"
    assert ApiToken.objects.get(pk=bobs.pk).revoked_at is None


def test_minting_with_a_bad_scope_is_a_validation_problem(alice_play_token):
    _, plain = alice_play_token
    response = client_with(plain).post("/api/v1/tokens/", {"scopes": ["admin"]}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "validation_error"
    assert set(body["errors"]) == {"name", "scopes"}
