"""The game page's addresses (HTML, not the API): see games.pages.game."""

from django.urls import path

from games.pages import game as pages

urlpatterns = [
    # The address in every email (with ?seat=<token>); reverse("game-page") makes the links.
    path("games/<str:game_id>/", pages.game_page, name="game-page"),
    path("games/<str:game_id>/version", pages.game_version, name="game-version"),
    # Served by streams.page_stream under ASGI (splendor_site.asgi); here, under WSGI, a 404.
    path("games/<str:game_id>/events/", pages.game_version_stream, name="game-events"),
    path("games/<str:game_id>/resign/", pages.game_resign_page, name="game-resign-page"),
    path("games/<str:game_id>/link/", pages.game_link_rotate_page, name="game-link-rotate-page"),
    path("games/<str:game_id>/replay/", pages.game_replay, name="game-replay"),
    path("games/<str:game_id>/sandbox/", pages.game_sandbox_page, name="game-sandbox-page"),
]
