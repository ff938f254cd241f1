from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        from games import receivers  # noqa: F401  connects the receivers of accounts' signals
        # Registers its tasks in every process, so that services queueing them by
        # name (core.queue.task_send) find them: inline when tasks run eagerly.
        from games import tasks  # noqa: F401
