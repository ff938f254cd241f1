
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0009_moderation'),
    ]

    operations = [
        migrations.AddField(
            model_name='game',
            name='pauses_allowed',
            field=models.BooleanField(default=True),
        ),
        migrations.AddField(
            model_name='game',
            name='vacation_allowed',
            field=models.BooleanField(default=True),
        ),
    ]
