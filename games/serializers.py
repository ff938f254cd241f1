"""Request validation and response shapes of the games API.

Output serializers render the dicts that ``games.selectors`` build; they never
see a model's stored state or seed.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from rest_framework import serializers

from games.models import Game
from games.services import MAX_MOVE_TIMEOUT_HOURS, MAX_SEATS, MIN_SEATS

# --- input ---------------------------------------------------------------------

# The checks every CharField makes (no NUL, no lone surrogates): PostgreSQL
# refuses such text in a query, so it must never reach one.
_TEXT = serializers.CharField()


class UsernameField(serializers.SlugRelatedField):
    """A user named by username. A related field is not a CharField, so it does not
    get CharField's checks on its own; it runs them before the lookup."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str):
            _TEXT.run_validators(data)
        return super().to_internal_value(data)


class GameCreateInputSerializer(serializers.Serializer):
    variant = serializers.ChoiceField(choices=Game.Variant.choices, default=Game.Variant.BASE)
    seats = serializers.IntegerField(min_value=MIN_SEATS, max_value=MAX_SEATS, default=2)
    invited = UsernameField(
        slug_field="username",
        queryset=get_user_model().objects.filter(is_active=True),
        many=True,
        required=False,
        default=list,
        help_text="Usernames to reserve seats for; they take them with POST .../join/.",
        error_messages={"does_not_exist": "There is no player with the username {value}."},
    )
    open_seats = serializers.IntegerField(
        min_value=0,
        required=False,
        help_text="Seats anyone may join. Optional: it is always seats - 1 - len(invited).",
    )
    move_timeout_hours = serializers.IntegerField(min_value=1, max_value=MAX_MOVE_TIMEOUT_HOURS, default=72)


class GameListQuerySerializer(serializers.Serializer):
    mine = serializers.BooleanField(default=False, help_text="Only games where you hold or are invited to a seat.")
    my_turn = serializers.BooleanField(default=False, help_text="Only active games where it is your turn.")
    status = serializers.ChoiceField(choices=Game.Status.choices, required=False)


class JoinInputSerializer(serializers.Serializer):
    expected_version = serializers.IntegerField(min_value=0, required=False)


class MoveInputSerializer(serializers.Serializer):
    move = serializers.CharField(
        max_length=200, help_text='The move in canonical or friendly notation, e.g. "take WUG" or "buy 1-07".'
    )
    expected_version = serializers.IntegerField(
        min_value=0,
        required=False,
        help_text="The game version the move was chosen on. Required unless an If-Match header is sent.",
    )


# --- output --------------------------------------------------------------------


class SeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField(allow_null=True, help_text="Play order, 0 first; null until the game starts.")
    username = serializers.CharField()
    display_name = serializers.CharField()
    joined = serializers.BooleanField()
    invited = serializers.BooleanField()
    resigned = serializers.BooleanField()


class GameSummarySerializer(serializers.Serializer):
    id = serializers.CharField()
    variant = serializers.ChoiceField(choices=Game.Variant.choices)
    status = serializers.ChoiceField(choices=Game.Status.choices)
    version = serializers.IntegerField(help_text="Goes up with every change; send it back as expected_version.")
    seat_count = serializers.IntegerField()
    open_seats = serializers.IntegerField()
    seats = SeatSerializer(many=True)
    to_move = serializers.IntegerField(allow_null=True, help_text="The seat whose turn it is.")
    your_seat = serializers.IntegerField(allow_null=True)
    move_timeout_hours = serializers.IntegerField()
    deadline_at = serializers.DateTimeField(allow_null=True)
    seed_commitment = serializers.CharField(
        allow_null=True, help_text="SHA-256 hex of the seed's decimal text, published at the start."
    )
    created_by = serializers.CharField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    result = serializers.JSONField(
        allow_null=True, help_text="winners, scores, ranking (seats best first) and reason, once finished."
    )


class GameViewSerializer(GameSummarySerializer):
    board = serializers.JSONField(
        allow_null=True,
        help_text="What the caller may see: their seat's view if they play, the spectator view otherwise.",
    )
    seed = serializers.CharField(allow_null=True, help_text="Revealed once the game is over.")


class MoveCreatedSerializer(serializers.Serializer):
    move = serializers.CharField(help_text="The move as recorded, in canonical notation.")
    ply = serializers.IntegerField()
    game = GameViewSerializer()


class MoveHistoryEntrySerializer(serializers.Serializer):
    ply = serializers.IntegerField()
    seat = serializers.IntegerField()
    move = serializers.CharField()
    automatic = serializers.BooleanField(help_text="Played by the server for a seat that resigned.")
    created_at = serializers.DateTimeField()
    private_card = serializers.CharField(
        required=False, help_text="The card drawn by your own blind reserve; absent for everyone else."
    )


class LegalMovesSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    to_move = serializers.IntegerField(allow_null=True)
    your_seat = serializers.IntegerField(allow_null=True)
    moves = serializers.ListField(child=serializers.CharField(), help_text="Canonical texts, sorted.")


class ExportSeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField(allow_null=True)
    join_position = serializers.IntegerField()
    username = serializers.CharField()


class GameExportSerializer(serializers.Serializer):
    id = serializers.CharField()
    variant = serializers.CharField()
    players = serializers.IntegerField()
    status = serializers.CharField()
    seed_commitment = serializers.CharField(allow_null=True)
    seed = serializers.CharField(allow_null=True, help_text="Decimal text; null until the game is over.")
    seats = ExportSeatSerializer(many=True)
    moves = serializers.ListField(child=serializers.CharField())
    result = serializers.JSONField(allow_null=True)
