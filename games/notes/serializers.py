"""The notes endpoint's bodies (docs/api.md, "Notes"): what a player sends and
reads back.

What a note may hold is checked by ``games.notes.text.notes_read``, which names
each problem by its field (``note``, ``moves``, ``moves.12``); the input
serializer takes any JSON for both fields so that every problem is said in
those words, and the schema serializer describes them."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from api.serializers import StrictInputSerializer
from games.notes.text import MAX_MOVE_NOTES, MAX_NOTE_LENGTH, notes_read

NOTE_HELP = (
    f"Your note on the game: plain text, at most {MAX_NOTE_LENGTH} characters; line breaks and tabs are the only "
    "control characters it may hold. Empty for none."
)
MOVES_HELP = (
    f"Your notes on moves, at most {MAX_MOVE_NOTES}, by the move's ply in digits (the move history's numbering: "
    '"0" is the first move), each a text like the note. A ply must be a move played already. An empty text '
    "removes that move's note."
)


class NotesTextSerializer(serializers.Serializer[Any]):
    note = serializers.CharField(allow_blank=True, help_text="Your note on the game (empty for none).")
    moves = serializers.DictField(
        child=serializers.CharField(), help_text='Your notes on moves, by ply in order: {"<ply>": "text"}.'
    )


class NotesSerializer(NotesTextSerializer):
    game_id = serializers.CharField()
    your_seat = serializers.IntegerField(allow_null=True, help_text="Your seat (null before the game starts).")
    moves_played = serializers.IntegerField(
        min_value=0, help_text="How many moves have been played: a note may name the plies from 0 to one less."
    )


class NotesInputSerializer(StrictInputSerializer):
    """Replace your notes on the game: the note on the game and the notes on
    moves, both whole (an empty note and no move notes clear them)."""

    note = serializers.JSONField(help_text=NOTE_HELP)
    moves = serializers.JSONField(help_text=MOVES_HELP)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        note, moves, problems = notes_read(attrs["note"], attrs["moves"])
        if problems:
            raise serializers.ValidationError(problems)
        return {"note": note, "moves": moves}


class NotesInputSchemaSerializer(StrictInputSerializer):
    """Replace your notes on the game: the note on the game and the notes on
    moves, both whole (an empty note and no move notes clear them)."""

    note = serializers.CharField(max_length=MAX_NOTE_LENGTH, allow_blank=True, help_text=NOTE_HELP)
    moves = serializers.DictField(
        child=serializers.CharField(max_length=MAX_NOTE_LENGTH, allow_blank=True), help_text=MOVES_HELP
    )
