from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from accounts.language import language_set
from api.health import healthz
from api.metrics import metrics_view
from api.home import favicon
from games.links.views import SeatLinkRotateView

urlpatterns = [
    # The site's own pages that combine apps (front.urls): the home page, and the
    # account pages of games, invitations and settings under /accounts/.
    path("", include("front.urls")),
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
    path("api/v1/", include("tournaments.urls")),
    # Served by streams.asgi under ASGI; this route serves it under WSGI and documents it.
    path("api/v1/", include("streams.urls")),
    path("api/v1/", include("chat.urls")),
    path("api/v1/", include("reviews.urls")),
    path("api/v1/games/<str:game_id>/link/rotate/", SeatLinkRotateView.as_view(), name="game-link-rotate"),
    # The game page opened by a seat's signed link (games.links), and its actions; HTML, not the API.
    path("", include("games.pages.urls")),
    path("", include("chat.page_urls")),  # the game page's table-talk forms post here
    path("", include("reviews.page_urls")),  # the replay's "Review this game" button posts here
    # The tournament pages, /tournaments/ and /tournaments/<id>/ (tournaments.pages); HTML, not the API.
    path("", include("tournaments.page_urls")),
    path("api/v1/", include("notifications.urls")),
    # Pages behind the links in game email (unsubscribe, invitation opt-out); HTML.
    path("notifications/", include("notifications.page_urls")),
    # The account pages of accounts alone (accounts.pages); those that combine apps are front's.
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
