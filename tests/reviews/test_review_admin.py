"""Reviews in the admin: read-only, for staff holding ``reviews.view_gamereview``.

Personas: vera is staff with that permission alone; walter is staff without it."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from reviews.models import GameReview
from tests.games.game_helpers import client_for, make_player
from tests.reviews.review_helpers import finished_game

pytestmark = pytest.mark.django_db


def staff(username: str, *codenames: str) -> Client:
    user = make_player(username)
    user.is_staff = True
    user.save()
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    client = Client()
    client.force_login(user)
    return client


def test_staff_with_the_view_permission_read_a_review_and_change_nothing(alice: Any, bob: Any, commit: Any) -> None:
    game = finished_game(alice, [bob])
    with commit():
        client_for(alice).post(f"/api/v1/games/{game.pk}/review/")
    review = GameReview.objects.get()
    vera = staff("vera", "view_gamereview")
    listing = vera.get("/admin/reviews/gamereview/")
    assert listing.status_code == 200 and game.pk in listing.content.decode()
    page = vera.get(f"/admin/reviews/gamereview/{review.pk}/change/")
    assert page.status_code == 200
    assert 'name="_save"' not in page.content.decode()  # nothing to save
    assert vera.post(f"/admin/reviews/gamereview/{review.pk}/delete/", {"post": "yes"}).status_code == 403
    assert GameReview.objects.filter(pk=review.pk).exists()


def test_staff_without_it_see_no_reviews(alice: Any) -> None:
    walter = staff("walter")
    assert walter.get("/admin/reviews/gamereview/").status_code == 403
