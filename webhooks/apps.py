from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "webhooks"
    verbose_name = "Webhooks"

    def ready(self) -> None:
        # Registers the tasks in every process, so that the outbox's consumer
        # runs inline when CELERY_TASK_ALWAYS_EAGER is on (games queues it by name).
        # Connects the receivers of accounts' signals (webhooks.receivers).
        from webhooks import receivers, tasks  # noqa: F401
