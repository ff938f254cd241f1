from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0004_email_code_salt'),
    ]

    operations = [
        migrations.AddField(
            model_name='player',
            name='email_undeliverable_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='player',
            name='email_undeliverable_reason',
            field=models.CharField(blank=True, default='', max_length=255),
        ),
        migrations.AddField(
            model_name='player',
            name='time_zone',
            field=models.CharField(default='UTC', max_length=64),
        ),
    ]
