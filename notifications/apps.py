from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "notifications"
    verbose_name = "Notifications"

    def ready(self) -> None:
        # Registers the email tasks in every process, so that the outbox's
        # consumer runs inline when CELERY_TASK_ALWAYS_EAGER is on, and connects
        # the receiver of the email provider's bounce reports (anymail).
        from notifications import bounces, tasks  # noqa: F401
