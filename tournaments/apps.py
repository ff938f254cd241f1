from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        # Registers the tasks in every process (beat's start_due).
        from games.extensions import extensions_register
        from tournaments import receivers, tasks  # noqa: F401
        from tournaments.extension import TournamentsExtension

        receivers.connect(self)
        # Tournaments' part in games: rounds move on, news, organisers' sight, labels.
        extensions_register(TournamentsExtension())
