from django.apps import AppConfig


class FrontConfig(AppConfig):
    """The site's own pages that combine apps (no models, no tasks)."""

    name = "front"
    verbose_name = "Site pages"
