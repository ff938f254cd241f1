
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0008_public_and_rated_games'),
    ]

    operations = [
        migrations.CreateModel(
            name='ModerationEntry',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('user_id', models.IntegerField(help_text='The moderator (a user id).')),
                ('action', models.CharField(choices=[('game_aborted', 'Aborted the game'), ('game_adjudicated', 'Adjudicated the result'), ('deadline_extended', 'Extended the deadline'), ('game_paused', 'Paused the game'), ('game_resumed', 'Resumed the game'), ('seat_replaced', 'Replaced a seat'), ('player_warned', 'Warned a player'), ('player_suspended', 'Suspended a player'), ('player_unsuspended', 'Lifted a suspension'), ('board_viewed', 'Viewed the board as a seat')], max_length=32)),
                ('game_id', models.CharField(blank=True, db_index=True, max_length=16, null=True)),
                ('target_user_id', models.IntegerField(blank=True, db_index=True, null=True)),
                ('reason', models.TextField()),
                ('details', models.JSONField(blank=True, default=dict)),
                ('at', models.DateTimeField(db_index=True)),
            ],
            options={
                'verbose_name_plural': 'moderation entries',
                'ordering': ['-at', '-id'],
            },
        ),
        migrations.AlterModelOptions(
            name='game',
            options={'ordering': ['-created_at'], 'permissions': [('moderate_game', 'Can moderate games (abort, adjudicate, extend, pause, replace seats)')]},
        ),
        migrations.AddField(
            model_name='seat',
            name='bot',
            field=models.BooleanField(default=False),
        ),
        migrations.AlterField(
            model_name='gameevent',
            name='kind',
            field=models.CharField(choices=[('game_created', 'Game Created'), ('seat_joined', 'Seat Joined'), ('game_started', 'Game Started'), ('move_played', 'Move Played'), ('seat_resigned', 'Seat Resigned'), ('game_finished', 'Game Finished'), ('seat_declined', 'Seat Declined'), ('seat_left', 'Seat Left'), ('game_aborted', 'Game Aborted'), ('turn_timed_out', 'Turn Timed Out'), ('clock_paused', 'Clock Paused'), ('clock_resumed', 'Clock Resumed'), ('game_adjudicated', 'Game Adjudicated'), ('deadline_extended', 'Deadline Extended'), ('seat_replaced', 'Seat Replaced')], max_length=32),
        ),
    ]
