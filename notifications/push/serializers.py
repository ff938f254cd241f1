"""Input and output shapes of the push API."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from api.serializers import StrictInputSerializer


class PushKeySerializer(serializers.Serializer[dict[str, Any]]):
    public_key = serializers.CharField(
        help_text="The server's VAPID public key, urlsafe base64 of the uncompressed P-256 point: "
        "pass it as `applicationServerKey` to `pushManager.subscribe()`."
    )


class SubscriptionKeysSerializer(StrictInputSerializer):
    """The subscription's keys, as the browser gives them."""

    p256dh = serializers.CharField(max_length=100, help_text="The browser's P-256 public key, urlsafe base64.")
    auth = serializers.CharField(max_length=40, help_text="The browser's 16-byte auth secret, urlsafe base64.")


class PushSubscriptionInputSerializer(StrictInputSerializer):
    """A browser's PushSubscription as its `toJSON()` gives it (`endpoint`,
    `expirationTime`, `keys`); `expirationTime` is accepted and ignored, any
    other field is refused."""

    endpoint = serializers.CharField(max_length=2000, help_text="The push service's URL for this browser.")
    expirationTime = serializers.IntegerField(  # noqa: N815 (the browser's own name)
        required=False, allow_null=True, help_text="Ignored: the push service says when a subscription is gone."
    )
    keys = SubscriptionKeysSerializer()


class PushSubscriptionSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    endpoint_host = serializers.CharField(
        help_text="The push service's host (the rest of the endpoint is never shown: it is the browser's address)."
    )
    created_at = serializers.DateTimeField()
