"""Numbers and lists in the API's messages read as English: "1 byte", never "1 bytes"."""

import pytest
from django.test import override_settings

from core.text import counted, listed


@pytest.mark.parametrize(
    ("n", "noun", "plural", "text"),
    [
        (0, "seat", None, "0 seats"),
        (1, "seat", None, "1 seat"),
        (2, "seat", None, "2 seats"),
        (1, "try", "tries", "1 try"),
        (3, "try", "tries", "3 tries"),
    ],
)
def test_a_count_takes_the_noun_its_number_needs(n, noun, plural, text):
    assert counted(n, noun, plural) == text


@pytest.mark.parametrize(
    ("items", "text"),
    [([], ""), (["alice"], "alice"), (["alice", "bob"], "alice and bob"), (["a", "b", "c"], "a, b and c")],
)
def test_a_list_reads_as_english(items, text):
    assert listed(items) == text


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1)
def test_a_one_byte_limit_is_one_byte_not_one_bytes(client):
    answer = client.post("/api/v1/games/", "{}", content_type="application/json")
    assert answer.status_code == 413
    assert answer.json()["detail"] == "The request body is 2 bytes; the limit is 1 byte."


def test_a_request_line_limit_of_one_byte_is_one_byte():
    from gunicorn.http import errors

    from api.gunicorn_workers import classify

    assert classify(errors.LimitRequestLine(4096, 1))[2] == "The request line is longer than 1 byte, the most accepted."
