from django.apps import AppConfig


class StreamsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "streams"
    verbose_name = "Event stream"

    def ready(self) -> None:
        # games imports no consumer: the stream's rows are written through its hook.
        from games.services import game_events_writer_register
        from streams import receivers, services, tasks  # noqa: F401  (tasks: registered in every process)

        game_events_writer_register(services.stream_events_write)
