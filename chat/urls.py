from django.urls import path

from chat import views

urlpatterns = [
    path("games/<str:game_id>/chat/", views.ChatView.as_view(), name="game-chat"),
    path("games/<str:game_id>/chat/preferences/", views.ChatPreferencesView.as_view(), name="game-chat-preferences"),
    path("games/<str:game_id>/chat/export/", views.ChatExportView.as_view(), name="game-chat-export"),
    path("games/<str:game_id>/chat/report/", views.ChatReportView.as_view(), name="game-chat-report"),
]
