"""The account pages' addresses, mounted under /accounts/ (splendor_site.urls)."""

from django.urls import path

from accounts import address_pages, pages

urlpatterns = [
    path("signup/", pages.signup, name="accounts-signup"),
    path("signup/verify/", pages.signup_verify, name="accounts-signup-verify"),
    path("signup/resend/", pages.signup_resend, name="accounts-signup-resend"),
    path("login/", pages.LoginPage.as_view(), name="login"),
    path("logout/", pages.LogoutPage.as_view(), name="logout"),
    path("password/reset/", pages.PasswordResetPage.as_view(), name="accounts-password-reset"),
    path("password/reset/sent/", pages.PasswordResetDonePage.as_view(), name="accounts-password-reset-done"),
    path(
        "password/reset/<uidb64>/<token>/",
        pages.PasswordResetConfirmPage.as_view(),
        name="password_reset_confirm",
    ),
    path("password/reset/done/", pages.PasswordResetCompletePage.as_view(), name="accounts-password-reset-complete"),
    path("password/", pages.PasswordChangePage.as_view(), name="accounts-password-change"),
    path("password/changed/", pages.PasswordChangeDonePage.as_view(), name="accounts-password-change-done"),
    path("email/", pages.email_change, name="accounts-email"),
    path("calendar/rotate/", pages.calendar_rotate, name="accounts-calendar-rotate"),
    path("email/confirm/<str:token>/", pages.email_confirm, name="accounts-email-confirm"),
    path("email/addresses/", address_pages.email_addresses, name="accounts-email-addresses"),
    path(
        "email/addresses/<int:address_id>/verify/",
        address_pages.email_address_verify,
        name="accounts-email-address-verify",
    ),
    path(
        "email/addresses/<int:address_id>/resend/",
        address_pages.email_address_resend,
        name="accounts-email-address-resend",
    ),
    path(
        "email/addresses/<int:address_id>/primary/",
        address_pages.email_address_primary,
        name="accounts-email-address-primary",
    ),
    path(
        "email/addresses/<int:address_id>/remove/",
        address_pages.email_address_remove,
        name="accounts-email-address-remove",
    ),
]
