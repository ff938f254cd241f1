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
        # /metrics reads the games' gauges from the database when scraped, and
        # /healthz the beat's last runs (core.metrics names both).
        from core import metrics as core_metrics
        from games import metrics

        core_metrics.scrape_collector_register(metrics.scrape)
        core_metrics.beat_reader_register(metrics.periodic_runs)
        core_metrics.series_declare(core_metrics.GAMES_STARTED, metrics.variant_series)
