"""Conditional moves ("plans", docs/plans.md): lines of "if the move before my
turn is A, play B" that a seat's holder stores while the others play.

Where a plan fires, once for the whole package: in the turn machinery, inside
the ``game_change`` that applied the move before the seat's turn. Every change
that applies a move (a move submitted through the API, a page or an email, a
missed deadline's move, a bot's turn, a seat leaving) ends with
``games.services.turns.autoplay``, which, for the person whose turn comes next,
calls ``games.services.turns.plan_play``: that reads the seat's stored plan and
asks ``lines.plan_fire`` which line the move just applied (the last of the
change's moves) matches. The line's move is played in the same transaction as
the player's own, and its ``next`` lines become the plan; no line matching, or
a line that is not legal, clears the plan. Nothing else fires a plan: no task,
no beat job, no read. ``plan_play`` stays with the turn machinery because it
settles the seat's bank and clock as ``autoplay``'s other moves do.

- ``lines``: the lines read into canonical notation, and which line a move
  fires (no database);
- ``services``: storing and clearing a seat's plan (re-exported by
  ``games.services``);
- ``selectors``: a seat's own plan, for its holder alone, and the plies plans
  played, once the game is over;
- ``serializers`` and ``views``: ``/api/v1/games/{id}/plan/``;
- ``pages``: the game page's plan editor.

By email, ``notifications.inbound.plans`` reads and stores plans through the
same services; it fires none.
"""
