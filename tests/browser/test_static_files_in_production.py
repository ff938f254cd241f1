"""The site as docs/deploy.md runs it, seen in Chromium: collectstatic into a
STATIC_ROOT of its own, real gunicorn with the shipped config and DEBUG off, on
plain http (SITE_URL http://127.0.0.1:<port>, so no https redirect and cookies a
browser sends back over http). The admin is styled, Swagger UI draws the API's
operations, and the game page's script loads: every /static/ file comes from the
site itself under its hashed name, and no page logs a console error.

Personas: alice and bob play the game whose page is opened; "admin" is the
operator who logs in to the admin.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tests.e2e_support.databases import migrated
from tests.e2e_support.processes import Api, Web, manage, player_tokens, site_env

ADMIN_PASSWORD = "an operator's long password"


@dataclass
class ProductionSite:
    web: Web
    game_link: str


@pytest.fixture(scope="module")
def production_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ProductionSite]:
    tmp = tmp_path_factory.mktemp("production")
    env = site_env(
        tmp,
        database_url=f"sqlite:///{tmp / 'db.sqlite3'}",
        broker_url=None,
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1",
        STATIC_ROOT=str(tmp / "static"),
    )
    web = Web(env, tmp / "gunicorn.log")
    env["SITE_URL"] = web.url  # http: a trial on one machine needs no https setting
    migrated(env)
    manage(env, "collectstatic", "--no-input", "--verbosity", "0")
    assert (tmp / "static" / "staticfiles.json").is_file()  # the manifest of hashed names
    manage({**env, "DJANGO_SUPERUSER_PASSWORD": ADMIN_PASSWORD},
           "createsuperuser", "--no-input", "--username", "admin", "--email", "admin@example.com")  # fmt: skip
    api = Api(web.url, player_tokens(env, ("alice", "bob")))
    web.start()
    try:
        game_id = api.new_game("alice", ["bob"])
        link = manage(env, "game_link", game_id, "0").strip()
        yield ProductionSite(web, link)
    finally:
        web.stop()


class StaticAnswers:
    """The status of every /static/ file a page asked for, by path."""

    def __init__(self, page: Any) -> None:
        self.statuses: dict[str, int] = {}
        page.on("response", self._seen)

    def _seen(self, response: Any) -> None:
        path = response.url.split("://", 1)[1].split("/", 1)[1]
        if path.startswith("static/"):
            self.statuses["/" + path.split("?")[0]] = response.status

    def loaded(self, plain_name: str) -> str:
        """The hashed path of ``plain_name`` (``admin/css/base.css``), which must have loaded with 200."""
        stem, dot, extension = plain_name.rpartition(".")
        found = [path for path in self.statuses if path.startswith(f"/static/{stem}.") and path.endswith(dot + extension)]
        assert found, f"{plain_name} was not asked for: {sorted(self.statuses)}"
        assert all(path != f"/static/{plain_name}" for path in found), "asked for under its plain name, not hashed"
        assert self.statuses[found[0]] == 200, self.statuses
        return found[0]

    def all_ok(self) -> None:
        failed = {path: status for path, status in self.statuses.items() if status not in (200, 304)}
        assert self.statuses and not failed, failed


def test_the_admin_is_styled_when_gunicorn_serves_it_with_debug_off(
    production_site: ProductionSite, new_page: Any, screenshot: Any
) -> None:
    page = new_page()
    static = StaticAnswers(page)
    page.goto(production_site.web.url + "/admin/")
    page.fill("input[name=username]", "admin")
    page.fill("input[name=password]", ADMIN_PASSWORD)
    with page.expect_navigation():
        page.click("input[type=submit]")
    assert page.url == production_site.web.url + "/admin/"  # logged in over plain http
    assert "Site administration" in page.locator("#content h1").inner_text()
    static.loaded("admin/css/base.css")
    static.all_ok()
    # The stylesheet applied: the header has the admin's colour, not a bare page's none.
    assert page.locator("#header").evaluate("e => getComputedStyle(e).backgroundColor") != "rgba(0, 0, 0, 0)"
    screenshot(page, "production-admin")


def test_the_api_docs_draw_swagger_ui_from_the_sites_own_files(
    production_site: ProductionSite, new_page: Any, screenshot: Any
) -> None:
    page = new_page()
    static = StaticAnswers(page)
    page.goto(production_site.web.url + "/api/docs/")
    operations = page.locator(".opblock")
    operations.first.wait_for(state="visible")
    assert operations.count() > 10
    assert page.locator(".opblock-summary-path", has_text="/api/v1/games/").count() > 0
    static.loaded("drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")
    static.loaded("drf_spectacular_sidecar/swagger-ui-dist/swagger-ui.css")
    static.all_ok()
    screenshot(page, "production-api-docs")


def test_the_game_page_loads_its_own_files(
    production_site: ProductionSite, new_page: Any, screenshot: Any
) -> None:
    page = new_page(viewport={"width": 390, "height": 844})
    static = StaticAnswers(page)
    page.goto(production_site.game_link)
    page.locator("#board").wait_for(state="visible")
    page.wait_for_load_state("load")  # the deferred script has run
    static.loaded("games/game_page.js")
    static.all_ok()
    screenshot(page, "production-game-page")
