from django.apps import AppConfig


class StreamsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "streams"
    verbose_name = "Event stream"

    def ready(self) -> None:
        # games imports no consumer: the stream's rows are written through its extension.
        from games.extensions import extensions_register
        from streams import receivers, tasks  # noqa: F401  (tasks: registered in every process)
        from streams.extension import StreamsExtension

        extensions_register(StreamsExtension())
