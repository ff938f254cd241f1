"""Reminders before a deadline and the daily digest.

- ``services``: writing each turn's reminders, and the sweeps that send the due
  reminders and digests (each row claimed by a conditional UPDATE).
- ``emails``: what a reminder and a digest show (their renderers).
- ``tasks``: the outbox's "reminders" consumer and the two beat sweeps.
"""
