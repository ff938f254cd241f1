"""The admin names every model in plain English: its index, its lists and their
counts ("2 season entries", never "2 season entrys" or "2 league moderation log").

Personas: root is a superuser who sees every app; alice and bob are players.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from accounts.services import token_create, token_revoke
from games import moderation
from leagues.models import PlayerRating, SeasonEntry
from webhooks.models import Endpoint
from tests.leagues.conftest import add_members, make_league, make_season

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent


def _ours(path: str) -> bool:
    """In this repository and not in an installed package (a virtual environment
    may sit in the checkout)."""
    folder = Path(path).resolve()
    if not folder.is_relative_to(ROOT):
        return False
    parts = folder.relative_to(ROOT).parts
    return "site-packages" not in parts and not any(part.startswith(".") for part in parts)


# The project's apps as the app registry knows them: a new app's models are
# checked without naming it here.
PROJECT_APPS = tuple(config.label for config in apps.get_app_configs() if _ours(config.path))


@pytest.fixture
def root_client(db: None) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", "root@example.com", "a long admin password"))
    return client


def _naive_plural(singular: str) -> bool:
    """Django's default plural (the singular with an "s") where English wants
    another: "entrys", "preferencess", "boxs"."""
    return re.search(r"([^aeiou]y|s|x|z|ch|sh)$", singular) is not None


def test_the_apps_are_read_from_the_app_registry() -> None:
    assert {"accounts", "games", "notifications", "webhooks", "leagues", "chat", "streams"} <= set(PROJECT_APPS)
    assert "admin" not in PROJECT_APPS and "anymail" not in PROJECT_APPS


@pytest.mark.parametrize(
    "model",
    [model for app in PROJECT_APPS for model in apps.get_app_config(app).get_models()],
    ids=lambda model: model._meta.label,
)
def test_no_model_has_a_plural_made_by_adding_an_s_where_english_does_not(model: Any) -> None:
    options = model._meta
    singular, plural = str(options.verbose_name), str(options.verbose_name_plural)
    assert not (_naive_plural(singular) and plural == f"{singular}s"), plural


def test_the_admin_index_names_the_models_in_plain_english(root_client: Client) -> None:
    page = root_client.get("/admin/").content.decode()

    for label in (
        "Season entries",
        "Email preferences",
        "League moderation entries",
        "API tokens",
        "Invitation opt-outs",
    ):
        assert f">{label}<" in page, label
    for slip in ("entrys", "Preferencess", "moderation log<", "Api tokens", "opt outs"):
        assert slip not in page


def test_the_season_entries_list_counts_its_entries_in_english(root_client: Client, alice: Any, bob: Any) -> None:
    season = make_season(make_league())
    for user in (alice, bob):
        SeasonEntry.objects.create(season=season, user=user, joined_at=timezone.now())

    page = root_client.get("/admin/leagues/seasonentry/").content.decode()

    assert "2 season entries" in page


def test_the_league_moderation_log_counts_its_entries_in_english(root_client: Client, alice: Any, bob: Any) -> None:
    add_members(make_league(), [alice, bob])
    moderator = get_user_model().objects.get(username="root")
    for user in (alice, bob):
        moderation.moderation_player_warn(user=user, by_user=moderator, reason="Rude in chat")

    page = root_client.get("/admin/leagues/leaguemoderationentry/").content.decode()

    assert "2 league moderation entries" in page


def _filter_titles_and_answers(page: str) -> str:
    """The list's filter panel as text: "By revoked All Yes No ..."."""
    panel = page[page.index('id="changelist-filter"') :]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", panel))


def test_the_token_list_asks_whether_a_token_was_revoked(root_client: Client, alice: Any, bob: Any) -> None:
    mine, _ = token_create(user=alice, name="laptop", scopes=["play"])
    token_create(user=bob, name="phone", scopes=["play"])
    token_revoke(token=mine, by_user=alice)

    page = root_client.get("/admin/accounts/apitoken/").content.decode()
    revoked = root_client.get("/admin/accounts/apitoken/", {"revoked_at__isempty": "0"}).content.decode()

    assert "By revoked All No Yes" in _filter_titles_and_answers(page)
    assert "Not empty" not in _filter_titles_and_answers(page)
    assert "laptop" in revoked and "phone" not in revoked


def test_the_player_list_asks_whether_a_player_is_active_erased_or_suspended(root_client: Client, alice: Any) -> None:
    panel = _filter_titles_and_answers(root_client.get("/admin/accounts/player/").content.decode())

    assert "By active" in panel and "By erased All No Yes" in panel and "By suspended All No Yes" in panel
    assert "By erased at" not in panel and "By is active" not in panel


def test_the_webhook_endpoint_list_says_active_not_is_active(root_client: Client, alice: Any) -> None:
    Endpoint.objects.create(owner=alice, url="https://hooks.example.com/splendor", secret="whsec_test")

    page = root_client.get("/admin/webhooks/endpoint/").content.decode()

    assert "By active" in _filter_titles_and_answers(page)
    assert "Is active" not in page and "is active" not in page


def test_the_rating_list_names_the_rating_deviation(root_client: Client, alice: Any) -> None:
    PlayerRating.objects.create(user=alice, variant="base")

    page = root_client.get("/admin/leagues/playerrating/").content.decode()

    assert "RD (rating deviation)" in page and ">Rd<" not in page
