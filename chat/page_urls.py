from django.urls import path

from chat import pages

urlpatterns = [
    path("games/<str:game_id>/chat/", pages.game_chat_page, name="game-chat-page"),
]
