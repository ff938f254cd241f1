
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0009_moderation'),
        ('leagues', '0001_initial'),
    ]

    operations = [
        migrations.CreateModel(
            name='LeagueScopedGame',
            fields=[
            ],
            options={
                'verbose_name': 'league game to moderate',
                'verbose_name_plural': 'league games to moderate',
                'proxy': True,
                'indexes': [],
                'constraints': [],
            },
            bases=('games.game',),
        ),
    ]
