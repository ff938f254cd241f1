from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "notifications"
    verbose_name = "Notifications"

    def ready(self) -> None:
        # Connects the receivers of accounts' signals; registers the reminder tasks
        # (their module is not named tasks.py, which Celery would find on its own).
        from notifications import preference_receivers, reminder_tasks  # noqa: F401

        # Emails a player a moderator's warning or suspension (accounts' signals),
        # and registers that email's renderer.
        from notifications.email import account_notices  # noqa: F401

        # Registers the email tasks in every process, so that the outbox's
        # consumer runs inline when CELERY_TASK_ALWAYS_EAGER is on, and connects
        # the receiver of the email provider's bounce reports (anymail). Celery
        # finds only modules named <app>.tasks by itself: these are imported here.
        from notifications.email import bounces, tasks  # noqa: F401

        # Play by email: its tasks, and the receiver of the provider's inbound webhook.
        from notifications import inbound_tasks, inbound_views  # noqa: F401
