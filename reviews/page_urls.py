from django.urls import path

from reviews import pages

urlpatterns = [
    path("games/<str:game_id>/review/", pages.review_start_page, name="game-review-page"),
]
