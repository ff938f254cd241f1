"""A player's email preferences (mode, digest hour, reminder hours) and per-game mutes.

- ``selectors``: the reads, and when a player's next digest is due.
- ``services``: the writes, each checked whole before anything is saved; a change
  of reminder hours or mode reschedules the player's reminders
  (notifications.reminders.services, which reads only the selectors).
- ``receivers``: a new time zone moves the next digest (accounts' signal).
- ``admin``: the admin of preferences and mutes, through the services.

The API (notifications.views) and the settings page (front.account_settings)
call the services.
"""
