"""Game email, one folder per channel: the outbox's "email" and "reminders"
consumers, play by email, and the player's choices about all of it.

- notifications.email: outgoing email. Who hears of each game event, one
  ``Notification`` per event, recipient and kind (``notify``), suppressed when the
  player does not want it, rendered per recipient from what they may see, sent
  from a worker after commit, retried, and bounces.
- notifications.inbound: play by email. The pure reader of a reply, and what
  carries its command out.
- notifications.reminders: reminders before a deadline and the daily digest.
- notifications.preferences: email preferences and per-game mutes.

At the top, what the app as a whole has: the models, the admin, the API
(``urls``, ``views``, ``serializers``: preferences and mutes), the pages behind
the links in game email (``page_urls``, ``pages``: unsubscribe and the
invitation opt-out), and ``addresses`` (address digests and
redaction, shared by the channels). Each channel registers its kinds of email
with ``notifications.email.render.renderer``; apps.py imports the modules that
register something. The account settings and new-game pages, which combine
accounts, games and notifications, are front's (front.account_settings,
front.new_game).

Sign-up codes are sent by the accounts services, not from here.
"""
