"""What the tournaments API reads and writes (docs/tournaments.md, "The API")."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from api.serializers import JSONIntegerField, JSONStringField, StrictInputSerializer
from games.models import Game
from games.serializers import UsernamesField
from tournaments.models import Tournament
from tournaments.services import MAX_GAMES_PER_MATCH, MAX_PLAYERS, MAX_ROUNDS, MIN_MOVE_SECONDS


class TournamentCreateInputSerializer(StrictInputSerializer):
    """Create a tournament: its format and size, the games' variant and time control, and when it starts."""

    name = JSONStringField(max_length=100)
    description = JSONStringField(max_length=2000, required=False, default="", allow_blank=True)
    format = serializers.ChoiceField(choices=Tournament.Format.choices)
    # No default here: a league's tournament plays the league's variant unless one is named
    # (tournaments.services.tournament_create); any other, the base game (the model's default).
    variant = serializers.ChoiceField(
        choices=Game.Variant.choices, required=False, help_text="The game; by default a league's own, else base."
    )
    seats = JSONIntegerField(min_value=2, max_value=4, default=2, help_text="Seats at a table: 2-4 (Swiss), 2 (knockout).")
    rounds = JSONIntegerField(min_value=1, max_value=MAX_ROUNDS, required=False, help_text="Swiss: how many rounds.")
    games_per_match = JSONIntegerField(
        min_value=1, max_value=MAX_GAMES_PER_MATCH, default=1, help_text="Knockout: games in a match, odd."
    )
    move_seconds = JSONIntegerField(min_value=MIN_MOVE_SECONDS, default=72 * 3600, help_text="Time per move.")
    bank_seconds = JSONIntegerField(min_value=0, default=0, help_text="Each seat's time bank at the start.")
    bank_cap_seconds = JSONIntegerField(min_value=0, default=0, help_text="The most a bank can hold.")
    forfeit_after = JSONIntegerField(
        min_value=1, max_value=10, default=3, help_text="The timeout in a row that forfeits a seat (graduated timeouts)."
    )
    rated = serializers.BooleanField(default=False, help_text="Its games count towards ratings (Glicko-2).")
    vacation_allowed = serializers.BooleanField(
        default=True, help_text="A player's vacation pauses their games; false: the clocks run."
    )
    max_players = JSONIntegerField(min_value=2, max_value=MAX_PLAYERS, default=16)
    starts_at = serializers.DateTimeField(required=False, allow_null=True, default=None,
                                          help_text="When the first round starts; null: when an organiser starts it.")  # fmt: skip
    round_starts = serializers.ListField(
        child=serializers.DateTimeField(), required=False, default=list, max_length=MAX_ROUNDS,
        help_text="A schedule: one time per round (each round also waits for the last to end).",
    )  # fmt: skip
    public = serializers.BooleanField(default=True, help_text="Open to anyone; false: by invitation, private.")
    league_id = JSONIntegerField(required=False, allow_null=True, default=None, help_text="A league's tournament.")


class TournamentInviteInputSerializer(StrictInputSerializer):
    """Invite players to a private (or open) tournament by username."""

    usernames = UsernamesField(max_length=64, help_text="The players to invite; they accept with POST .../join/.")


class TournamentSerializer(serializers.ModelSerializer[Tournament]):
    league_id = serializers.IntegerField(allow_null=True, read_only=True)
    created_by = serializers.CharField(source="created_by.username", read_only=True)
    winner = serializers.CharField(source="winner.username", read_only=True, allow_null=True, default=None)
    players = serializers.IntegerField(read_only=True, help_text="Entries playing or out of it (not invitations).")
    round_starts = serializers.ListField(
        child=serializers.DateTimeField(), read_only=True, help_text="The schedule: one time per round; [] if none."
    )

    class Meta:
        model = Tournament
        fields = [
            "id", "name", "description", "format", "variant", "seats", "rounds", "games_per_match",
            "move_seconds", "bank_seconds", "bank_cap_seconds", "forfeit_after", "rated", "vacation_allowed", "max_players",
            "public", "starts_at", "rhythm", "round_starts", "league_id", "created_by", "status", "winner",
            "players", "created_at", "started_at", "finished_at",
        ]  # fmt: skip
        read_only_fields = fields


class TournamentStandingSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField()
    username = serializers.CharField()
    status = serializers.CharField(help_text="active, withdrawn or eliminated.")
    points = serializers.FloatField()
    buchholz = serializers.FloatField(help_text="T-STAND-BUCHHOLZ: the opponents' points.")
    prestige = serializers.IntegerField(help_text="T-STAND-PRESTIGE: prestige points scored.")
    rating = serializers.FloatField()


class TournamentTableGameSerializer(serializers.Serializer[dict[str, Any]]):
    game_id = serializers.CharField()
    number = serializers.IntegerField(help_text="The game of the match: 1, 2, ... (replays counted).")
    status = serializers.CharField()
    players = serializers.ListField(child=serializers.CharField(), help_text="In the order they joined.")
    places = serializers.ListField(child=serializers.IntegerField(allow_null=True), allow_null=True)
    forfeited = serializers.ListField(child=serializers.CharField())


class TournamentTableSerializer(serializers.Serializer[dict[str, Any]]):
    position = serializers.IntegerField()
    players = serializers.ListField(child=serializers.CharField())
    winner = serializers.CharField(allow_null=True, help_text="Knockout: the match's winner once decided.")
    decided_by = serializers.CharField(help_text="Knockout: \"\", bye, forfeit or withdrawn.")
    games = TournamentTableGameSerializer(many=True)


class TournamentRoundSerializer(serializers.Serializer[dict[str, Any]]):
    number = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    bye = serializers.CharField(allow_null=True, help_text="Swiss: who sat out, worth a first place.")
    tables = TournamentTableSerializer(many=True)


class TournamentDetailSerializer(TournamentSerializer):
    your_entry = serializers.CharField(allow_null=True, read_only=True, help_text="invited, active, ...; null.")
    organiser = serializers.BooleanField(read_only=True)
    following = serializers.BooleanField(read_only=True)
    rounds_planned = serializers.IntegerField(allow_null=True, read_only=True)
    round_list = TournamentRoundSerializer(many=True, read_only=True, source="rounds_shown")
    standings = TournamentStandingSerializer(many=True, read_only=True)

    class Meta(TournamentSerializer.Meta):
        fields = [
            *TournamentSerializer.Meta.fields, "your_entry", "organiser", "following", "rounds_planned",
            "round_list", "standings",
        ]  # fmt: skip
        read_only_fields = fields


class TournamentEntrySerializer(serializers.Serializer[dict[str, Any]]):
    tournament = serializers.IntegerField()
    status = serializers.CharField(allow_null=True)
