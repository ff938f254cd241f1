"""The one contract between games and the apps built on it (docs/architecture.md,
"Extensions").

games imports none of the apps above it. Each of them that adds to a game, or
hears of one, subclasses ``GameExtension``, overrides the hooks it needs (every
hook has a default that adds nothing) and registers one instance in its
``AppConfig.ready()`` with ``extensions_register``. games reads them back with
``extensions()``, in ``INSTALLED_APPS`` order, and nowhere else: mypy checks each
override's signature against the base class, and the layer test reads each
registration as a declared edge from the app to games.

The hooks:

- ``handle_event``: the outbox consumer. An extension that overrides it claims
  each event under its ``name`` (a ``GameEventClaim`` row) and is run on each
  event of a change, at least once (games.services.outbox); practice games' and
  sandboxes' events reach it only when ``hears_practice`` is set.
- ``write_beside_events``: rows written with a change's events, in its
  transaction (the event stream); practice games and sandboxes likewise.
- ``event_recipients``: who hears of an event of a kind the extension owns
  (games.audience.event_audience, which the stream, webhooks and email share).
- ``replay_panel``: a panel on the replay page (``/games/<id>/replay/``), below
  the list of moves, told where the replay stands (``ReplayPosition``).
- ``page_panel``, ``export_extra``, ``visibility_q``, ``counts_in_competition``,
  ``player_profile_extra``, ``game_list_label`` (``game_list_labels`` for many
  games at once), ``player_export_extra``: what
  the extension adds to a game's page, its export, who may see it, whether it
  counts in a competition, a public profile, a line of a game list and a
  player's own data export.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypedDict

if TYPE_CHECKING:
    from collections.abc import Sequence

    from django.contrib.auth.models import AnonymousUser, User
    from django.db.models import Q
    from django.http import HttpRequest

    from games.models import Game, GameEvent, Seat


class Panel(TypedDict):
    """What an extension shows beside the board: a template and its context."""

    template: str
    context: dict[str, Any]


class PageViewer(Protocol):
    """What a panel knows of the game page's reader (games.pages.session.Viewer):
    the game, and the seat the page is drawn for (None: a spectator)."""

    @property
    def game(self) -> Game: ...

    @property
    def seat(self) -> Seat | None: ...


class ReplayPosition(TypedDict):
    """Where the replay page stands: after ``ply`` moves of the ``total`` played,
    each seat's name as the page writes it, and ``try_position(ply, seat)``: the
    page's "Try this position" form for the position after ``ply`` moves with
    ``seat`` to move (what ``games/_try_position.html`` reads), or None when the
    reader may not make a sandbox of it."""

    ply: int
    total: int
    names: dict[int, str]
    try_position: Callable[[int, int], dict[str, Any] | None]


class MoveMark(TypedDict):
    """What an extension writes beside one move in the replay's list of moves: a
    short ``label``, shown strong (a review's "Mistake, -12%"), the words after it
    (``detail``: what the bot would have played, or ""), and where on the page the
    label links to (``href``, or "")."""

    label: str
    detail: str
    href: str


class GameExtension:
    """What one app above games adds to games. Every hook does nothing by default."""

    # The extension's name: the consumer name of its claims on outbox events
    # (GameEventClaim.consumer), so it never changes once events were claimed.
    name: ClassVar[str]
    # Whether the events (handle_event) and changes (write_beside_events) of
    # practice games and sandboxes reach it. They are nobody's news but their
    # player's: no email, webhook, reminder, rating or stream hears of them.
    hears_practice: ClassVar[bool] = False

    def handle_event(self, event: GameEvent) -> None:
        """Act on one outbox event, after its change committed. May run more than
        once for the same event (at-least-once delivery): it must tolerate a repeat.
        An extension that overrides it is an outbox consumer."""
        return None

    def write_beside_events(self, game: Game, events: list[GameEvent]) -> None:
        """Write rows of its own beside one change's stored events, inside the
        change's transaction, once the events are stored (``game`` holds the new
        state; within ``game_change`` its row is saved by then)."""
        return None

    def event_recipients(self, event: GameEvent) -> set[int] | None:
        """Who hears of ``event``, for a kind this extension owns; None for the
        others (the game's players and the people the event names hear of them)."""
        return None

    def page_panel(self, request: HttpRequest, viewer: PageViewer) -> Panel | None:
        """A panel beside the board on the game page, or None."""
        return None

    def replay_panel(self, request: HttpRequest, viewer: PageViewer, position: ReplayPosition) -> Panel | None:
        """A panel on the replay page, below the list of moves, or None."""
        return None

    def replay_move_marks(self, request: HttpRequest, viewer: PageViewer) -> dict[int, MoveMark]:
        """Marks beside moves in the replay's list of moves, by ply (0: the first move)."""
        return {}

    def export_extra(self, game: Game, user: User | AnonymousUser | None) -> dict[str, Any]:
        """Keys added to the game's export (GET .../export/), in their JSON form."""
        return {}

    def visibility_q(self, user: User) -> Q | None:
        """More private games ``user`` may see, as a filter on games.Game, or None."""
        return None

    def counts_in_competition(self, game_id: str) -> bool:
        """Whether the game counts in a competition (its sandbox then has no bots)."""
        return False

    def player_profile_extra(self, user_id: int) -> dict[str, Any]:
        """Keys added to a player's public profile."""
        return {}

    def game_list_label(self, game: Game) -> str | None:
        """A short label for the game in lists (a tournament and its round), or None."""
        return None

    def game_list_labels(self, games: Sequence[Game]) -> dict[str, str]:
        """The labels of many games at once, by game id (a list's games, in a fixed
        number of queries): override it beside ``game_list_label`` when that reads
        the database. By default, ``game_list_label`` of each game."""
        return {game.pk: label for game in games if (label := self.game_list_label(game))}

    def player_export_extra(self, user_id: int) -> dict[str, Any]:
        """Keys added to a player's export of their own data."""
        return {}


_EXTENSIONS: list[GameExtension] = []


def extensions_register(extension: GameExtension) -> None:
    """Register an app's extension: called once from its ``AppConfig.ready()``, so
    that the registry follows INSTALLED_APPS. Registering a name twice replaces
    the first (a ready() run again); two extensions may not share a name."""
    for index, registered in enumerate(_EXTENSIONS):
        if registered.name == extension.name:
            if type(registered) is not type(extension):
                raise ValueError(f"two game extensions are named {extension.name!r}")
            _EXTENSIONS[index] = extension
            return
    _EXTENSIONS.append(extension)


def extensions() -> tuple[GameExtension, ...]:
    """The registered extensions, in INSTALLED_APPS order."""
    return tuple(_EXTENSIONS)


def extensions_replace(replacement: tuple[GameExtension, ...]) -> tuple[GameExtension, ...]:
    """Put ``replacement`` in the place of the registered extensions and return the
    ones it replaced (the tests' ``game_extensions`` fixture puts them back)."""
    previous = tuple(_EXTENSIONS)
    _EXTENSIONS[:] = replacement
    return previous


def handles_events(extension: GameExtension) -> bool:
    """Whether the extension is an outbox consumer (it overrides ``handle_event``)."""
    return type(extension).handle_event is not GameExtension.handle_event


def event_consumers() -> tuple[GameExtension, ...]:
    """The outbox's consumers, in registry order."""
    return tuple(extension for extension in _EXTENSIONS if handles_events(extension))


def hears(extension: GameExtension, game: Game) -> bool:
    """Whether the game's events and changes reach the extension: a practice game's
    or a sandbox's only when it says it hears them (decided here, once)."""
    return extension.hears_practice or not game.is_practice
