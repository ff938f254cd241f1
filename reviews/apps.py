from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "reviews"
    verbose_name = "Reviews"

    def ready(self) -> None:
        # The tasks, registered in every process so that the services queue them by
        # name (core.queue.task_send) and find them inline when tasks run eagerly.
        from reviews import tasks  # noqa: F401
        from games.extensions import extensions_register
        from reviews.extension import ReviewsExtension

        # The review's panel on the replay page.
        extensions_register(ReviewsExtension())
