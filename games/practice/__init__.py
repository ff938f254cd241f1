"""Practice games against the service's bots, and sandboxes (``Game.kind``).

- ``services``: creating a practice game against bots, the bots' seats and the
  limit on practice games in play (re-exported by ``games.services``);
- ``sandbox``: a sandbox from another game's position, its hidden cards dealt
  again (re-exported by ``games.services``);
- ``selectors``: a player's own practice games and sandboxes, and those the
  beat's jobs look after;
- ``views``: ``POST /games/{id}/sandbox/``;
- ``pages``: the practice page (``/accounts/games/practice/``).

The bots' turns are played by ``games.services.bot_turns``, one move per task.
"""
