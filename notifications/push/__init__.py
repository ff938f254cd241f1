"""Web Push (RFC 8030): the game news a player asked for, sent to their browsers.

- ``keys``: the server's VAPID key pair (RFC 8292) from the settings, and a
  browser's keys checked (a P-256 point, a 16-byte auth secret).
- ``services``: subscriptions saved and deleted; ``push_notify``, which the email
  channel's ``notify`` calls for every notification it decides (so push hears of
  the same news, to the same people, once per event), records one ``PushMessage``
  per subscription and queues its sending; sending, encrypted per RFC 8291
  (aes128gcm, pywebpush) with a VAPID JWT whose ``aud`` is the endpoint's origin,
  over the webhooks' checked connections (webhooks.url_safety); retries swept.
- ``payloads``: what a push says, in the reader's language: the email's headline
  words, never a hidden card, a seat's link or any token.
- ``selectors``, ``tasks``, ``serializers``, ``permissions``, ``views``: the reads,
  the Celery tasks (on the webhooks queue: outgoing HTTP to servers outside), and
  the API (GET /api/v1/push/key/, /api/v1/me/push-subscriptions/).

docs/notifications.md ("Push") describes it for players and operators.
"""
