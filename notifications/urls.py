from django.urls import path

from notifications import views
from notifications.push import views as push_views

urlpatterns = [
    path("me/notifications/", views.PreferencesView.as_view(), name="me-notifications"),
    path("games/<str:game_id>/mute/", views.GameMuteView.as_view(), name="game-mute"),
    path("push/key/", push_views.PushKeyView.as_view(), name="push-key"),
    path("me/push-subscriptions/", push_views.PushSubscriptionListView.as_view(), name="me-push-subscriptions"),
    path(
        "me/push-subscriptions/<int:subscription_id>/",
        push_views.PushSubscriptionDetailView.as_view(),
        name="me-push-subscription",
    ),
]
