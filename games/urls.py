from django.urls import path

from games import views
from games.notes import views as notes_views
from games.plans import views as plan_views
from games.practice import views as practice_views

app_name = "games"

urlpatterns = [
    path("games/", views.GameListCreateView.as_view(), name="game-list"),
    path("games/<str:game_id>/", views.GameDetailView.as_view(), name="game-detail"),
    path("games/<str:game_id>/join/", views.GameJoinView.as_view(), name="game-join"),
    path("games/<str:game_id>/legal-moves/", views.GameLegalMovesView.as_view(), name="game-legal-moves"),
    path("games/<str:game_id>/moves/", views.GameMovesView.as_view(), name="game-moves"),
    path("games/<str:game_id>/resign/", views.GameResignView.as_view(), name="game-resign"),
    path("games/<str:game_id>/cancel/", views.GameCancelView.as_view(), name="game-cancel"),
    path("games/<str:game_id>/decline/", views.GameDeclineView.as_view(), name="game-decline"),
    path("games/<str:game_id>/sandbox/", practice_views.GameSandboxView.as_view(), name="game-sandbox"),
    path("games/<str:game_id>/plan/", plan_views.GamePlanView.as_view(), name="game-plan"),
    path("games/<str:game_id>/notes/", notes_views.GameNotesView.as_view(), name="game-notes"),
    path("games/<str:game_id>/export/", views.GameExportView.as_view(), name="game-export"),
    path("me/export/", views.MeExportView.as_view(), name="me-export"),
    path("me/vacation/", views.MeVacationView.as_view(), name="me-vacation"),
    # After accounts' fixed players/... paths in the URLconf; accounts.services.RESERVED_USERNAMES keeps them apart.
    path("players/<str:username>/", views.PlayerProfileView.as_view(), name="player-profile"),
]
