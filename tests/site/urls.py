"""Tiny views that exercise the site wiring without depending on any app's API."""

from django.urls import include, path
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from api.problems import ProblemError


class IllegalMoveError(ProblemError):
    status_code = 409
    code = "illegal_move"
    title = "Illegal move"


class EchoView(APIView):
    permission_classes = [AllowAny]

    def get(self, request):
        return Response({"ok": True})

    def post(self, request):
        return Response({"received": request.data})


class ProtectedView(APIView):
    def get(self, request):
        return Response({"ok": True})


class IllegalView(APIView):
    permission_classes = [AllowAny]

    def post(self, request):
        raise IllegalMoveError("red has 3 tokens; taking two needs 4", rule="B-TAKE-2", choices=["T2-W"])


class BrokenView(APIView):
    permission_classes = [AllowAny]

    def get(self, request):
        raise RuntimeError("a bug")


urlpatterns = [
    path("api/test/echo/", EchoView.as_view()),
    path("api/test/protected/", ProtectedView.as_view()),
    path("api/test/illegal/", IllegalView.as_view()),
    path("api/test/broken/", BrokenView.as_view()),
    path("", include("splendor_site.urls")),
]

handler404 = "api.problems.handler404"
handler500 = "api.problems.handler500"
