from django.apps import AppConfig


class LeaguesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "leagues"
    verbose_name = "Leagues"

    def ready(self) -> None:
        # Registers the outbox consumer's task in every process, so that it runs
        # inline when CELERY_TASK_ALWAYS_EAGER is on (games queues it by name).
        # Makes the "League admins" group after every migrate (leagues.receivers).
        from leagues import receivers, tasks  # noqa: F401

        receivers.connect(self)
