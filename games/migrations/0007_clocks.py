
from datetime import timedelta

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.db.models import F


def forward(apps, schema_editor):
    """Games made before clocks keep the rules they were made with: the time per
    move in seconds, no bank, and the first missed deadline forfeits (forfeit_after
    1). The server's moves so far were quiet moves for seats that left."""
    Game = apps.get_model("games", "Game")
    Move = apps.get_model("games", "Move")
    Game.objects.update(move_seconds=F("move_timeout_hours") * 3600, forfeit_after=1)
    for game in Game.objects.filter(deadline_at__isnull=False).only("id", "deadline_at", "move_seconds"):
        game.turn_started_at = game.deadline_at - timedelta(seconds=game.move_seconds)
        game.save(update_fields=["turn_started_at"])
    Move.objects.filter(automatic=True).update(played_by="service")


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0006_seat_link_and_reply_keys'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='game',
            name='bank_cap_seconds',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='game',
            name='bank_start_seconds',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='game',
            name='clock_remaining',
            field=models.DurationField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='game',
            name='forfeit_after',
            field=models.PositiveSmallIntegerField(default=3),
        ),
        migrations.AddField(
            model_name='game',
            name='move_seconds',
            field=models.PositiveIntegerField(default=259200),
        ),
        migrations.AddField(
            model_name='game',
            name='turn_started_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='move',
            name='played_by',
            field=models.CharField(choices=[('player', "The seat's player"), ('bot', 'The bot, on a timeout'), ('service', 'The server')], default='player', max_length=8),
        ),
        migrations.AddField(
            model_name='seat',
            name='bank_seconds',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name='seat',
            name='consecutive_timeouts',
            field=models.PositiveSmallIntegerField(default=0),
        ),
        migrations.AlterField(
            model_name='gameevent',
            name='kind',
            field=models.CharField(choices=[('game_created', 'Game Created'), ('seat_joined', 'Seat Joined'), ('game_started', 'Game Started'), ('move_played', 'Move Played'), ('seat_resigned', 'Seat Resigned'), ('game_finished', 'Game Finished'), ('seat_declined', 'Seat Declined'), ('seat_left', 'Seat Left'), ('game_aborted', 'Game Aborted'), ('turn_timed_out', 'Turn Timed Out'), ('clock_paused', 'Clock Paused'), ('clock_resumed', 'Clock Resumed')], max_length=32),
        ),
        migrations.CreateModel(
            name='GamePause',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('reason', models.CharField(choices=[('vacation', 'Vacation'), ('moderator', 'Moderator'), ('server', 'Server')], max_length=16)),
                ('started_at', models.DateTimeField()),
                ('ends_at', models.DateTimeField(blank=True, null=True)),
                ('ended_at', models.DateTimeField(blank=True, null=True)),
                ('note', models.CharField(blank=True, default='', max_length=500)),
                ('game', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='pauses', to='games.game')),
                ('user', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['started_at', 'id'],
                'indexes': [models.Index(condition=models.Q(('ended_at__isnull', True)), fields=['ends_at'], name='gamepause_open_ends_idx'), models.Index(condition=models.Q(('ended_at__isnull', True)), fields=['game'], name='gamepause_open_game_idx')],
            },
        ),
        migrations.CreateModel(
            name='Vacation',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('starts_at', models.DateTimeField()),
                ('ends_at', models.DateTimeField()),
                ('days', models.PositiveSmallIntegerField()),
                ('automatic', models.BooleanField(default=False)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='vacations', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['starts_at', 'id'],
                'indexes': [models.Index(fields=['user', 'starts_at'], name='vacation_user_starts_idx')],
            },
        ),
        migrations.RunPython(forward, migrations.RunPython.noop),
    ]
