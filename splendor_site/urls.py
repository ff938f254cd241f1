from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from api.health import healthz
from api.home import home

urlpatterns = [
    path("", home, name="home"),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/v1/", include("accounts.urls")),
    path("api/v1/", include("games.urls")),
]

handler404 = "api.problems.handler404"
handler500 = "api.problems.handler500"
