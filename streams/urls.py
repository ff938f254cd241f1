from django.urls import path

from streams.views import StreamView

app_name = "streams"

urlpatterns = [
    path("stream/", StreamView.as_view(), name="stream"),
]
