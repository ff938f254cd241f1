"""News from accounts for the apps above it (accounts imports none of them).

``account_disabled`` is sent, after the change commits, with ``user_id`` when an
account stops being able to play: games receives it and moves the account's
seats on at once (games.receivers).

``account_erased`` is sent with ``user_id`` when an account is erased
(``accounts.services.player_erase``), *inside* the erasing transaction: what a
receiver scrubs of the person goes with the erasure or not at all. Receivers
remove or rewrite whatever they keep that names the person (a username, an
email address, a display name); rows that point at the user by id stay.
``account_disabled`` follows once the erasure commits.

``time_zone_changed`` is sent, after the change commits, with ``user_id`` when
a player sets another time zone (``accounts.services.player_time_zone_set``):
notifications moves the player's next digest to their hour in the new zone.

``player_suspended`` is sent, after the suspension commits, with ``user_id``,
``reason`` (the moderator's, as the player is to read it) and ``suspended_at``
(``accounts.services.player_suspend``): notifications emails the player.

``player_warned`` is sent, after the warning commits, with ``user_id``,
``reason``, ``warning_id`` (the id of the moderation log's entry, unique per
warning) and ``game_id`` (or None) (``accounts.services.player_warn``):
notifications emails the player.
"""

from django.dispatch import Signal

account_disabled = Signal()
account_erased = Signal()
time_zone_changed = Signal()
player_suspended = Signal()
player_warned = Signal()
