"""What the leagues API sends: leagues, seasons, standings, ratings."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from leagues.models import League, Season
from leagues.selectors import StandingRow


class SeasonSerializer(serializers.ModelSerializer[Season]):
    started = serializers.SerializerMethodField(help_text="Whether its games have been made.")

    class Meta:
        model = Season
        fields = ["number", "starts_on", "ends_on", "started"]

    def get_started(self, season: Season) -> bool:
        return season.started_at is not None


class LeagueSerializer(serializers.ModelSerializer[League]):
    points_for_place = serializers.ListField(
        child=serializers.IntegerField(), help_text="Points for first place, second, ...; places past the list score 0."
    )
    min_reliability = serializers.IntegerField(
        allow_null=True, help_text="The least share (percent) of turns played before the deadline to be let in."
    )

    class Meta:
        model = League
        fields = [
            "id",
            "name",
            "description",
            "variant",
            "players_per_game",
            "move_seconds",
            "bank_seconds",
            "bank_cap_seconds",
            "forfeit_after",
            "rated",
            "public",
            "double_round_robin",
            "points_for_place",
            "vacation_allowed",
            "pauses_allowed",
            "longest_waiting_first",
            "min_reliability",
        ]


class LeagueDetailSerializer(LeagueSerializer):
    seasons = SeasonSerializer(many=True, read_only=True)
    members = serializers.IntegerField(help_text="Active members.")
    your_membership = serializers.CharField(
        allow_null=True, help_text="pending, active, leaving, left, rejected; null when you never asked to join."
    )

    class Meta(LeagueSerializer.Meta):
        fields = [*LeagueSerializer.Meta.fields, "seasons", "members", "your_membership"]


class MembershipSerializer(serializers.Serializer[dict[str, Any]]):
    league = serializers.IntegerField()
    status = serializers.CharField(
        allow_null=True, help_text="pending (a league admin decides), leaving, or null: a join request withdrawn."
    )


class StandingSerializer(serializers.Serializer[StandingRow]):
    rank = serializers.IntegerField(help_text="Players level on every tie-break share a rank.")
    username = serializers.CharField()
    division = serializers.CharField(allow_null=True)
    played = serializers.IntegerField()
    points = serializers.IntegerField()
    wins = serializers.IntegerField()
    head_to_head = serializers.IntegerField(help_text="Among players level on points and wins.")
    total_score = serializers.IntegerField(help_text="Prestige points over the season's finished games.")
    dropped = serializers.BooleanField(help_text="Left the league during the season.")


class StandingsSerializer(serializers.Serializer[dict[str, Any]]):
    league = serializers.IntegerField()
    season = serializers.IntegerField()
    standings = StandingSerializer(many=True)


class NextGameSerializer(serializers.Serializer[dict[str, Any]]):
    game_id = serializers.CharField(allow_null=True, help_text="Null when it is your turn in none of its games.")
    waiting_since = serializers.DateTimeField(allow_null=True)
    longest_waiting_first = serializers.BooleanField(help_text="Whether the league asks you to move here first.")


class RatingSerializer(serializers.Serializer[dict[str, Any]]):
    rating = serializers.FloatField()
    rd = serializers.FloatField(help_text="Rating deviation: the uncertainty.")
    volatility = serializers.FloatField()
    games = serializers.IntegerField(help_text="Rated games counted.")


class PlayerRatingsSerializer(serializers.Serializer[dict[str, Any]]):
    username = serializers.CharField()
    ratings = serializers.DictField(child=RatingSerializer(), help_text="By variant; absent: never rated.")
