"""Bodies a client may send on purpose or by accident: each gets a clear 4xx
problem, never a 500, and a chunked body is read, never taken as empty."""

from __future__ import annotations

import io
import json

import pytest

from api.parsers import MAX_JSON_DEPTH, json_depth_exceeds

pytestmark = [pytest.mark.urls("tests.site.urls"), pytest.mark.django_db]


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 1_000, 30_000])
def test_json_nested_deeper_than_the_limit_is_a_400_not_a_500(client, depth, caplog):
    body = "[" * depth + "]" * depth
    answer = client.post("/api/test/echo/", body, content_type="application/json")
    assert answer.status_code == 400, answer.content
    assert answer["Content-Type"] == "application/problem+json"
    assert answer.json()["code"] == "parse_error"
    assert "nests deeper" in answer.json()["detail"]
    assert "Traceback" not in caplog.text


def test_json_within_the_depth_limit_is_read(client):
    body = {"a": [[{"b": 1}]], "text": "[[[[[[[[[[[[[[[[[[[[[[ brackets in a string do not count"}
    answer = client.post("/api/test/echo/", json.dumps(body), content_type="application/json")
    assert answer.status_code == 200 and answer.json() == {"received": body}


def test_the_depth_scan_ignores_escaped_quotes_inside_strings():
    assert not json_depth_exceeds(b'{"a": "\\"[[[[[[[[[[[[[[[[[[[[[[[[[[[["}', 3)
    assert json_depth_exceeds(b'{"a": [[[[1]]]]}', 3)


def _chunked(client, body: bytes, *, terminated: bool):
    environ = {
        "wsgi.input": io.BytesIO(body),
        "wsgi.input_terminated": terminated,
        "HTTP_TRANSFER_ENCODING": "chunked",
        "CONTENT_TYPE": "application/json",
    }
    return client.generic("POST", "/api/test/echo/", b"", **environ)


def test_a_chunked_body_is_read_when_the_server_has_decoded_it(client):
    answer = _chunked(client, b'{"move": "take WUG"}', terminated=True)
    assert answer.status_code == 200, answer.content
    assert answer.json() == {"received": {"move": "take WUG"}}


def test_a_chunked_body_the_server_cannot_end_is_answered_411_not_read_as_empty(client):
    answer = _chunked(client, b'{"move": "take WUG"}', terminated=False)
    assert answer.status_code == 411 and answer.json()["code"] == "length_required"


def test_a_chunked_body_over_the_size_limit_is_a_413(client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024
    answer = _chunked(client, b'{"a": "' + b"x" * 2000 + b'"}', terminated=True)
    assert answer.status_code == 413 and answer.json()["code"] == "payload_too_large"
