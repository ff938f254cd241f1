"""The site as an installable app (front.pwa): the manifest and the service worker
at the root, the game page's key to its account's cache of boards and its hidden
"offline" banner (games.pages.offline), the logout that empties the browser's
storage, and the settings page allowed to run its push script. The worker in a
browser: tests/browser/test_installable_site.py."""

from __future__ import annotations

import json
from typing import Any

from django.test import Client

from games.pages.offline import ACCOUNT_HEADER, HEADER, board_cache_key
from tests.games.game_helpers import make_player, start_two_player_game


def test_the_service_worker_is_served_at_the_root_as_javascript_and_checked_on_every_visit(db: None) -> None:
    answer = Client().get("/sw.js")
    assert answer.status_code == 200
    assert answer["Content-Type"] == "application/javascript; charset=utf-8"
    assert answer["Cache-Control"] == "no-cache"
    first, rest = answer.content.decode().split("\n", 1)
    site = json.loads(first.removeprefix("const SITE = ").removesuffix(";"))
    assert site["static_url"] == "/static/" and site["icon"].endswith("front/icons/icon-192.png")
    assert 'addEventListener("push"' in rest and 'addEventListener("notificationclick"' in rest


def test_the_manifest_opens_the_players_games_standalone_with_two_icons(db: None) -> None:
    answer = Client().get("/manifest.webmanifest")
    assert answer.status_code == 200 and answer["Content-Type"] == "application/manifest+json"
    manifest = answer.json()
    assert manifest["start_url"] == "/accounts/games/" and manifest["scope"] == "/"
    assert manifest["display"] == "standalone" and manifest["name"] == "Splendor by post"
    assert [icon["sizes"] for icon in manifest["icons"]] == ["192x192", "512x512"]
    for icon in manifest["icons"]:
        assert Client().get(icon["src"]).status_code == 200


def test_a_seats_game_page_names_its_accounts_cache_and_hides_the_offline_banner(db: None) -> None:
    alice, bob = make_player("alice"), make_player("bob")
    game = start_two_player_game(alice, bob)
    client = Client()
    client.force_login(alice)
    answer = client.get(f"/games/{game.pk}/")
    assert answer.status_code == 200
    assert answer[HEADER] == board_cache_key(user_id=alice.pk) != board_cache_key(user_id=bob.pk)
    page = answer.content.decode()
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page
    # The worker uncovers the banner by this exact text (front/static/front/sw.js).
    assert '<p id="offline-banner" hidden role="status"' in page and "Offline — last seen at" in page
    assert 'data-service-worker="/sw.js"' in page


def test_a_spectators_page_is_not_kept(db: None) -> None:
    game = start_two_player_game(make_player("alice"), make_player("bob"), public=True)
    answer = Client().get(f"/games/{game.pk}/")
    assert answer.status_code == 200 and HEADER not in answer
    assert 'id="offline-banner"' not in answer.content.decode()


def test_logging_out_empties_the_browsers_storage_for_the_site(db: None) -> None:
    client = Client()
    client.force_login(make_player("alice"))
    answer = client.post("/accounts/logout/")
    assert answer["Clear-Site-Data"] == '"storage"'


def test_the_settings_page_may_run_its_own_push_script_and_nothing_inline(db: None) -> None:
    client = Client()
    client.force_login(make_player("alice"))
    answer = client.get("/accounts/settings/")
    policy = answer["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "connect-src 'self'" in policy and "style-src 'unsafe-inline'" in policy
    assert "'unsafe-eval'" not in policy and "script-src 'self' 'unsafe-inline'" not in policy
    page = answer.content.decode()
    assert 'id="push-device"' in page and "front/push_device.js" in page
    words: dict[str, Any] = json.loads(
        page.split('data-words="', 1)[1].split('"', 1)[0].replace("&quot;", '"').replace("&#x27;", "'")
    )
    assert words["on"] == "Push is on for this device."


def test_every_page_of_a_signed_in_account_names_whose_boards_may_be_shown_offline(db: None) -> None:
    """So that, where a game link was opened and someone else then signs in, the
    worker shows the newcomer none of the first person's kept boards."""
    alice, bob = make_player("alice"), make_player("bob")
    client = Client()
    assert ACCOUNT_HEADER not in client.get("/")  # nobody signed in: no account named
    client.force_login(bob)
    for path in ("/", "/accounts/games/", "/accounts/settings/"):
        answer = client.get(path)
        assert answer.status_code == 200, path
        assert answer[ACCOUNT_HEADER] == board_cache_key(user_id=bob.pk) != board_cache_key(user_id=alice.pk)
    assert ACCOUNT_HEADER not in client.get("/api/v1/me/")  # not a page: the worker keeps no API answer
