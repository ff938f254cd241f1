from django.apps import AppConfig


class LeaguesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "leagues"
    verbose_name = "Leagues"

    def ready(self) -> None:
        # Registers the tasks in every process, so that those queued by name run
        # inline when CELERY_TASK_ALWAYS_EAGER is on.
        # Makes the "League admins" group after every migrate (leagues.receivers).
        from games.extensions import extensions_register
        from leagues import receivers, tasks  # noqa: F401
        from leagues.extension import RatingsExtension

        receivers.connect(self)
        # Leagues' part in games: ratings, league admins' sight, competition, profiles.
        extensions_register(RatingsExtension())
