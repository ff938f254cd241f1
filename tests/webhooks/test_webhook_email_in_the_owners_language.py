"""The email that says a webhook was disabled is written in its owner's language
(``Player.language``), whatever language is active where it is sent; its
machine-facing lines (the URL, the API paths, the JSON) stay as they are."""

from __future__ import annotations

from typing import Any

import pytest
from django.core import mail
from django.utils import timezone, translation

from accounts.models import Player
from webhooks import services
from webhooks.models import Endpoint

pytestmark = pytest.mark.django_db


def _disabled_endpoint(owner: Any, language: str) -> Endpoint:
    Player.objects.filter(user=owner).update(language=language)
    return Endpoint.objects.create(
        owner=owner,
        url="https://hooks.example.com/splendor",
        is_active=False,
        disabled_at=timezone.now(),
        disabled_reason="Delivery failed 8 times (HTTP 503).",
    )


def test_an_italian_owner_is_told_in_italian_that_the_webhook_was_disabled(alice: Any) -> None:
    endpoint = _disabled_endpoint(alice, "it")
    with translation.override("lv"):
        assert services.endpoint_disabled_notice_send(endpoint_id=endpoint.pk)
    [notice] = mail.outbox
    assert notice.subject == "Il tuo webhook è stato disattivato: le consegne continuavano a fallire"
    assert notice.body.startswith("Ciao alice,")
    assert f"Abbiamo smesso di inviare gli eventi delle partite al tuo webhook {endpoint.pk}:" in notice.body
    assert "Perché: Delivery failed 8 times (HTTP 503)." in notice.body
    assert f"/api/v1/webhooks/{endpoint.pk}/\n" in notice.body
    assert '{"is_active": true}' in notice.body and endpoint.url in notice.body
    assert "Hello" not in notice.body and "We stopped" not in notice.body


def test_a_latvian_owner_is_told_in_latvian(alice: Any) -> None:
    endpoint = _disabled_endpoint(alice, "lv")
    assert services.endpoint_disabled_notice_send(endpoint_id=endpoint.pk)
    [notice] = mail.outbox
    assert notice.subject == "Tavs tīmekļa āķis ir izslēgts: piegādes uz to atkārtoti neizdevās"
    assert notice.body.startswith("Sveiki, alice!")
    assert "Iemesls: Delivery failed 8 times (HTTP 503)." in notice.body
    assert f"GET /api/v1/webhooks/{endpoint.pk}/deliveries/" in notice.body


def test_an_english_owner_is_told_in_english_even_when_another_language_is_active(alice: Any) -> None:
    endpoint = _disabled_endpoint(alice, "en")
    with translation.override("it"):
        assert services.endpoint_disabled_notice_send(endpoint_id=endpoint.pk)
    [notice] = mail.outbox
    assert notice.subject == "Your webhook was disabled: deliveries to it kept failing"
    assert notice.body.startswith("Hello alice,") and "Why: Delivery failed 8 times (HTTP 503)." in notice.body
