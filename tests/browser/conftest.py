"""Real-browser tests: Playwright driving the system's Chromium (Debian's
`chromium` package, headless, no sandbox) against pytest-django's live server.

Every test here is marked `browser` and `e2e`: it starts a browser, so it runs
once, in .ci/run's second pass (or with `E2E=1 pytest tests/browser`).
Screenshots go to BROWSER_SCREENSHOTS (default `var/screenshots/`, git-ignored).
A page that logs a console error or an uncaught exception fails its test.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import chromium_path

# Playwright's synchronous API runs an event loop in this thread; Django's ORM,
# used by the tests to arrange games, refuses to run beside one unless told.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(os.environ.get("BROWSER_SCREENSHOTS", ROOT / "var" / "screenshots"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.e2e)


# Per module, not per session: Playwright's synchronous API keeps an event loop
# running in this thread while it is open, and tests that run after the browser
# tests in the same process (asyncio.run() in the SMTP receiver's tests) need none.
@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    assert executable is not None, "the browser marker is deselected when Chromium is missing"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--headless", "--no-sandbox"])
        yield browser
        browser.close()


class PageErrors:
    """Console errors and uncaught exceptions of the pages a test opened."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def watch(self, page: Any) -> Any:
        page.on("console", lambda message: message.type == "error" and self.messages.append(message.text))
        page.on("pageerror", lambda error: self.messages.append(str(error)))
        return page


@pytest.fixture
def page_errors() -> Iterator[PageErrors]:
    errors = PageErrors()
    yield errors
    assert errors.messages == [], f"the page reported errors: {errors.messages}"


@pytest.fixture
def new_page(chromium: Any, page_errors: PageErrors) -> Iterator[Any]:
    """``new_page()`` opens a page in a browser context of its own (its own
    cookies: two players in two contexts never share a session)."""
    contexts: list[Any] = []

    def open_page(**options: Any) -> Any:
        context = chromium.new_context(**{"viewport": {"width": 1100, "height": 900}, **options})
        contexts.append(context)
        return page_errors.watch(context.new_page())

    yield open_page
    for context in contexts:
        context.close()


@pytest.fixture
def screenshot() -> Any:
    """``screenshot(page, "name")`` saves a full-page PNG under SCREENSHOTS."""

    def save(page: Any, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return save
