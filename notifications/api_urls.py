from django.urls import path

from notifications import api_views

urlpatterns = [
    path("me/notifications/", api_views.PreferencesView.as_view(), name="me-notifications"),
    path("games/<str:game_id>/mute/", api_views.GameMuteView.as_view(), name="game-mute"),
]
