"""The harness itself: the system's Chromium opens a page of the live server."""

from __future__ import annotations

from typing import Any


def test_chromium_opens_the_home_page_of_the_live_server(live_server: Any, new_page: Any) -> None:
    page = new_page()
    answer = page.goto(live_server.url + "/")
    assert answer is not None and answer.status == 200
    assert page.title() != ""
