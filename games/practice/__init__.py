"""Practice games against the service's bots, and sandboxes (``Game.kind``).

- ``services``: creating a practice game, and a sandbox from another game's
  position (re-exported by ``games.services``, which loads this module);
- ``selectors``: a player's own practice games and sandboxes, and those the
  beat's jobs look after;
- ``views``: ``POST /games/{id}/sandbox/``;
- ``pages``: the practice page (``/accounts/games/practice/``).

The bots' turns are played by ``games.services.bot_turns``, one move per task.
"""
