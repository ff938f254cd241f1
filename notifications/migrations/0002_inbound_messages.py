import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0009_moderation'),
        ('notifications', '0001_initial'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='PendingConfirmation',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('code', models.CharField(max_length=32, unique=True)),
                ('action', models.CharField(choices=[('resign', 'Resign'), ('new_game', 'New Game')], max_length=16)),
                ('details', models.JSONField(blank=True, default=dict)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('expires_at', models.DateTimeField()),
                ('done_at', models.DateTimeField(blank=True, null=True)),
                ('game', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='games.game')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
        ),
        migrations.CreateModel(
            name='InboundMessage',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('message_key', models.CharField(max_length=64, unique=True)),
                ('source', models.CharField(max_length=16)),
                ('raw', models.BinaryField(blank=True, null=True)),
                ('envelope_to', models.JSONField(blank=True, default=list)),
                ('status', models.CharField(choices=[('received', 'Received'), ('applied', 'Applied'), ('refused', 'Refused'), ('dropped', 'Dropped')], default='received', max_length=16)),
                ('received_at', models.DateTimeField(auto_now_add=True)),
                ('processed_at', models.DateTimeField(blank=True, null=True)),
                ('sender_digest', models.CharField(blank=True, default='', max_length=64)),
                ('command', models.CharField(blank=True, default='', max_length=200)),
                ('outcome', models.CharField(blank=True, default='', max_length=300)),
                ('error_replied', models.BooleanField(default=False)),
                ('reply', models.JSONField(blank=True, default=dict)),
                ('game', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='games.game')),
                ('user', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'indexes': [models.Index(fields=['sender_digest', 'received_at'], name='inbound_sender_idx'), models.Index(condition=models.Q(('status', 'received')), fields=['received_at'], name='inbound_unprocessed_idx')],
            },
        ),
    ]
