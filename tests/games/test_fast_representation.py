"""The hot answers are rendered without their serializers (api.representation):
the JSON must be the serializers', byte for byte, in every state a game passes
through and for every viewer: each seat, a spectator, nobody logged in."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from rest_framework import serializers

from api.representation import representation_for
from games import moderation, selectors, services
from games.models import Game, Seat
from games.serializers import GameSummarySerializer, GameViewSerializer, LegalMovesSerializer, MoveCreatedSerializer
from tests.games.game_helpers import make_player, play_moves, play_to_end, user_to_move

pytestmark = pytest.mark.django_db


def same_json(serializer_class: type[serializers.Serializer[Any]], data: Any) -> None:
    slow = json.dumps(serializer_class(data).data)
    fast = json.dumps(representation_for(serializer_class)(data))
    assert fast == slow


def games_in_every_state() -> list[Game]:
    alice, bob, carol, dave = (make_player(name) for name in ("fra", "fbo", "fca", "fda"))
    open_game = services.game_create(creator=alice, seats=3, invited=[bob], public=True)
    base = services.game_create(creator=alice, seats=2, invited=[bob])
    services.seat_join(game=base, user=bob)
    marvel = services.game_create(creator=alice, variant="marvel", seats=4, invited=[bob, carol, dave])
    for user in (bob, carol, dave):
        services.seat_join(game=marvel, user=user)
    play_moves(base, 7)
    play_moves(marvel, 9)
    paused = services.game_create(creator=carol, seats=2, invited=[dave])
    services.seat_join(game=paused, user=dave)
    services.game_pause(game_id=paused.pk, reason="server", note="maintenance")
    finished = services.game_create(creator=bob, seats=2, invited=[carol])
    services.seat_join(game=finished, user=carol)
    play_to_end(finished)
    resigned = services.game_create(creator=dave, seats=3, invited=[alice, bob])
    services.seat_join(game=resigned, user=alice)
    services.seat_join(game=resigned, user=bob)
    services.game_resign(game=resigned, user=bob)
    aborted = services.game_create(creator=alice, seats=2)
    moderation.moderation_game_abort(game_id=aborted.pk, by_user=dave, reason="test")
    return [Game.objects.get(pk=g.pk) for g in (open_game, base, marvel, paused, finished, resigned, aborted)]


def test_the_game_summary_view_and_legal_moves_render_as_their_serializers_do() -> None:
    for game in games_in_every_state():
        viewers = [seat.user for seat in Seat.objects.filter(game=game)] + [AnonymousUser(), None]
        for viewer in viewers:
            fetched = selectors.game_get(game_id=game.pk)
            same_json(GameSummarySerializer, selectors.game_summary(game=fetched, user=viewer))
            same_json(GameViewSerializer, selectors.game_get_view(game=fetched, user=viewer))
            if viewer is not None and (game.public or not isinstance(viewer, AnonymousUser)):
                same_json(LegalMovesSerializer, selectors.game_legal_moves(game_id=game.pk, user=viewer))


def test_the_answer_to_a_move_renders_as_its_serializer_does() -> None:
    alice, bob = make_player("mva"), make_player("mvb")
    game = services.game_create(creator=alice, seats=2, invited=[bob])
    services.seat_join(game=game, user=bob)
    for _ in range(6):
        game.refresh_from_db()
        mover = user_to_move(game)
        state = selectors.game_legal_moves(game_id=game.pk, user=mover)
        played = services.move_submit(
            game_id=game.pk, user=mover, text=state["moves"][0], expected_version=state["version"]
        )
        view = selectors.game_get_view(game=played.game, user=mover)
        same_json(MoveCreatedSerializer, {"move": played.move.text, "ply": played.move.ply, "game": view})


def test_a_serializer_with_a_field_it_does_not_know_is_refused_when_its_plan_is_made() -> None:
    class WithMethod(serializers.Serializer[Any]):
        name = serializers.SerializerMethodField()

    class WithSource(serializers.Serializer[Any]):
        name = serializers.CharField(source="user.username")

    for serializer_class in (WithMethod, WithSource):
        with pytest.raises(TypeError):
            representation_for(serializer_class)
