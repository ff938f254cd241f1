"""The deadlines calendar's address (calendars.views); mounted at the site's root."""

from django.urls import re_path

from calendars import views

urlpatterns = [
    # The secret's alphabet is URL-safe base64's (accounts.services.calendar_feeds).
    re_path(r"^calendar/(?P<secret>[A-Za-z0-9_-]{1,100})\.ics$", views.calendar_feed, name="calendar-feed"),
]
