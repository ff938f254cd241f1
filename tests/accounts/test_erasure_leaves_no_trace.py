"""Erasing a player who played leaves their names and address nowhere: not in any
row of any model, not in what the API says about their games, not in the logs.

- zelda signs up through the API, mints tokens, mistypes her password, asks for a
  recovery code, is edited in the admin and plays bob (a finished game and an
  active one, with Idempotency-Keys): everything that can keep a name. Her names
  are unlike anything else in the data, so any trace of them is found.
- bob plays her and keeps playing: what he sees of her games afterwards must
  show her only as "deleted player N".
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from typing import Any

import engine
import pytest
from django.apps import apps
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.core import serializers
from tests.accounts.conftest import client_with
from tests.games.game_helpers import client_for, make_player, play_to_end, user_to_move

from accounts.models import Player
from games import services
from games.models import Game, IdempotencyRecord

User = get_user_model()

USERNAME, EMAIL, DISPLAY_NAME = "zelda_q", "zelda.quill@example.org", "Zelda Quill"
PASSWORD = "a long and unusual passphrase"
# Parts of her names, so that a trace is found in any case or form.
NEEDLES = ("zelda", "quill", hashlib.sha256(USERNAME.encode()).hexdigest())


def traces(text: str) -> list[str]:
    return [needle for needle in NEEDLES if needle in text.lower()]


def every_row_naming_her() -> list[str]:
    found = []
    for model in apps.get_models(include_auto_created=True):
        for row in model._default_manager.all():
            text = serializers.serialize("json", [row])
            if traces(text):
                found.append(f"{model._meta.label} {row.pk}: {text}")
    return found


def play_one_turn_with_a_key(game: Game) -> None:
    game.refresh_from_db()
    mover = user_to_move(game)
    moves = [engine.format_move(m) for m in engine.legal_moves(engine.from_dict(game.state))]
    answer = client_for(mover).post(
        f"/api/v1/games/{game.pk}/moves/",
        {"move": next(m for m in moves if m.startswith("take ")), "expected_version": game.version},
        format="json",
        HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()),
    )
    assert answer.status_code == 201, answer.json()


@pytest.fixture
def zelda(signups: Any) -> Any:
    assert signups.sign_up(USERNAME, EMAIL, display_name=DISPLAY_NAME).status_code == 202
    assert signups.verify(signups.last_code(EMAIL), username=USERNAME).status_code == 200
    return User.objects.get(username=USERNAME)


def test_an_erased_player_who_played_is_named_nowhere(
    db: None, zelda: Any, signups: Any, django_capture_on_commit_callbacks: Any, caplog: Any, log_format: str
) -> None:
    caplog.set_level(logging.DEBUG)
    bob = make_player("bob")
    anonymous = client_with()

    # Her account, as she uses it.
    minted = anonymous.post(
        "/api/v1/tokens/", {"name": f"{USERNAME} laptop", "username": USERNAME, "password": PASSWORD}, format="json"
    )
    assert minted.status_code == 201
    token = minted.json()["token"]
    assert anonymous.post(
        "/api/v1/tokens/", {"name": "x", "username": USERNAME.upper(), "password": "wrong"}, format="json"
    ).status_code == 401
    with django_capture_on_commit_callbacks(execute=True):
        assert anonymous.post("/api/v1/tokens/recover/", {"email": EMAIL}, format="json").status_code == 202
    staff = User.objects.create_superuser("root", "root@example.com", "pw-for-tests-only")
    player = Player.objects.get(user=zelda)
    for obj in (zelda, player):
        LogEntry.objects.create(
            user=staff, content_type=ContentType.objects.get_for_model(type(obj)), object_id=str(obj.pk),
            object_repr=str(obj), action_flag=CHANGE, change_message="[]",
        )

    # Her games: one finished, one active with moves sent with Idempotency-Keys by both.
    finished = services.game_create(creator=zelda, seats=2, invited=[bob])
    services.seat_join(game=finished, user=bob)
    play_to_end(finished)
    active = services.game_create(creator=bob, seats=2, invited=[zelda])
    services.seat_join(game=active, user=zelda)
    for _ in range(4):
        play_one_turn_with_a_key(active)
    invited_to = services.game_create(creator=bob, seats=3, invited=[zelda])
    assert IdempotencyRecord.objects.filter(user=zelda).exists() and IdempotencyRecord.objects.filter(user=bob).exists()
    assert every_row_naming_her(), "the scenario should have stored her names somewhere"

    with django_capture_on_commit_callbacks(execute=True):
        erased = client_with(token).delete("/api/v1/me/", {"confirm": USERNAME}, format="json")
    assert erased.status_code == 204

    assert every_row_naming_her() == []

    # What the API says about her games, to bob, names her only as erased.
    bobs = client_for(bob, scopes=("read",))
    answers = [
        bobs.get(path)
        for game in (finished, active, invited_to)
        for path in (f"/api/v1/games/{game.pk}/", f"/api/v1/games/{game.pk}/moves/", f"/api/v1/games/{game.pk}/export/")
    ] + [bobs.get("/api/v1/games/?mine=1"), bobs.get("/api/v1/me/export/"), bobs.get("/api/v1/players/bob/")]
    for answer in answers:
        assert answer.status_code == 200
        assert traces(answer.content.decode()) == [], answer.content
    seats = bobs.get(f"/api/v1/games/{active.pk}/").json()["seats"]
    assert {"username": f"deleted-{zelda.pk}", "display_name": f"deleted player {zelda.pk}"} in [
        {"username": s["username"], "display_name": s["display_name"]} for s in seats
    ]
    assert bobs.get(f"/api/v1/players/{USERNAME}/").status_code == 404

    # And the logs of the whole story name her nowhere either.
    assert traces(caplog.text) == [], caplog.text
    # The logs were there to read: the story's own 4xx answers were logged.
    assert any(r.name == "django.request" for r in caplog.records), [r.name for r in caplog.records]
