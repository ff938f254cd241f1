from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "notifications"
    verbose_name = "Notifications"

    def ready(self) -> None:
        # Each channel's modules that register something when imported: Celery
        # tasks (Celery finds only modules named <app>.tasks by itself, and those
        # queued by name must be registered to run inline when
        # CELERY_TASK_ALWAYS_EAGER is on), receivers of other apps' signals, and
        # the renderers of each kind of email (notifications.email.render.renderer).

        # Outgoing email: its tasks; a moderator's warning or suspension
        # (accounts' and leagues' signals) and its renderer; the receiver of the
        # email provider's bounce reports (anymail).
        import notifications.email.account_notices  # noqa: F401
        import notifications.email.tournament_invitations  # noqa: F401
        import notifications.email.bounces  # noqa: F401
        import notifications.email.tasks  # noqa: F401

        # Reminders and the digest: their tasks and their emails' renderers.
        import notifications.reminders.emails  # noqa: F401
        import notifications.reminders.tasks  # noqa: F401

        # Web Push: its tasks and the receivers of accounts' signals; a bad VAPID
        # pair stops start-up here rather than at the first push.
        import notifications.push.receivers  # noqa: F401
        import notifications.push.tasks  # noqa: F401
        from notifications.push.keys import vapid_settings_check

        vapid_settings_check()

        # Preferences: the receivers of accounts' signals.
        import notifications.preferences.receivers  # noqa: F401

        # Play by email: its tasks, the receiver of the provider's inbound webhook
        # and the renderers of its replies.
        import notifications.inbound.plans  # noqa: F401
        import notifications.inbound.provider_webhook  # noqa: F401
        import notifications.inbound.reply_emails  # noqa: F401
        import notifications.inbound.tasks  # noqa: F401

        # Its part in games: the outbox consumers "email" and "reminders".
        from games.extensions import extensions_register
        from notifications.extension import EmailExtension, RemindersExtension

        extensions_register(EmailExtension())
        extensions_register(RemindersExtension())

        # The series of the emails' and replies' counters, at 0 from the first scrape.
        from core import metrics
        from notifications.email.services import email_series
        from notifications.inbound.replies import inbound_series

        metrics.series_declare(metrics.EMAILS, email_series)
        metrics.series_declare(metrics.INBOUND, inbound_series)
