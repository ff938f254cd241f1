from django.urls import path

from leagues import views

app_name = "leagues"

urlpatterns = [
    path("leagues/", views.LeagueListView.as_view(), name="league-list"),
    path("leagues/<int:league_id>/", views.LeagueDetailView.as_view(), name="league-detail"),
    path("leagues/<int:league_id>/join/", views.LeagueJoinView.as_view(), name="league-join"),
    path("leagues/<int:league_id>/leave/", views.LeagueLeaveView.as_view(), name="league-leave"),
    path("leagues/<int:league_id>/next-game/", views.LeagueNextGameView.as_view(), name="league-next-game"),
    path(
        "leagues/<int:league_id>/seasons/<int:number>/standings/",
        views.SeasonStandingsView.as_view(),
        name="season-standings",
    ),
    path("players/<str:username>/ratings/", views.PlayerRatingsView.as_view(), name="player-ratings"),
]
