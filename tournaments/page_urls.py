"""The tournament pages (HTML; tournaments.pages). Included at the root by
splendor_site.urls; the API's routes are tournaments.urls, under /api/v1/."""

from django.urls import path

from tournaments import pages

urlpatterns = [
    path("tournaments/", pages.tournament_list_page, name="tournament-list-page"),
    path("tournaments/<int:tournament_id>/", pages.tournament_page, name="tournament-page"),
    path("tournaments/<int:tournament_id>/join/", pages.tournament_join_page, name="tournament-join-page"),
    path("tournaments/<int:tournament_id>/leave/", pages.tournament_leave_page, name="tournament-leave-page"),
]
