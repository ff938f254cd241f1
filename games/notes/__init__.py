"""Private notes on a game (docs/api.md, "Notes"): a seat's holder writes one
note on the game and, if they like, one on each move played, and nobody else
ever reads them.

They live on the seat (``Seat.note``, ``Seat.move_notes``: ``{"<ply>": "text"}``),
are kept after the game for their writer, and go only to that writer: through
``/api/v1/games/{id}/notes/``, the game page's notes panel (and the replay's
move list) and the writer's own data export. Storing them writes no event and
changes no version, so no stream, webhook or email hears of them; the admin,
the game's export and everyone else's pages leave them out; erasing the account
clears them.

- ``text``: what a note may hold and the plies it may name (no database);
- ``services``: storing a seat's notes and clearing an erased account's
  (re-exported by ``games.services``);
- ``selectors``: a seat's notes, for its holder alone;
- ``serializers`` and ``views``: ``/api/v1/games/{id}/notes/``;
- ``pages``: the game page's notes panel and the replay's notes.
"""
