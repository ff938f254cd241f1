"""Every admin action says what it needs, and a user without it can neither see
it nor run it by a hand-made POST.

The walk reads the actions from the admin site itself (every registered
ModelAdmin's ``actions`` and the site-wide ``admin.site.actions``), so an action
added later is walked too.

Personas:
- vera: staff holding every ``view_*`` permission and nothing else (read-only staff);
- moritz: staff in a "Moderators" group as docs/operations.md sets it up
  (``games.moderate_game`` and ``accounts.view_player``): moderates games and
  players, but may not disable or erase an account;
- root: a superuser, who is offered every custom action (so the walk cannot pass on nothing);
- alice, bob, carol, dave: players whose games, tokens, league, lines of table talk
  and notifications give every list a real row to aim at;
- erin, frank: the players of a running tournament (its entries and its game).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.sessions.models import Session
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import timezone

from accounts.models import AccountActionLog, Player
from accounts.services import token_create
from chat import services as chat_services
from leagues import services as league_services
from leagues.models import LeagueGame
from notifications.models import Notification
from tests.games.game_helpers import make_player, start_two_player_game
from tests.leagues.conftest import add_members, make_league, make_season
from tournaments import services as tournament_services

pytestmark = pytest.mark.django_db

User = get_user_model()

# Django's own, offered only with the model's delete permission.
SITE_WIDE = dict(admin.site.actions)
# What a forged confirmation carries: every field any confirmation page asks for.
CONFIRMED = {
    "post": "yes",
    "reason": "Forged by a hand-made POST",
    "note": "Forged",
    "hours": "1",
    "places": "1, 2",
    "seat": "0",
    "new_user": "",
}


def _actions_of(modeladmin: admin.ModelAdmin[Any]) -> Iterator[tuple[str, Any]]:
    """Every action the admin site gives this ModelAdmin, whoever asks: its own and the site's."""
    for action in [*(modeladmin.actions or []), *SITE_WIDE]:
        found = modeladmin.get_action(action)
        if found is not None:
            func, name, _ = found
            yield name, func


def _walk() -> list[tuple[admin.ModelAdmin[Any], str, Any]]:
    return [
        (modeladmin, name, func)
        for modeladmin in admin.site._registry.values()
        for name, func in _actions_of(modeladmin)
    ]


def _offered(modeladmin: admin.ModelAdmin[Any], user: Any) -> set[str]:
    request = RequestFactory().get("/admin/")
    request.user = user
    return set(modeladmin.get_actions(request))


def _everything() -> dict[str, list[dict[str, Any]]]:
    """Every row of every table (sessions aside: a request may touch its own)."""
    return {
        model._meta.label: list(model._base_manager.order_by("pk").values())
        for model in apps.get_models()
        if model._meta.managed and not model._meta.proxy and model is not Session
    }


def _a_row_of(modeladmin: admin.ModelAdmin[Any], root: Any) -> Any:
    """A row the list holds, as a superuser sees it (a league's proxies list only their own)."""
    request = RequestFactory().get("/admin/")
    request.user = root
    return modeladmin.get_queryset(request).order_by("pk").values_list("pk", flat=True).first()


def _staff(username: str, permissions: list[Permission]) -> Any:
    user = make_player(username)
    user.is_staff = True
    user.save()
    user.user_permissions.set(permissions)
    return User.objects.get(pk=user.pk)  # permissions are cached per instance


@pytest.fixture
def world(db: None) -> dict[str, Any]:
    """A row in every list that has an action of its own."""
    alice, bob, carol, dave = (make_player(name) for name in ("alice", "bob", "carol", "dave"))
    game = start_two_player_game(alice, bob)
    line = chat_services.chat_message_post(game_id=game.pk, user=bob, text="you cheat")
    chat_services.chat_message_report(game_id=game.pk, message_id=line.pk, user=alice, reason="rude")
    token_create(user=alice, name="laptop", scopes=["play"])
    league = make_league("Tuesday League")
    add_members(league, [carol, dave])
    league_services.season_start(season_id=make_season(league).pk)
    league_game = LeagueGame.objects.select_related("game").get()
    line_in_league = chat_services.chat_message_post(game_id=league_game.game_id, user=dave, text="good luck")
    Notification.objects.create(kind="your_turn", user=alice, game=game, key="test:your_turn")
    tournament = tournament_services.tournament_create(
        creator=carol, name="Winter Swiss", format="swiss", seats=2, rounds=1
    )
    for name in ("erin", "frank"):
        tournament_services.tournament_join(tournament_id=tournament.pk, user=make_player(name))
    tournament_services.tournament_start(tournament_id=tournament.pk, by=carol)
    return {"alice": alice, "game": game, "line": line, "league_line": line_in_league}


@pytest.fixture
def vera(db: None) -> Any:
    return _staff("vera", list(Permission.objects.filter(codename__startswith="view_")))


@pytest.fixture
def moritz(db: None) -> Any:
    """Staff in "Moderators", set up as docs/operations.md says."""
    moderators = Group.objects.create(name="Moderators")
    moderators.permissions.set(
        [
            Permission.objects.get(content_type__app_label="games", codename="moderate_game"),
            Permission.objects.get(content_type__app_label="accounts", codename="view_player"),
        ]
    )
    user = _staff("moritz", [])
    user.groups.add(moderators)
    return User.objects.get(pk=user.pk)


@pytest.fixture
def root(db: None) -> Any:
    return User.objects.create_superuser("root", "root@example.com", "pw-for-tests-only")


def _signed_in(user: Any) -> Client:
    client = Client()
    client.force_login(user)  # before any snapshot: signing in writes last_login
    return client


def _forge(client: Client, modeladmin: admin.ModelAdmin[Any], name: str, pk: Any) -> int:
    opts = modeladmin.model._meta
    url = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
    answer = client.post(url, {"action": name, "_selected_action": [str(pk)], **CONFIRMED})
    return answer.status_code


def test_every_admin_action_names_the_permissions_it_needs() -> None:
    walked = _walk()

    assert len(walked) >= 40  # every registered list, each with at least the site's delete
    undeclared = [
        f"{modeladmin.model._meta.label}.{name}"
        for modeladmin, name, func in walked
        if not getattr(func, "allowed_permissions", None)
    ]
    assert undeclared == []


def test_a_superuser_is_offered_every_action_of_the_apps_own(root: Any) -> None:
    own = [(modeladmin, name) for modeladmin, name, _ in _walk() if name not in SITE_WIDE]
    assert len(own) >= 15

    missing = [f"{m.model._meta.label}.{name}" for m, name in own if name not in _offered(m, root)]

    assert missing == []


def test_read_only_staff_is_offered_no_action_on_any_list(vera: Any) -> None:
    assert vera.has_perm("accounts.view_player") and vera.has_perm("games.view_game")

    offered = {
        f"{modeladmin.model._meta.label}.{name}"
        for modeladmin in admin.site._registry.values()
        for name in _offered(modeladmin, vera)
    }

    assert offered == set()


def test_a_forged_post_of_every_action_by_read_only_staff_changes_nothing(
    world: dict[str, Any], vera: Any, root: Any
) -> None:
    client = _signed_in(vera)
    before = _everything()
    assert before["accounts.Player"] and before["chat.ChatMessage"] and before["leagues.Season"]
    assert before["tournaments.Entry"] and before["tournaments.TournamentGame"]
    forged, refused = [], []

    for modeladmin, name, _ in _walk():
        pk = _a_row_of(modeladmin, root)
        if pk is None:
            assert name in SITE_WIDE, f"{modeladmin.model._meta.label} has no row to aim {name} at"
            continue
        status = _forge(client, modeladmin, name, pk)
        forged.append(f"{modeladmin.model._meta.label}.{name}")
        if status >= 500:
            refused.append((forged[-1], status))

    assert len(forged) >= 30
    assert "accounts.Player.erase_accounts" in forged and "accounts.Player.disable_accounts" in forged
    assert {"tournaments.Entry.withdraw_entries", "tournaments.Entry.replace_entry"} <= set(forged)
    assert "tournaments.TournamentGame.adjudicate_games" in forged
    assert refused == []
    assert _everything() == before


def test_a_moderator_is_offered_the_moderation_actions_and_not_disabling_or_erasing(moritz: Any) -> None:
    players = admin.site._registry[Player]

    offered = _offered(players, moritz)

    assert {"moderate_warn", "moderate_suspend", "moderate_unsuspend"} <= offered
    assert "disable_accounts" not in offered and "erase_accounts" not in offered
    everywhere = {
        name
        for modeladmin, name, func in _walk()
        if name in _offered(modeladmin, moritz)
    }
    needing_more = {
        name
        for modeladmin, name, func in _walk()
        if name in everywhere and set(func.allowed_permissions) != {"moderate"}
    }
    assert needing_more == set()


def test_a_moderators_forged_disable_or_erase_leaves_the_account_alone(world: dict[str, Any], moritz: Any) -> None:
    alice = world["alice"]
    players = admin.site._registry[Player]
    pk = Player.objects.get(user=alice).pk
    client = _signed_in(moritz)

    statuses = {_forge(client, players, name, pk) for name in ("disable_accounts", "erase_accounts")}

    assert statuses == {302}  # back to the list: "No action selected."
    alice.refresh_from_db()
    assert alice.is_active and alice.username == "alice"
    assert not AccountActionLog.objects.exists()


def test_the_same_forged_post_from_a_user_holding_the_permission_disables_the_account(
    world: dict[str, Any], moritz: Any
) -> None:
    """The control: the walk's payload is enough when the permission is there."""
    moritz.user_permissions.add(Permission.objects.get(content_type__app_label="accounts", codename="disable_player"))
    moritz = User.objects.get(pk=moritz.pk)
    alice = world["alice"]

    _forge(_signed_in(moritz), admin.site._registry[Player], "disable_accounts", Player.objects.get(user=alice).pk)

    alice.refresh_from_db()
    assert not alice.is_active
    entry = AccountActionLog.objects.get()
    assert (entry.action, entry.actor_user_id, entry.target_username) == ("disabled", moritz.pk, "alice")
    assert entry.at <= timezone.now()
