"""HTML pages reached from email links: one-click unsubscribe and the invitation opt-out."""

from __future__ import annotations

from django.urls import path

from notifications import pages

app_name = "notifications"

urlpatterns = [
    path("unsubscribe/<str:token>/", pages.unsubscribe, name="unsubscribe"),
    path("opt-out/<str:token>/", pages.invitation_opt_out, name="opt-out"),
]
