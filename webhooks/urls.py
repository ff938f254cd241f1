from django.urls import path

from webhooks import views

app_name = "webhooks"

urlpatterns = [
    path("webhooks/", views.WebhookListCreateView.as_view(), name="webhook-list"),
    path("webhooks/<int:webhook_id>/", views.WebhookDetailView.as_view(), name="webhook-detail"),
    path(
        "webhooks/<int:webhook_id>/rotate-secret/",
        views.WebhookRotateSecretView.as_view(),
        name="webhook-rotate-secret",
    ),
    path("webhooks/<int:webhook_id>/deliveries/", views.WebhookDeliveriesView.as_view(), name="webhook-deliveries"),
]
