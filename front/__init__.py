"""The site's own pages that combine apps, at the top of the house: only
splendor_site's wiring is above it, and no app imports it.

- ``home``: ``/``, what the service is, and a player's waiting games;
- ``my_games``: My games, the open games, answering an invitation, vacation
  (``/accounts/games/``, ``/accounts/vacation/``);
- ``new_game``: the new-game page, inviting by username or address
  (``/accounts/games/new/``);
- ``account_settings``: time zone, language, calendar, email preferences and the
  vacation summary (``/accounts/settings/``);
- ``urls``: their routes (and the practice page's, games.practice.pages), with the
  paths and names the site has always had.

A page of one app stays in that app (accounts.pages, games.pages, chat.pages,
notifications.pages). Their templates stay with the app whose words they use.
"""
