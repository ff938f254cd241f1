"""Game email: the outbox's "email" consumer, reminders and the daily digest.

- notifications.events decides who hears of each game event; notifications.services
  records one ``Notification`` per event, recipient and kind (``notify``), suppresses
  what the player does not want (mode, mutes, opt-outs, undeliverable addresses)
  and sends through Django's email backend from a worker, after commit, retrying
  mail-server errors (``send_due``).
- notifications.emails renders each kind per recipient (templates under
  templates/notifications/email/), from what that recipient may see only.
- notifications.bounces reads bounces (RFC 3464 reports, the provider's webhooks);
  notifications.views_pages serves the one-click unsubscribe and invitation opt-out
  pages; notifications.reply_tokens makes the per-seat reply address token.
- Reminders and digests: notifications.reminders and notifications.reminder_tasks;
  preferences and mutes: notifications.preferences and the API views.

Sign-up codes are sent by the accounts services, not from here.
"""
