"""Outgoing game email: what each kind says, who gets it, and its sending.

- ``render``: the renderers, one per kind (``@renderer``), and what every email
  shows; other folders register their own kinds with the same decorator.
- ``services``: ``notify`` records one notification per key and queues it;
  ``notification_send`` claims, renders and sends it, retrying mail-server errors.
- ``game_events``: the outbox's "email" consumer: who hears of each game event.
- ``account_notices``: a moderator's warning or suspension (accounts' and
  leagues' signals), and its email.
- ``bounces``: hard bounces (RFC 3464 reports, the provider's tracking webhook).
- ``links``: the signed unsubscribe and invitation opt-out links every email carries.
- ``tasks``: the Celery tasks (consume an event, send one, send what is due).
"""
