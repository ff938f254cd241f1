"""The plan endpoint's bodies (docs/plans.md): what a player sends and reads back.

The lines a player sends are checked by ``games.plans.lines.plan_read``, which
names each error by its path (``lines[0].next[1].then``); the serializers here
check the envelope and describe the lines in the schema."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from api.serializers import JSONIntegerField, StrictInputSerializer
from games.plans.lines import MAX_DEPTH, MAX_LINES


class PlanLineSerializer(serializers.Serializer[Any]):
    """One line of a plan: if the move before your turn is `if`, play `then`; its
    `next` lines become the plan."""

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        # "if" is a Python keyword, so the fields are named here rather than declared.
        return {
            "if": serializers.CharField(
                max_length=200, help_text='The move before your turn, in notation ("take WUG"), or "any".'
            ),
            "then": serializers.CharField(max_length=200, help_text='The move to play then ("buy 1-05").'),
            # Made when the fields are asked for, so the recursion stops where the data does.
            "next": PlanLineSerializer(
                many=True,
                required=False,
                help_text=f"Lines of the same shape that become the plan once this one is played "
                f"(at most {MAX_DEPTH} levels in all).",
            ),
        }


class PlanOutcomeSerializer(serializers.Serializer[Any]):
    ply = serializers.IntegerField(help_text="Your turn's ply (the move history's numbering).")
    after = serializers.CharField(help_text="The move before your turn.")
    played = serializers.CharField(required=False, help_text="The move the plan played.")
    cleared = serializers.ChoiceField(
        choices=["unmatched", "illegal", "ambiguous", "suspended"],
        required=False,
        help_text="Why the plan was cleared instead: no line named the move before yours, the line's move "
        "broke a rule then or lacked a choice, or your account could not move.",
    )
    move = serializers.CharField(required=False, help_text="illegal, ambiguous: the line's move.")
    rule = serializers.CharField(required=False, help_text="illegal, ambiguous: the rule's id.")
    reason = serializers.CharField(required=False, help_text="illegal, ambiguous: why, in your language.")


class PlanSerializer(serializers.Serializer[Any]):
    game_id = serializers.CharField()
    version = serializers.IntegerField(help_text="The game's version now.")
    your_seat = serializers.IntegerField(allow_null=True)
    can_store = serializers.BooleanField(help_text="Whether a plan may be stored now: the game runs and you wait.")
    lines = PlanLineSerializer(many=True, help_text="Your plan, in canonical notation.")
    outcomes = PlanOutcomeSerializer(many=True, help_text="What the plan did since you stored it, oldest first.")


class PlanInputSerializer(StrictInputSerializer):
    """Store your plan for the game: its lines (replacing the plan there is) and the
    version of the game you wrote it on."""

    lines = serializers.ListField(
        child=serializers.JSONField(),
        allow_empty=True,
        help_text=f"The lines, at most {MAX_LINES} in all (next lines included); an empty list clears the plan.",
    )
    expected_version = JSONIntegerField(min_value=0, help_text="The game version the plan was written on.")


class PlanInputSchemaSerializer(StrictInputSerializer):
    """Store your plan for the game: its lines (replacing the plan there is) and the
    version of the game you wrote it on."""

    lines = PlanLineSerializer(
        many=True, help_text=f"The lines, at most {MAX_LINES} in all (next lines included); an empty list clears "
        "the plan."
    )
    expected_version = JSONIntegerField(min_value=0, help_text="The game version the plan was written on.")
