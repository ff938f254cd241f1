"""Notifications: outbound email and reminders; inbound/ will parse email replies."""
