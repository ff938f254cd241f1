from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "webhooks"
    verbose_name = "Webhooks"

    def ready(self) -> None:
        # Registers the tasks in every process, so that those queued by name run
        # inline when CELERY_TASK_ALWAYS_EAGER is on.
        # Connects the receivers of accounts' signals (webhooks.receivers).
        from games.extensions import extensions_register
        from webhooks import receivers, tasks  # noqa: F401
        from webhooks.extension import WebhooksExtension

        # The outbox consumer "webhooks".
        extensions_register(WebhooksExtension())
