from django.urls import path

from reviews import views

urlpatterns = [
    path("games/<str:game_id>/review/", views.GameReviewView.as_view(), name="game-review"),
]
