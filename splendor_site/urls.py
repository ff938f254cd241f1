from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from accounts.language import language_set
from api.health import healthz
from api.metrics import metrics_view
from api.home import favicon
from games import account_pages as game_account_pages
from games.practice import pages as practice_pages
from games.home_page import home
from games.link_views import SeatLinkRotateView
from notifications import account_pages as notification_account_pages
from notifications import new_game_page

urlpatterns = [
    path("", home, name="home"),
    path("favicon.ico", favicon, name="favicon"),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    # The pages' language switch (accounts.language.language_set, Django's set_language).
    path("i18n/setlang/", language_set, name="set_language"),
    path("metrics", metrics_view, name="metrics"),
    # The pages at the `type` URLs of the API's problem answers (api.problem_types).
    path("problems/", include("api.problem_pages")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/v1/", include("accounts.urls")),
    path("api/v1/", include("games.urls")),
    path("api/v1/", include("webhooks.urls")),
    path("api/v1/", include("leagues.urls")),
    # Served by streams.asgi under ASGI; this route serves it under WSGI and documents it.
    path("api/v1/", include("streams.urls")),
    path("api/v1/", include("chat.urls")),
    path("api/v1/games/<str:game_id>/link/rotate/", SeatLinkRotateView.as_view(), name="game-link-rotate"),
    # The game page opened by a seat's signed link (games.links), and its actions; HTML, not the API.
    path("", include("games.page_urls")),
    path("", include("chat.page_urls")),  # the game page's table-talk forms post here
    path("api/v1/", include("notifications.urls")),
    # Pages behind the links in game email (unsubscribe, invitation opt-out); HTML.
    path("notifications/", include("notifications.page_urls")),
    # The account pages, for people who play in a browser (HTML): accounts.pages,
    # and the ones that combine apps (games.account_pages, notifications.account_pages).
    path("accounts/games/", game_account_pages.my_games, name="accounts-games"),
    path("accounts/games/new/", new_game_page.new_game, name="accounts-new-game"),
    path("accounts/games/practice/", practice_pages.practice, name="accounts-practice"),
    path("accounts/games/open/", game_account_pages.open_games, name="accounts-open-games"),
    path("accounts/games/open/<str:game_id>/join/", game_account_pages.open_game_join, name="accounts-open-game-join"),
    path("accounts/games/<str:game_id>/accept/", game_account_pages.invitation_answer, {"answer": "accept"},
         name="accounts-invitation-accept"),
    path("accounts/games/<str:game_id>/decline/", game_account_pages.invitation_answer, {"answer": "decline"},
         name="accounts-invitation-decline"),
    path("accounts/vacation/", game_account_pages.vacation, name="accounts-vacation"),
    path("accounts/settings/", notification_account_pages.account_settings, name="accounts-settings"),
    path("accounts/", include("accounts.page_urls")),
    # An account's deadlines calendar, /calendar/<secret>.ics (calendars.views); iCalendar, not the API.
    path("", include("calendars.urls")),
]

# Bounce reports (notifications.email.bounces) and inbound mail
# (notifications.inbound.provider_webhook) from the email provider, only with a
# shared secret: anymail would otherwise accept unauthenticated posts.
if settings.ANYMAIL_WEBHOOK_SECRET:
    urlpatterns.append(path("anymail/", include("anymail.urls")))

handler404 = "api.problems.handler404"
handler500 = "api.problems.handler500"
