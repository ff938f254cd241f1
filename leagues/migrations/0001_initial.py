
import django.db.models.deletion
import leagues.models
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('games', '0008_public_and_rated_games'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='RatedGame',
            fields=[
                ('game', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='+', serialize=False, to='games.game')),
                ('rated_at', models.DateTimeField()),
            ],
        ),
        migrations.CreateModel(
            name='League',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(max_length=100, unique=True)),
                ('description', models.TextField(blank=True, default='')),
                ('variant', models.CharField(choices=[('base', 'Splendor'), ('marvel', 'Splendor: Marvel')], default='base', max_length=16)),
                ('players_per_game', models.PositiveSmallIntegerField(default=2)),
                ('move_seconds', models.PositiveIntegerField(default=259200)),
                ('bank_seconds', models.PositiveIntegerField(default=0)),
                ('bank_cap_seconds', models.PositiveIntegerField(default=0)),
                ('forfeit_after', models.PositiveSmallIntegerField(default=3)),
                ('rated', models.BooleanField(default=True)),
                ('public', models.BooleanField(default=True)),
                ('double_round_robin', models.BooleanField(default=False)),
                ('points_for_place', models.JSONField(default=leagues.models.default_points)),
                ('vacation_allowed', models.BooleanField(default=True)),
                ('pauses_allowed', models.BooleanField(default=True)),
                ('longest_waiting_first', models.BooleanField(default=False)),
                ('min_reliability', models.PositiveSmallIntegerField(blank=True, null=True)),
                ('division_size', models.PositiveSmallIntegerField(blank=True, null=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('admins', models.ManyToManyField(blank=True, related_name='leagues_administered', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['name'],
            },
        ),
        migrations.CreateModel(
            name='Division',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('level', models.PositiveSmallIntegerField()),
                ('name', models.CharField(max_length=100)),
                ('league', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='divisions', to='leagues.league')),
            ],
            options={
                'ordering': ['league', 'level'],
            },
        ),
        migrations.CreateModel(
            name='Membership',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('status', models.CharField(choices=[('pending', 'Asked to join'), ('active', 'Member'), ('leaving', 'Asked to leave'), ('left', 'Left'), ('rejected', 'Turned down')], default='pending', max_length=16)),
                ('requested_at', models.DateTimeField()),
                ('decided_at', models.DateTimeField(blank=True, null=True)),
                ('decided_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('league', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='memberships', to='leagues.league')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='league_memberships', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['league', 'requested_at', 'id'],
            },
        ),
        migrations.CreateModel(
            name='PlayerRating',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('variant', models.CharField(choices=[('base', 'Splendor'), ('marvel', 'Splendor: Marvel')], max_length=16)),
                ('rating', models.FloatField(default=1500.0)),
                ('rd', models.FloatField(default=350.0)),
                ('volatility', models.FloatField(default=0.06)),
                ('games', models.PositiveIntegerField(default=0)),
                ('updated_at', models.DateTimeField(blank=True, null=True)),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='ratings', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['user', 'variant'],
            },
        ),
        migrations.CreateModel(
            name='RatingChange',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('variant', models.CharField(choices=[('base', 'Splendor'), ('marvel', 'Splendor: Marvel')], max_length=16)),
                ('rating_before', models.FloatField()),
                ('rating_after', models.FloatField()),
                ('rd_before', models.FloatField()),
                ('rd_after', models.FloatField()),
                ('volatility_before', models.FloatField()),
                ('volatility_after', models.FloatField()),
                ('results', models.JSONField(default=list)),
                ('created_at', models.DateTimeField()),
                ('game', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='rating_changes', to='games.game')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='rating_changes', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['created_at', 'id'],
            },
        ),
        migrations.CreateModel(
            name='Season',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('number', models.PositiveSmallIntegerField()),
                ('starts_on', models.DateField()),
                ('ends_on', models.DateField()),
                ('started_at', models.DateTimeField(blank=True, null=True)),
                ('league', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='seasons', to='leagues.league')),
            ],
            options={
                'ordering': ['league', 'number'],
            },
        ),
        migrations.CreateModel(
            name='LeagueGame',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('round', models.PositiveSmallIntegerField()),
                ('division', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='leagues.division')),
                ('game', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='league_game', to='games.game')),
                ('season', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='league_games', to='leagues.season')),
            ],
            options={
                'ordering': ['season', 'round', 'id'],
            },
        ),
        migrations.CreateModel(
            name='SeasonEntry',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('joined_at', models.DateTimeField()),
                ('late', models.BooleanField(default=False)),
                ('dropped_at', models.DateTimeField(blank=True, null=True)),
                ('division', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='entries', to='leagues.division')),
                ('season', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='entries', to='leagues.season')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='season_entries', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['season', 'id'],
            },
        ),
        migrations.CreateModel(
            name='TimeoutCredit',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('variant', models.CharField(choices=[('base', 'Splendor'), ('marvel', 'Splendor: Marvel')], max_length=16)),
                ('period', models.CharField(max_length=7)),
                ('game', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='games.game')),
                ('opponent', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
        ),
        migrations.AddConstraint(
            model_name='league',
            constraint=models.CheckConstraint(condition=models.Q(('players_per_game__gte', 2), ('players_per_game__lte', 4)), name='league_players_2_to_4'),
        ),
        migrations.AddConstraint(
            model_name='league',
            constraint=models.CheckConstraint(condition=models.Q(('min_reliability__isnull', True), ('min_reliability__lte', 100), _connector='OR'), name='league_reliability_pct'),
        ),
        migrations.AddConstraint(
            model_name='division',
            constraint=models.UniqueConstraint(fields=('league', 'level'), name='division_unique_level'),
        ),
        migrations.AddConstraint(
            model_name='membership',
            constraint=models.UniqueConstraint(fields=('league', 'user'), name='membership_unique_user'),
        ),
        migrations.AddConstraint(
            model_name='playerrating',
            constraint=models.UniqueConstraint(fields=('user', 'variant'), name='playerrating_unique_variant'),
        ),
        migrations.AddIndex(
            model_name='ratingchange',
            index=models.Index(fields=['user', 'variant', 'created_at'], name='ratingchange_user_idx'),
        ),
        migrations.AddConstraint(
            model_name='ratingchange',
            constraint=models.UniqueConstraint(fields=('game', 'user'), name='ratingchange_unique_game_user'),
        ),
        migrations.AddConstraint(
            model_name='season',
            constraint=models.UniqueConstraint(fields=('league', 'number'), name='season_unique_number'),
        ),
        migrations.AddConstraint(
            model_name='season',
            constraint=models.CheckConstraint(condition=models.Q(('ends_on__gte', models.F('starts_on'))), name='season_ends_after_start'),
        ),
        migrations.AddConstraint(
            model_name='seasonentry',
            constraint=models.UniqueConstraint(fields=('season', 'user'), name='seasonentry_unique_user'),
        ),
        migrations.AddConstraint(
            model_name='timeoutcredit',
            constraint=models.UniqueConstraint(fields=('user', 'opponent', 'variant', 'period'), name='timeoutcredit_once_per_period'),
        ),
    ]
