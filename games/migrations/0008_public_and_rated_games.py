from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0007_clocks'),
    ]

    operations = [
        migrations.AddField(
            model_name='game',
            name='public',
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name='game',
            name='rated',
            field=models.BooleanField(default=False),
        ),
    ]
