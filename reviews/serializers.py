"""Output shapes of the reviews API (docs/review.md, "The API")."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from games.schema import GameProblemSerializer
from reviews.models import GameReview
from reviews.selectors import ReviewBody

_CHANCES_HELP = "Each seat's estimated chance of winning, in seat order (they sum to 1), "


class ReviewProblemSerializer(GameProblemSerializer):
    """Problem details; the members below appear only with the codes named in their help text."""

    next_review_at = serializers.DateTimeField(
        required=False, help_text="too_many_reviews: when the account may start its next review."
    )


class ReviewProgressSerializer(serializers.Serializer[dict[str, Any]]):
    done = serializers.IntegerField(help_text="Moves reviewed so far.")
    total = serializers.IntegerField(help_text="Moves to review: every move of the game.")


class ReviewedMoveSerializer(serializers.Serializer[dict[str, Any]]):
    ply = serializers.IntegerField(help_text="The move's ply (0 for the first move), as in the game's moves.")
    move = serializers.CharField(help_text="The move played, in canonical notation.")
    seat = serializers.IntegerField(help_text="The seat that played it.")
    chances = serializers.ListField(child=serializers.FloatField(), help_text=_CHANCES_HELP + "after the move.")
    before = serializers.ListField(
        child=serializers.FloatField(), help_text=_CHANCES_HELP + "before the move, were the mover to play the bot's move."
    )
    best = serializers.CharField(
        allow_null=True, help_text="The bot's preferred move in canonical notation when it differs from the move "
        "played; null when the bot would have played the same."
    )
    drop = serializers.FloatField(help_text="How much the mover's chance fell: before minus after, at least 0.")
    mistake = serializers.BooleanField(help_text="The drop is at least REVIEW_MISTAKE_DROP (0.10 by default).")


class ReviewSerializer(serializers.Serializer[ReviewBody]):
    status = serializers.ChoiceField(
        choices=GameReview.Status.values,
        help_text="`pending` while positions are searched, `done`, or `failed` (POST starts it again).",
    )
    progress = ReviewProgressSerializer()
    moves = ReviewedMoveSerializer(many=True, help_text="The moves reviewed so far, in order.")
