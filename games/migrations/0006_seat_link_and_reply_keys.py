import games.models
from django.db import migrations, models


def give_each_seat_its_own_keys(apps, schema_editor):
    # AddField fills existing rows with one default value: every seat needs its own.
    Seat = apps.get_model("games", "Seat")
    for seat in Seat.objects.only("pk").iterator():
        Seat.objects.filter(pk=seat.pk).update(
            link_key=games.models.new_seat_key(), reply_key=games.models.new_seat_key()
        )


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0005_results_and_payloads_in_current_shape'),
    ]

    operations = [
        migrations.AddField(
            model_name='seat',
            name='link_key',
            field=models.CharField(default=games.models.new_seat_key, max_length=64),
        ),
        migrations.AddField(
            model_name='seat',
            name='reply_key',
            field=models.CharField(default=games.models.new_seat_key, max_length=64),
        ),
        migrations.RunPython(give_each_seat_its_own_keys, migrations.RunPython.noop),
    ]
