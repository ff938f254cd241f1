from django.urls import path

from notifications import views

urlpatterns = [
    path("me/notifications/", views.PreferencesView.as_view(), name="me-notifications"),
    path("games/<str:game_id>/mute/", views.GameMuteView.as_view(), name="game-mute"),
]
