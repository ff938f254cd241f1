"""The routes of the site's own pages (HTML, for people who play in a browser):
the home page and the account pages that combine apps. Included at the root by
splendor_site.urls; every path and name is the one the site has always used."""

from django.urls import path

from front import account_settings, home, my_games, new_game, pwa
from games.practice import pages as practice_pages

urlpatterns = [
    path("", home.home, name="home"),
    # At the root: a service worker's scope is at most the folder it is served from (front.pwa).
    path("sw.js", pwa.service_worker, name="service-worker"),
    path("manifest.webmanifest", pwa.web_manifest, name="web-manifest"),
    path("accounts/games/", my_games.my_games, name="accounts-games"),
    path("accounts/games/new/", new_game.new_game, name="accounts-new-game"),
    path("accounts/games/practice/", practice_pages.practice, name="accounts-practice"),
    path("accounts/games/open/", my_games.open_games, name="accounts-open-games"),
    path("accounts/games/open/<str:game_id>/join/", my_games.open_game_join, name="accounts-open-game-join"),
    path("accounts/games/<str:game_id>/accept/", my_games.invitation_answer, {"answer": "accept"},
         name="accounts-invitation-accept"),
    path("accounts/games/<str:game_id>/decline/", my_games.invitation_answer, {"answer": "decline"},
         name="accounts-invitation-decline"),
    path("accounts/vacation/", my_games.vacation, name="accounts-vacation"),
    path("accounts/settings/", account_settings.account_settings, name="accounts-settings"),
]
