"""News from tournaments for the apps beside it (notifications emails the player).

``entry_invited`` is sent, after the change commits, with ``entry_id``,
``user_id`` and ``tournament_id``: an organiser invited a player
(tournaments.services.tournament_invite); the player accepts by joining.
"""

from django.dispatch import Signal

entry_invited = Signal()
