from django.urls import path

from accounts import views

urlpatterns = [
    path("players/", views.PlayerSignupView.as_view(), name="players-signup"),
    path("players/verify/", views.PlayerVerifyView.as_view(), name="players-verify"),
    path("players/resend/", views.PlayerResendView.as_view(), name="players-resend"),
    path("tokens/", views.TokenListCreateView.as_view(), name="tokens"),
    path("tokens/<int:token_id>/", views.TokenDetailView.as_view(), name="token-detail"),
    path("tokens/recover/", views.TokenRecoverView.as_view(), name="tokens-recover"),
    path("tokens/recover/confirm/", views.TokenRecoverConfirmView.as_view(), name="tokens-recover-confirm"),
    path("me/", views.MeView.as_view(), name="me"),
    path("me/calendar/rotate/", views.CalendarRotateView.as_view(), name="me-calendar-rotate"),
    path("me/password/", views.PasswordView.as_view(), name="me-password"),
    path("me/emails/", views.EmailAddressListView.as_view(), name="me-emails"),
    path("me/emails/<int:address_id>/", views.EmailAddressDetailView.as_view(), name="me-email-detail"),
    path("me/emails/<int:address_id>/verify/", views.EmailAddressVerifyView.as_view(), name="me-email-verify"),
    path("me/emails/<int:address_id>/primary/", views.EmailAddressPrimaryView.as_view(), name="me-email-primary"),
]
