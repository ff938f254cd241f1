"""Data stored before results had one shape and event payloads named people by id:
finished games get the current result shape (places, resigned, timed_out), seats
that lost on time are marked so, and outbox payloads name users by id instead of
username. Reversing leaves the data as it is (the new shape is a superset)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import migrations


def forwards(apps: Any, schema_editor: Any) -> None:
    from games.results import result_in_current_shape

    Game = apps.get_model("games", "Game")
    Seat = apps.get_model("games", "Seat")
    GameEvent = apps.get_model("games", "GameEvent")
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    ids_by_name: dict[str, int] = {}

    def user_id(username: Any) -> int | None:
        if not isinstance(username, str):
            return None
        if username not in ids_by_name:
            found = User.objects.filter(username=username).values_list("pk", flat=True).first()
            if found is None:
                return None
            ids_by_name[username] = found
        return ids_by_name[username]

    for game in Game.objects.filter(result__isnull=False).iterator():
        timed_out = sorted(
            event.payload.get("seat")
            for event in GameEvent.objects.filter(game=game, kind="seat_resigned")
            if event.payload.get("reason") == "timeout" and isinstance(event.payload.get("seat"), int)
        )
        if timed_out:
            Seat.objects.filter(game=game, index__in=timed_out).update(timed_out=True)
        game.result = result_in_current_shape(game.result, timed_out=timed_out)
        game.save(update_fields=["result"])

    for event in GameEvent.objects.filter(kind__in=["game_created", "seat_joined", "game_started"]).iterator():
        payload = dict(event.payload)
        if event.kind == "game_created" and "creator" in payload:
            payload["creator_id"] = user_id(payload.pop("creator"))
            payload["invited_ids"] = [user_id(name) for name in payload.pop("invited", [])]
        elif event.kind == "seat_joined" and "username" in payload:
            payload["user_id"] = user_id(payload.pop("username"))
        elif event.kind == "game_started" and any("username" in seat for seat in payload.get("seats", [])):
            payload["seats"] = [
                {"seat": seat.get("seat"), "user_id": user_id(seat.get("username"))} for seat in payload["seats"]
            ]
        else:
            continue
        event.payload = payload
        event.save(update_fields=["payload"])


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0004_seat_left_event"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
