from django.apps import AppConfig


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from accounts import receivers  # noqa: F401  notices a user made inactive outside the services
        from accounts import schema  # noqa: F401  registers the OpenAPI auth extension
        # Registers its tasks in every process, so that services queueing them by
        # name (core.queue.task_send) find them: inline when tasks run eagerly.
        from accounts import tasks  # noqa: F401
