
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0010_league_rules'),
        ('leagues', '0002_league_scoped_games'),
    ]

    operations = [
        migrations.CreateModel(
            name='LeagueModerationEntry',
            fields=[
            ],
            options={
                'verbose_name': 'league moderation entry',
                'verbose_name_plural': 'league moderation log',
                'proxy': True,
                'indexes': [],
                'constraints': [],
            },
            bases=('games.moderationentry',),
        ),
    ]
