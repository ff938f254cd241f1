"""Usernames that would collide with the API's paths (GET /api/v1/players/verify/
is not anyone's profile) or read as an erased account's are refused, at sign-up
and by player_create, with a message that says why."""

from __future__ import annotations

import re

import pytest
from django.core.management import CommandError, call_command
from django.urls import URLPattern, URLResolver, get_resolver

from accounts.errors import InvalidInput
from accounts.services import RESERVED_USERNAMES, player_create


def fixed_path_segments(patterns: list[URLPattern | URLResolver], *, under_api: bool = False) -> set[str]:
    """The literal segments of the site's top-level paths and of every API path
    (the admin's own pages are under /admin/, out of the way of any username)."""
    segments: set[str] = set()
    for pattern in patterns:
        route = re.sub(r"<[^>]+>", "", str(pattern.pattern)).lstrip("^").rstrip("$")
        segments |= {segment for segment in route.split("/") if segment}
        if isinstance(pattern, URLResolver) and (under_api or route.startswith("api/")):
            segments |= fixed_path_segments(pattern.url_patterns, under_api=True)
    return segments


def test_every_fixed_segment_of_the_sites_paths_is_reserved():
    site = {
        segment
        for segment in fixed_path_segments(get_resolver().url_patterns)
        if re.fullmatch(r"[\w.@+-]+", segment)  # a segment a username could be
    }
    assert {"verify", "resend", "recover", "me", "tokens", "players", "games"} <= site
    assert site - RESERVED_USERNAMES == set()


@pytest.mark.parametrize("username", ["verify", "resend", "recover", "me", "tokens", "ME", "Export"])
def test_sign_up_refuses_a_username_that_is_part_of_the_paths(db, signups, username):
    answer = signups.sign_up(username, "someone@example.com")
    assert answer.status_code == 400
    assert answer.json()["errors"]["username"] == [
        f'"{username}" is reserved: it is part of the API\'s paths. Choose another username.'
    ]


def test_sign_up_refuses_names_that_read_as_an_erased_account(db, signups):
    answer = signups.sign_up("deleted-7", "someone@example.com", display_name="Deleted player 3")
    assert answer.status_code == 400
    errors = answer.json()["errors"]
    assert errors["username"] == ['Usernames starting with "deleted-" are kept for erased accounts. Choose another username.']
    assert "kept for erased accounts" in errors["display_name"][0]


def test_player_create_refuses_a_reserved_username(db):
    with pytest.raises(InvalidInput) as refused:
        player_create(username="players", email="p@example.com")
    assert "reserved" in refused.value.errors["username"][0]
    with pytest.raises(CommandError, match="is reserved"):
        call_command("player_create", "tokens", "--email", "t@example.com")


def test_a_name_that_merely_contains_a_path_word_is_fine(db, signups):
    assert signups.sign_up("meredith", "meredith@example.com").status_code == 202


@pytest.mark.parametrize("username", ["bot-greedy-1", "Bot-ismcts-2", "sandbox-seat-1", "sandbox-anything"])
def test_the_names_of_the_services_own_accounts_are_refused_at_sign_up(username: str) -> None:
    from accounts.services import names_refuse

    with pytest.raises(InvalidInput) as refused:
        names_refuse(username=username, display_name=None)
    assert "kept for the service's bots" in str(refused.value)
