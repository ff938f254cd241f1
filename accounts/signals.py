"""News from accounts for the apps above it (accounts imports none of them).

``account_disabled`` is sent, after the change commits, with ``user_id`` when an
account stops being able to play: games receives it and moves the account's
seats on at once (games.receivers).
"""

from django.dispatch import Signal

account_disabled = Signal()
