from django.urls import path

from tournaments import views

app_name = "tournaments"

urlpatterns = [
    path("tournaments/", views.TournamentListView.as_view(), name="tournament-list"),
    path("tournaments/<int:tournament_id>/", views.TournamentDetailView.as_view(), name="tournament-detail"),
    path("tournaments/<int:tournament_id>/join/", views.TournamentJoinView.as_view(), name="tournament-join"),
    path("tournaments/<int:tournament_id>/leave/", views.TournamentLeaveView.as_view(), name="tournament-leave"),
    path("tournaments/<int:tournament_id>/decline/", views.TournamentDeclineView.as_view(), name="tournament-decline"),
    path("tournaments/<int:tournament_id>/invite/", views.TournamentInviteView.as_view(), name="tournament-invite"),
    path("tournaments/<int:tournament_id>/start/", views.TournamentStartView.as_view(), name="tournament-start"),
    path("tournaments/<int:tournament_id>/follow/", views.TournamentFollowView.as_view(), name="tournament-follow"),
]
