"""``splendor-bot``'s settings: the command line and the ``--config`` file.

Every flag is also a key of the TOML file (``KEYS``, listed in the client's
README); a flag given on the command line wins over the file's key. A mistake in
either stops the runner before it connects, with argparse's exit status 2 and a
message that names the flag, or the key and the file: an unknown key, a value of
the wrong type, and a setting that would do nothing (``--games`` without
``--create`` or ``--accept-invitations``, a search budget for a bot that takes
none, an ``accept`` filter without ``accept_invitations``) when both settings
come from the same place. When a flag overrides the key that gave a file's
setting its meaning (``--bot greedy`` over ``bot = "ismcts"`` with ``playouts``,
``--no-accept-invitations`` over ``[accept]``), that setting is ignored instead,
and the runner says so in its log (``Config.ignored``).
"""

from __future__ import annotations

import argparse
import difflib
import math
import tomllib
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import VARIANTS
from engine.bots import BOTS

#: The service's limit on a line of table talk (docs/chat.md).
GREETING_MAX_CHARS = 500
SEATS = range(2, 5)


# --- what an invitation must be to be accepted ----------------------------------


@dataclass(frozen=True)
class AcceptFilter:
    """The ``[accept]`` filters: an invitation is accepted when it passes every
    filter that is set (an empty tuple or None lets anything through)."""

    variants: tuple[str, ...] = ()
    seats: tuple[int, ...] = ()
    rated: bool | None = None
    players: tuple[str, ...] = ()  # the key ``from``: who created the game
    min_move_hours: float | None = None
    max_move_hours: float | None = None

    def refusal(self, game: Mapping[str, Any]) -> str | None:
        """Why the game (``GET /api/v1/games/{id}/``) fails a filter, or None."""
        if self.variants and game.get("variant") not in self.variants:
            return f"variant {game.get('variant')} is not in accept.variants ({', '.join(self.variants)})"
        if self.seats and game.get("seat_count") not in self.seats:
            return f"{game.get('seat_count')} seats is not in accept.seats ({', '.join(map(str, self.seats))})"
        if self.rated is not None and bool(game.get("rated")) != self.rated:
            return "it is rated (accept.rated is false)" if game.get("rated") else "it is not rated (accept.rated is true)"
        if self.players and game.get("created_by") not in self.players:
            return f"{game.get('created_by')} is not in accept.from ({', '.join(self.players)})"
        if self.min_move_hours is not None or self.max_move_hours is not None:
            hours = move_hours(game)
            if self.min_move_hours is not None and (hours is None or hours < self.min_move_hours):
                return f"{_hours(hours)} a move is under accept.min_move_hours ({self.min_move_hours:g})"
            if self.max_move_hours is not None and (hours is None or hours > self.max_move_hours):
                return f"{_hours(hours)} a move is over accept.max_move_hours ({self.max_move_hours:g})"
        return None

    def __bool__(self) -> bool:
        return self != AcceptFilter()


def move_hours(game: Mapping[str, Any]) -> float | None:
    """The game's time per move in hours (``time_control.move_seconds``), None
    when it has none."""
    control = game.get("time_control")
    seconds = control.get("move_seconds") if isinstance(control, Mapping) else None
    return seconds / 3600 if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) else None


def _hours(hours: float | None) -> str:
    return "no time limit" if hours is None else f"{hours:g} h"


# --- the keys -------------------------------------------------------------------

Check = Callable[[Any], str | None]  # what is wrong with a value, or None


def _finite(v: float) -> str | None:
    return None if math.isfinite(v) else f"must be a finite number, not {v!r}"


def _at_least(low: float) -> Check:
    return lambda v: _finite(v) or (None if v >= low else f"must be at least {low:g}, not {v!r}")


def _positive(v: float) -> str | None:
    return _finite(v) or (None if v > 0 else f"must be more than 0, not {v!r}")


def _variant(v: str) -> str | None:
    return None if v in VARIANTS else f"{v!r} is not a variant: use {' or '.join(VARIANTS)}"


def _seats(v: int) -> str | None:
    return None if v in SEATS else f"a game has 2 to 4 seats, not {v!r}"


def _server(v: str) -> str | None:
    return None if v.startswith(("http://", "https://")) else f"the address starts with http:// or https:// (not {v!r})"


def chat_clean(text: str) -> str:
    """A line of table talk as the service stores it (its chat.services.text_clean):
    line ends made ``\\n``, tabs made spaces, every other control character (and
    the invisible format characters) removed, each line's end and the whole
    text's ends trimmed."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    kept = "".join(
        ch for ch in text if ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co")
    ).replace("\t", " ")
    return "\n".join(line.rstrip() for line in kept.split("\n")).strip()


def _greeting(v: str) -> str | None:
    said = chat_clean(v)
    if not said:
        return "is empty once cleaned as the table talk stores it (ends trimmed, control characters removed)"
    if len(said) > GREETING_MAX_CHARS:
        return f"a line of table talk has at most {GREETING_MAX_CHARS} characters"
    return None


def _nothing(v: Any) -> str | None:
    return None


@dataclass(frozen=True)
class Key:
    """One setting: ``name`` in the file (dotted inside a table), ``flag`` on the
    command line, ``kind`` its type: text, int, number, bool, texts or ints (the
    last two are lists in the file, a repeated flag on the command line)."""

    name: str
    flag: str
    kind: str
    help: str
    check: Check = _nothing  # each value, or each item of a list
    metavar: str | None = None


KEYS: tuple[Key, ...] = (
    Key("server", "--server", "text", "the service's address, such as https://splendor.example", _server, "URL"),
    Key("token", "--token", "text", "the account's API token (scopes read and play); default: $SPLENDOR_TOKEN"),
    Key("bot", "--bot", "text", f"{'|'.join(sorted(BOTS))} (the engine's bots) or MODULE:CLASS (default: greedy)"),
    Key("playouts", "--playouts", "int", "the ismcts bot's budget: playouts a move (default 400 without --seconds; with it, no limit)", _at_least(1), "N"),
    Key("seconds", "--seconds", "number", "the ismcts bot's budget: seconds a move", _positive, "S"),
    Key("seed", "--seed", "int", "seed of the engine bots' choices", metavar="N"),
    Key("accept_invitations", "--accept-invitations", "bool", "join the games this account is invited to"),
    Key("accept.variants", "--accept-variant", "texts", "accept only this variant (repeatable)", _variant, "VARIANT"),
    Key("accept.seats", "--accept-seats", "ints", "accept only games of this many seats (repeatable)", _seats, "N"),
    Key("accept.rated", "--accept-rated", "bool", "accept only rated games (--no-accept-rated: only unrated ones)"),
    Key("accept.from", "--accept-from", "texts", "accept only invitations from this player (repeatable)", metavar="USERNAME"),
    Key("accept.min_move_hours", "--accept-min-move-hours", "number", "accept only games with at least this time a move",
        _at_least(0), "H"),
    Key("accept.max_move_hours", "--accept-max-move-hours", "number", "accept only games with at most this time a move",
        _at_least(0), "H"),
    Key("max_games", "--max-games", "int", "never be in more games than this at once: accept or create no more",
        _at_least(1), "N"),
    Key("create.variant", "--create", "text", "create games, such as base:2 (VARIANT:SEATS)", _variant, "VARIANT:SEATS"),
    Key("create.seats", "--create", "int", "", _seats),
    Key("create.invite", "--invite", "texts", "invite a player to the games created (repeatable)", metavar="USERNAME"),
    Key("games", "--games", "int",
        "with --create, how many games to create (default 1); without, how many invitations to accept", _at_least(1), "N"),
    Key("exit_when_done", "--exit-when-done", "bool", "exit once the games created or joined here are all over "
        "(without --create or --accept-invitations: the games found on connecting)"),
    Key("greeting", "--greeting", "text", "said once in each real game's table talk (default: nothing)", _greeting, "TEXT"),
    Key("verbose", "-v", "int", "more logging (-vv: every request)", _at_least(0)),
)
BY_NAME = {key.name: key for key in KEYS}
TABLES = ("accept", "create")


@dataclass(frozen=True)
class Config:
    """The runner's settings, merged from the command line and the file."""

    server: str
    token: str | None = None
    bot: str = "greedy"
    playouts: int | None = None
    seconds: float | None = None
    seed: int | None = None
    accept_invitations: bool = False
    accept: AcceptFilter = AcceptFilter()
    max_games: int | None = None
    create: tuple[str, int] | None = None
    invite: tuple[str, ...] = ()
    games: int | None = None
    exit_when_done: bool = False
    greeting: str = ""
    verbose: int = 0
    #: Where each setting that was given came from: its flag, or its key and file.
    given: dict[str, str] = field(default_factory=dict)
    #: The file's settings that a flag made meaningless, and why: main() logs them.
    ignored: tuple[str, ...] = ()


# --- reading the file -----------------------------------------------------------


class ConfigError(ValueError):
    """A mistake in the settings; main() says it as argparse does (exit status 2)."""


def _type_error(key: Key, value: Any) -> str | None:
    """What is wrong with the type of a file's value, or None."""
    def plain(kind: str, v: Any) -> bool:
        if kind == "text":
            return isinstance(v, str)
        if kind == "int":
            return isinstance(v, int) and not isinstance(v, bool)
        if kind == "number":
            return isinstance(v, (int, float)) and not isinstance(v, bool)
        return isinstance(v, bool)

    kinds = {"text": "a text", "int": "a whole number", "number": "a number", "bool": "true or false",
             "texts": 'a list of texts, such as ["a", "b"]', "ints": "a list of whole numbers, such as [2, 3]"}
    if key.kind in ("texts", "ints"):
        item = "text" if key.kind == "texts" else "int"
        ok = isinstance(value, list) and all(plain(item, v) for v in value)
    else:
        ok = plain(key.kind, value)
    return None if ok else f"must be {kinds[key.kind]}, not {value!r}"


def _checked(key: Key, value: Any) -> str | None:
    for item in value if isinstance(value, list) else [value]:
        problem = key.check(item)
        if problem:
            return problem
    return None


def _flatten(path: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """The file's keys, dotted: ``[accept] variants = [...]`` is ``accept.variants``."""
    flat: dict[str, Any] = {}
    for name, value in data.items():
        if name == "create" and isinstance(value, str):
            variant, seats = _create_spec(value)  # create = "base:2", as --create says it
            flat["create.variant"], flat["create.seats"] = variant, seats
        elif name in TABLES:
            if not isinstance(value, dict):
                raise ConfigError(f"{path}: {name} is a table of keys ([{name}]), not {value!r}")
            for inner, item in value.items():
                flat[f"{name}.{inner}"] = item
        else:
            flat[name] = value
    return flat


def read_config(path: str) -> dict[str, Any]:
    """The file's settings by key name, each checked: unknown keys and wrong
    types raise ``ConfigError`` naming the key and the file."""
    try:
        with open(path, "rb") as file:
            data = tomllib.load(file)
    except OSError as exc:
        raise ConfigError(f"cannot read the config file {path}: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from exc
    try:
        flat = _flatten(path, data)
    except argparse.ArgumentTypeError as exc:
        raise ConfigError(f"{path}: create: {exc}") from exc
    settings: dict[str, Any] = {}
    for name, value in flat.items():
        key = BY_NAME.get(name)
        if key is None:
            close = difflib.get_close_matches(name, BY_NAME, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else f"; the keys are {', '.join(BY_NAME)}"
            raise ConfigError(f"{path}: unknown key {name!r}{hint}")
        problem = _type_error(key, value)
        if problem:
            raise ConfigError(f"{path}: {name} {problem}")
        problem = _checked(key, value)
        if problem:
            raise ConfigError(f"{path}: {name}: {problem}")
        settings[name] = value
    return settings


# --- the command line -----------------------------------------------------------


def _create_spec(text: str) -> tuple[str, int]:
    variant, sep, seats = text.partition(":")
    if not sep or not seats.isdigit() or not variant:
        raise argparse.ArgumentTypeError(f"write VARIANT:SEATS, such as base:2 or marvel:3 (not {text!r})")
    problem = _variant(variant) or _seats(int(seats))
    if problem:
        raise argparse.ArgumentTypeError(problem)
    return variant, int(seats)


def _cli_type(key: Key) -> Callable[[str], Any]:
    convert: Callable[[str], Any] = str
    if key.kind in ("int", "ints"):
        convert = int
    elif key.kind == "number":
        convert = float

    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            wanted = "a whole number" if convert is int else "a number"
            raise argparse.ArgumentTypeError(f"{wanted}, not {text!r}") from None
        problem = key.check(value)
        if problem:
            raise argparse.ArgumentTypeError(problem)
        return value

    return parse


def parser() -> argparse.ArgumentParser:
    """The command line; every option's default is left out (``SUPPRESS``) so
    that what was given can be told from what was not, and win over the file."""
    p = argparse.ArgumentParser(
        prog="splendor-bot",
        description="Play every game of an account with a bot, as the server's events arrive.",
        epilog="Every option is also a key of the --config file (the client's README lists them); an option given "
        "here wins over the file. The token is best given as SPLENDOR_TOKEN: a command line shows in process lists.",
        argument_default=argparse.SUPPRESS,
    )
    p.add_argument("--config", metavar="FILE", help="read the settings from this TOML file")
    for key in KEYS:
        if key.name == "create.seats":
            continue  # one flag, --create VARIANT:SEATS, for both keys
        dest = key.name.replace(".", "_")
        if key.name == "create.variant":
            p.add_argument(key.flag, dest="create", type=_create_spec, metavar=key.metavar, help=key.help)
        elif key.name == "verbose":
            p.add_argument("-v", "--verbose", action="count", help=key.help)
        elif key.kind == "bool":
            p.add_argument(key.flag, dest=dest, action=argparse.BooleanOptionalAction, help=key.help)
        elif key.kind in ("texts", "ints"):
            p.add_argument(key.flag, dest=dest, action="append", type=_cli_type(key), metavar=key.metavar, help=key.help)
        else:
            p.add_argument(key.flag, dest=dest, type=_cli_type(key), metavar=key.metavar, help=key.help)
    return p


def _from_command_line(namespace: argparse.Namespace) -> dict[str, Any]:
    given = dict(vars(namespace))
    given.pop("config", None)
    settings: dict[str, Any] = {}
    if "create" in given:
        settings["create.variant"], settings["create.seats"] = given.pop("create")
    for dest, value in given.items():
        name = dest if dest in BY_NAME else dest.replace("_", ".", 1)
        settings[name] = value
    return settings


# --- merging and the settings that do nothing alone ------------------------------


class _Where:
    """Names a setting as its user gave it: ``--games``, or ``games in bot.toml``."""

    def __init__(self, cli: Mapping[str, Any], path: str | None) -> None:
        self.cli = cli
        self.path = path

    def __call__(self, name: str) -> str:
        if name in self.cli:
            return "--create" if name.startswith("create.") and name != "create.invite" else BY_NAME[name].flag
        return f"{name} in {self.path}"


def load(argv: Sequence[str] | None = None) -> Config:
    """The settings from the command line and its ``--config`` file; a mistake
    ends the program as argparse does (status 2, the message on stderr)."""
    p = parser()
    namespace = p.parse_args(argv)
    try:
        return _merge(namespace)
    except ConfigError as exc:
        p.error(str(exc))


def _merge(namespace: argparse.Namespace) -> Config:
    cli = _from_command_line(namespace)
    path: str | None = getattr(namespace, "config", None)
    from_file = read_config(path) if path else {}
    merged = {**from_file, **cli}
    where = _Where(cli, path)
    ignored = _overridden(merged, cli, from_file, path)

    def get(name: str, default: Any = None) -> Any:
        return merged.get(name, default)

    if "server" not in merged:
        raise ConfigError("--server is required (or server in the config file)")
    create: tuple[str, int] | None = None
    if "create.variant" in merged or "create.seats" in merged:
        if "create.variant" not in merged or "create.seats" not in merged:
            missing = "create.seats" if "create.variant" in merged else "create.variant"
            raise ConfigError(f"{missing} is missing in {path}: [create] needs both variant and seats")
        create = (merged["create.variant"], merged["create.seats"])
    accept = AcceptFilter(
        variants=tuple(get("accept.variants", ())),
        seats=tuple(get("accept.seats", ())),
        rated=get("accept.rated"),
        players=tuple(get("accept.from", ())),
        min_move_hours=get("accept.min_move_hours"),
        max_move_hours=get("accept.max_move_hours"),
    )
    config = Config(
        server=merged["server"],
        token=get("token"),
        bot=get("bot", "greedy"),
        playouts=get("playouts"),
        seconds=get("seconds"),
        seed=get("seed"),
        accept_invitations=get("accept_invitations", False),
        accept=accept,
        max_games=get("max_games"),
        create=create,
        invite=tuple(get("create.invite", ())),
        games=get("games"),
        exit_when_done=get("exit_when_done", False),
        greeting=get("greeting", ""),
        verbose=get("verbose", 0),
        given={name: where(name) for name in merged},
        ignored=tuple(ignored),
    )
    check(config, where)
    return config


def _overridden(merged: dict[str, Any], cli: Mapping[str, Any], from_file: Mapping[str, Any], path: str | None) -> list[str]:
    """Drops from ``merged`` the file's settings that a flag made meaningless (a
    flag wins over its key, and what depended on that key goes with it); says
    which and why. A setting made meaningless by its own file, or a flag by
    another flag or the file, is left for ``check`` to refuse."""
    ignored: list[str] = []

    def drop(names: Sequence[str], because: str) -> None:
        for name in names:
            if name in from_file and name not in cli:
                del merged[name]
                ignored.append(f"{name} in {path} is ignored: {because}")

    bot = merged.get("bot", "greedy")
    if "bot" in cli and bot != "ismcts":
        drop(("playouts", "seconds"), f"--bot {bot} takes no search budget (only ismcts does)")
    if "bot" in cli and ":" in bot:
        drop(("seed",), f"--bot {bot} is made with no arguments")
    if cli.get("accept_invitations") is False:
        drop(sorted(name for name in merged if name.startswith("accept.")), "--no-accept-invitations")
        if "create.variant" not in merged:
            drop(("games", "max_games"), "--no-accept-invitations, and no game to create")
    return ignored


def check(config: Config, where: Callable[[str], str]) -> None:
    """Refuses the settings that would do nothing, or cannot work together."""
    given = config.given
    plays_new = config.create is not None or config.accept_invitations
    for name in ("games", "max_games"):
        if name in given and not plays_new:
            raise ConfigError(f"{where(name)} does nothing without --create or --accept-invitations "
                              "(create or accept_invitations in a config file)")
    if "create.invite" in given and config.create is None:
        raise ConfigError(f"{where('create.invite')} needs --create (or [create] in a config file)")
    if config.create is not None and len(config.invite) > config.create[1] - 1:
        raise ConfigError(f"{where('create.invite')}: a game of {config.create[1]} seats holds "
                          f"at most {config.create[1] - 1} invited, not {len(config.invite)}")
    if not config.accept_invitations:
        for name in given:
            if name.startswith("accept."):
                raise ConfigError(f"{where(name)} filters invitations: it needs --accept-invitations "
                                  "(accept_invitations = true in a config file)")
    low, high = config.accept.min_move_hours, config.accept.max_move_hours
    if low is not None and high is not None and low > high:
        raise ConfigError(f"{where('accept.min_move_hours')} ({low:g}) is more than "
                          f"{where('accept.max_move_hours')} ({high:g})")
    module, colon, rest = config.bot.partition(":")
    if colon and module in BOTS:
        raise ConfigError(f"{where('bot')}: {config.bot!r} reads as MODULE:CLASS; the {module} bot's budget is "
                          f"its own setting: --bot {module} --playouts N (or --seconds S)")
    for name in ("playouts", "seconds"):
        if name in given and config.bot != "ismcts":
            whose = "a MODULE:CLASS bot" if colon else f"the {config.bot} bot"
            raise ConfigError(f"{where(name)} is the search bot's budget: {whose} takes none (only --bot ismcts)")
    if "seed" in given and colon:
        raise ConfigError(f"{where('seed')} seeds the engine's bots; a MODULE:CLASS bot is made with no arguments")
