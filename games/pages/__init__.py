"""The game page (HTML, for people who play in a browser), by seam:

- ``game``: the page itself and its actions (play, resign, rotate a link,
  sandbox, the plan's box, invitation answers);
- ``session``: who is looking (a seat's link remembered in the session, the
  logged-in player, a spectator);
- ``table``: the moves as the board offers them;
- ``urls``: its addresses, included at the root by splendor_site.urls.

The plan editor is ``games.plans.pages``, the practice page
``games.practice.pages``; the pages that combine apps are front's.
"""
