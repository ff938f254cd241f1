"""Every request's id (api.request_id): made here unless a trusted proxy gave one,
on every log line of the request, and echoed in X-Request-ID on every answer."""

from __future__ import annotations

import ipaddress
import logging
import re

import pytest
from django.test import override_settings

from api.client_address import from_trusted_proxy

pytestmark = [pytest.mark.urls("tests.site.urls"), pytest.mark.django_db]

MADE_HERE = re.compile(r"[0-9a-f]{32}")  # uuid4, hex
PROXY = "10.0.0.7"
PROXY_NETWORKS = [ipaddress.ip_network("10.0.0.0/8")]


def test_a_request_without_an_id_gets_a_new_one_each_time(client) -> None:
    first, second = client.get("/api/test/echo/"), client.get("/api/test/echo/")
    assert first.status_code == 200
    assert MADE_HERE.fullmatch(first["X-Request-ID"]) and MADE_HERE.fullmatch(second["X-Request-ID"])
    assert first["X-Request-ID"] != second["X-Request-ID"]


def test_with_no_trusted_proxy_a_clients_id_is_ignored(client) -> None:
    response = client.get("/api/test/echo/", HTTP_X_REQUEST_ID="chosen-by-the-client")
    assert MADE_HERE.fullmatch(response["X-Request-ID"])


@override_settings(TRUSTED_PROXIES=1)
def test_behind_a_counted_proxy_its_id_is_kept(client) -> None:
    response = client.get("/api/test/echo/", HTTP_X_REQUEST_ID="lb-7f3a-0001", REMOTE_ADDR=PROXY)
    assert response["X-Request-ID"] == "lb-7f3a-0001"


@override_settings(TRUSTED_PROXIES=PROXY_NETWORKS)
def test_with_proxy_networks_only_a_request_from_inside_them_keeps_its_id(client) -> None:
    from_proxy = client.get("/api/test/echo/", HTTP_X_REQUEST_ID="lb-0002", REMOTE_ADDR=PROXY)
    from_outside = client.get("/api/test/echo/", HTTP_X_REQUEST_ID="lb-0002", REMOTE_ADDR="203.0.113.5")
    assert from_proxy["X-Request-ID"] == "lb-0002"
    assert MADE_HERE.fullmatch(from_outside["X-Request-ID"])


@pytest.mark.parametrize(
    "given",
    [
        "x" * 129,  # too long
        "two words",  # a space: it could pass for another field of a plain line
        "caf\u00e9",  # not ASCII
        "line\nbreak",
        "tab\there",
        "",
    ],
)
@override_settings(TRUSTED_PROXIES=1)
def test_an_id_that_is_not_1_to_128_visible_ascii_characters_is_replaced(client, given: str) -> None:
    response = client.get("/api/test/echo/", HTTP_X_REQUEST_ID=given, REMOTE_ADDR=PROXY)
    assert MADE_HERE.fullmatch(response["X-Request-ID"])


@override_settings(TRUSTED_PROXIES=1)
def test_an_id_of_128_visible_characters_is_kept(client) -> None:
    given = "A-z0~!#" + "9" * 121
    assert client.get("/api/test/echo/", HTTP_X_REQUEST_ID=given, REMOTE_ADDR=PROXY)["X-Request-ID"] == given


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1024)
@pytest.mark.parametrize(
    "method, path, body, status",
    [
        ("get", "/api/test/broken/", None, 500),  # a bug in a view
        ("get", "/api/v1/no-such-thing/", None, 404),  # problem+json from the middleware
        ("get", "/api/v1/no-such-thing", None, 404),  # no slash: refused before any view
        ("post", "/api/test/illegal/", "{}", 409),  # a domain refusal
        ("post", "/api/test/echo/", "x" * 2048, 413),  # refused before the body is read
        ("get", "/api/test/protected/", None, 401),
        ("get", "/no-such-page/", None, 404),  # an HTML page
    ],
)
def test_every_answer_errors_included_carries_the_id(client, method: str, path: str, body, status: int) -> None:
    client.raise_request_exception = False
    kwargs = {"data": body, "content_type": "application/json"} if body is not None else {}
    response = getattr(client, method)(path, **kwargs)
    assert response.status_code == status
    assert MADE_HERE.fullmatch(response["X-Request-ID"])


def test_the_lines_logged_while_answering_carry_the_id_the_answer_gives(client, caplog, log_format: str) -> None:
    client.raise_request_exception = False
    with caplog.at_level(logging.INFO):
        response = client.get("/api/test/broken/")
    request_id = response["X-Request-ID"]
    logged = [r for r in caplog.records if r.levelno >= logging.ERROR]
    # Django's own line about the 500 is written after the middleware returned: it has the id too.
    assert {r.name for r in logged} == {"api.problems", "django.request"}
    assert all(r.request_id == request_id for r in logged)  # type: ignore[attr-defined]
    assert f"request_id={request_id}" in caplog.text or f'"request_id": "{request_id}"' in caplog.text
    # After the request, nothing is left behind for the next one.
    logging.getLogger("tests").warning("between requests")
    assert not hasattr(caplog.records[-1], "request_id")


@pytest.mark.parametrize(
    "remote, trusted, believed",
    [
        ("203.0.113.5", 0, False),  # no proxies: never
        ("203.0.113.5", 1, True),  # a count: the nearest hop is our proxy
        ("10.0.0.7", PROXY_NETWORKS, True),
        ("203.0.113.5", PROXY_NETWORKS, False),
        ("not-an-address", PROXY_NETWORKS, False),
    ],
)
def test_a_proxys_headers_are_believed_only_from_a_trusted_proxy(remote: str, trusted, believed: bool) -> None:
    assert from_trusted_proxy(remote, trusted) is believed
