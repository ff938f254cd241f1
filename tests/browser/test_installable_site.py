"""The site as an installable app in a real browser (front.pwa): the game page
registers the service worker, which takes control of the page; a push delivered
through the DevTools protocol (no push service is reachable here) becomes a
notification of that game; offline, reloading the game page shows the board last
seen, with the "offline — last seen at" banner and every control disabled. The
settings page turns push on and off for this browser (the browser's subscription
and the API's answers stubbed: there is no push service to subscribe to).
Screenshots: `push-device-settings.png`, `game-page-offline.png`."""

from __future__ import annotations

import json
import time
from typing import Any

from playwright.sync_api import expect

from tests.games.game_helpers import make_player, start_two_player_game, user_to_move

PASSWORD = "a long and unusual passphrase"


def _logged_in(new_page: Any, live_server: Any, player: Any) -> Any:
    username = player.get_username()
    player.set_password(PASSWORD)
    player.save()
    page = new_page()
    page.context.grant_permissions(["notifications"], origin=live_server.url)
    page.goto(live_server.url + "/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/accounts/games/")
    return page


def _eventually(page: Any, script: str, timeout: float = 10.0) -> Any:
    """The value of the async ``script`` once it is truthy."""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(script)
        if value or time.monotonic() > deadline:
            return value
        page.wait_for_timeout(100)


def _registration_id(page: Any) -> tuple[Any, str]:
    cdp = page.context.new_cdp_session(page)
    found: list[str] = []

    def updated(event: dict[str, Any]) -> None:
        found.extend(r["registrationId"] for r in event["registrations"] if not r.get("isDeleted"))

    cdp.on("ServiceWorker.workerRegistrationUpdated", updated)
    cdp.send("ServiceWorker.enable")
    deadline = time.monotonic() + 10
    while not found and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    assert found, "the DevTools protocol names the page's service worker registration"
    return cdp, found[-1]


def test_the_game_page_installs_its_worker_shows_a_push_and_reads_the_last_board_offline(
    live_server: Any, new_page: Any, screenshot: Any
) -> None:
    game = start_two_player_game(make_player("alice"), make_player("bob"))
    # The seat to move: its page has a move panel, which offline is disabled.
    page = _logged_in(new_page, live_server, user_to_move(game))
    game_url = f"{live_server.url}/games/{game.pk}/"
    page.goto(game_url)

    # The worker is registered at the root and controls the page.
    assert _eventually(page, "navigator.serviceWorker.controller !== null")
    scope = page.evaluate("navigator.serviceWorker.ready.then(r => r.scope + ' ' + r.active.scriptURL)")
    assert scope == f"{live_server.url}/ {live_server.url}/sw.js"
    # It kept this board in alice's cache (the page asked it to, being its first visit).
    kept = _eventually(
        page,
        """caches.keys().then(names => Promise.all(names.filter(n => n.startsWith('boards-'))
             .map(n => caches.open(n).then(c => c.keys()).then(ks => ks.map(k => k.url))))).then(all => all.flat())""",
    )
    assert kept == [game_url]

    # A push for the game becomes a notification of it.
    cdp, registration = _registration_id(page)
    payload = {
        "kind": "your_turn", "game_id": game.pk, "version": game.version,
        "title": "Your turn in Splendor", "body": "Your opponent took three tokens.", "url": f"/games/{game.pk}/",
    }
    cdp.send("ServiceWorker.deliverPushMessage",
             {"origin": live_server.url, "registrationId": registration, "data": json.dumps(payload)})
    shown = _eventually(
        page,
        """navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => ns.map(
             n => ({title: n.title, body: n.body, tag: n.tag, url: n.data.url})))""",
    )
    assert shown == [{"title": "Your turn in Splendor", "body": "Your opponent took three tokens.", "tag": f"game-{game.pk}",
                      "url": game_url}]
    # A newer turn of the same game replaces it.
    payload["body"], payload["version"] = "Your opponent bought a card.", game.version + 1
    cdp.send("ServiceWorker.deliverPushMessage",
             {"origin": live_server.url, "registrationId": registration, "data": json.dumps(payload)})
    replaced = _eventually(
        page,
        """navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns =>
             ns.length === 1 && ns[0].body === 'Your opponent bought a card.')""",
    )
    assert replaced

    # Offline: the last board, said to be so, with nothing to play.
    page.context.set_offline(True)
    page.reload()
    banner = page.locator("#offline-banner")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("Offline — last seen at")
    expect(banner).to_contain_text("Moves need the network")
    assert page.locator("#board").is_visible()
    expect(page.get_by_role("heading", name="Your move")).to_be_visible()
    enabled = page.evaluate("[...document.querySelectorAll('button, input, select, textarea')].filter(e => !e.disabled).length")
    assert enabled == 0
    screenshot(page, "game-page-offline")
    page.context.set_offline(False)


def test_the_settings_page_turns_push_on_and_off_for_this_browser(
    live_server: Any, new_page: Any, screenshot: Any
) -> None:
    page = _logged_in(new_page, live_server, make_player("carol"))
    # No push service here: the browser's subscription is a stand-in, the API's answers too.
    page.add_init_script(
        """(() => {
          let current = null;
          const fake = {endpoint: 'https://push.example/send/abc',
                        toJSON() { return {endpoint: this.endpoint, expirationTime: null,
                                           keys: {p256dh: 'BPublicKeyOfTheBrowser', auth: 'secret16bytes'}}; },
                        unsubscribe() { current = null; return Promise.resolve(true); }};
          PushManager.prototype.subscribe = function (options) {
            window.subscribedWith = options;
            current = fake;
            return Promise.resolve(fake);
          };
          PushManager.prototype.getSubscription = function () { return Promise.resolve(current); };
        })();"""
    )
    calls: list[tuple[str, str, str]] = []

    def key(route: Any) -> None:
        calls.append((route.request.method, route.request.url, ""))
        route.fulfill(status=200, content_type="application/json",
                      body=json.dumps({"public_key": "BEl62iUYgUivxIkv69yViEuiBIa-Ib9-SkvMeAtA3LFgDzkrxZJjSgSnfckjBJuBkr3qBUYIHBQFLXYp5Nksh8U"}))

    def subscriptions(route: Any) -> None:
        request = route.request
        calls.append((request.method, request.url, request.post_data or ""))
        assert request.headers.get("x-csrftoken")
        if request.method == "DELETE":
            route.fulfill(status=204, body="")
        else:
            route.fulfill(status=201, content_type="application/json",
                          body=json.dumps({"id": 7, "endpoint_host": "push.example", "created_at": "2026-01-01T00:00:00Z"}))

    page.route("**/api/v1/push/key/", key)
    page.route("**/api/v1/me/push-subscriptions/**", subscriptions)
    page.goto(live_server.url + "/accounts/settings/#push-device")

    section = page.locator("#push-device")
    expect(section).to_be_visible()
    expect(section.get_by_role("status")).to_have_text("Push is off for this device.")
    section.get_by_role("button", name="Turn on push on this device").click()
    expect(section.get_by_role("status")).to_have_text("Push is on for this device.")
    expect(section.get_by_role("button", name="Turn on push on this device")).to_be_hidden()
    assert page.evaluate("window.subscribedWith.userVisibleOnly") is True
    assert page.evaluate("window.subscribedWith.applicationServerKey.byteLength") == 65
    posted = [json.loads(body) for method, _, body in calls if method == "POST"]
    assert posted == [{"endpoint": "https://push.example/send/abc", "expirationTime": None,
                       "keys": {"p256dh": "BPublicKeyOfTheBrowser", "auth": "secret16bytes"}}]
    section.scroll_into_view_if_needed()
    screenshot(page, "push-device-settings")

    section.get_by_role("button", name="Turn off push on this device").click()
    expect(section.get_by_role("status")).to_have_text("Push is off for this device.")
    assert [(m, u.removeprefix(live_server.url)) for m, u, _ in calls if m == "DELETE"] == [
        ("DELETE", "/api/v1/me/push-subscriptions/7/")
    ]
    expect(section.get_by_role("button", name="Turn on push on this device")).to_be_visible()
    expect(section.get_by_role("button", name="Turn off push on this device")).to_be_hidden()
