from django.urls import path

from accounts import views

urlpatterns = [
    path("players/", views.PlayerSignupView.as_view(), name="players-signup"),
    path("players/verify/", views.PlayerVerifyView.as_view(), name="players-verify"),
    path("players/resend/", views.PlayerResendView.as_view(), name="players-resend"),
    path("tokens/", views.TokenListCreateView.as_view(), name="tokens"),
    path("tokens/<int:token_id>/", views.TokenDetailView.as_view(), name="token-detail"),
    path("me/", views.MeView.as_view(), name="me"),
]
