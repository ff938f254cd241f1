
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0005_time_zone_and_undeliverable_email'),
    ]

    operations = [
        migrations.AddField(
            model_name='player',
            name='suspended_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
