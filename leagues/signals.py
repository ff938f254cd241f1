"""News from leagues for the apps beside it (notifications emails the player).

``member_suspended`` and ``member_unsuspended`` are sent, after the change
commits, with ``user_id``, ``league_id`` and ``entry_id`` (the moderation log's
entry of the change, unique per suspension): a league admin suspended a player
from their league, or lifted the suspension (leagues.services).
"""

from django.dispatch import Signal

member_suspended = Signal()
member_unsuspended = Signal()
