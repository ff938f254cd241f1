"""The board as plain data for templates (the game page and the emails).

``board_context`` is built only from ``engine.observe(state, seat)`` (so hidden
information never reaches it: deck order, another seat's blind reservation) and
from the public facts of the game row (names, status, deadline, version, the
move log with each seat's private card shown only to that seat). It holds no
model objects, so a template cannot reach past it; the seed is never in it.

Its shape is the ``Board`` TypedDict below (and the types it is made of): what
the templates of the page and of every email read, checked by the type checker
where it is built.
"""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from typing import Any, NotRequired, TypedDict
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import engine

from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_lazy, pgettext_lazy
from engine.variants import get_variant

from accounts.names import name_for_plain_text
from core.text import listed, short_moment_words
from games.engine_states import state_of_game
from games.models import Game, Move, PlayedBy, Seat
from games.words import move_in_words

# --- the shape of a board --------------------------------------------------------------


class Chip(TypedDict):
    """A colour as drawn: its letter (always shown), its name, and the paint."""

    letter: str
    name: str
    bg: str
    fg: str


class CountedChip(Chip):
    count: int


class Card(TypedDict):
    """A card as the viewer may see it. Another seat's blind reservation is
    ``hidden``: only its slot and level are known, and no other key is set."""

    slot: str
    level: int
    hidden: bool
    id: NotRequired[str]
    color: NotRequired[Chip]
    points: NotRequired[int]
    cost: NotRequired[list[CountedChip]]
    name: NotRequired[str]  # Marvel characters; "" in base
    avengers: NotRequired[int | None]
    time_stone: NotRequired[bool]
    blind: NotRequired[bool]  # reserved from a deck: its owner sees it


class Stack(Chip):
    """One colour of a player's area: cards of that bonus (``None`` for the
    joker and the Time Stone, which are never a card's bonus) and tokens."""

    bonus: int | None
    tokens: int


class MarketRow(TypedDict):
    level: int
    deck_count: int
    cards: list[Card | None]  # None: an empty slot


class Tile(TypedDict):
    """A noble (base) or a location (Marvel)."""

    id: str
    name: str
    points: int
    requires: list[CountedChip]


class Gauntlet(TypedDict):
    points: int
    points_needed: int
    missing_colors: list[Chip]
    time_stone: bool
    meets: bool


class PlayerArea(TypedDict):
    seat: int
    name: str
    is_you: bool
    to_move: bool
    resigned: bool
    timed_out: bool
    bot: bool  # a moderator handed the seat to the built-in bot
    points: int
    tokens: list[CountedChip]
    token_count: int
    bonuses: list[CountedChip]
    stacks: list[Stack]  # every colour, bonuses beside tokens, in the legend's order
    card_count: int
    reserved: list[Card]
    tiles: list[str]  # ids
    place: int | None  # once finished
    # Marvel only (None in base):
    avengers_icons: int | None
    avengers_assemble: bool | None
    time_stone: bool | None
    gauntlet: Gauntlet | None


class MarvelFacts(TypedDict):
    avengers_assemble_seat: int | None
    avengers_assemble_name: str
    time_stone_names: list[str]
    target_points: int
    gauntlet_holders: list[str]  # names of the players who meet the Gauntlet now


class ResultFacts(TypedDict):
    reason: str
    reason_text: str
    winners: list[str]  # names
    winners_text: str  # the names as a list in the active language: "alice and bob"


class LastMove(TypedDict):
    ply: int  # from 0, as the API counts
    number: int  # from 1, as people count: move n is ply n - 1
    seat: int
    name: str
    text: str  # the notation (a page's title, the API's)
    words: str  # the move in the words of the language active (games.words)
    automatic: bool
    by_bot: bool  # the built-in bot chose it
    private_card: str  # "" unless the move is the viewer's own blind reserve


class WaitingSeat(TypedDict):
    name: str
    joined: bool
    invited: bool


class Board(TypedDict):
    game_id: str
    variant: str  # "base" or "marvel"
    variant_name: str
    status: str
    status_label: str
    version: int
    deadline_at: datetime | None
    deadline_text: str  # in the viewer's time zone: "2026-12-01 16:00 CET", or ""
    started: bool
    over: bool
    final_round: bool
    round: int  # the round being played, from 1
    # Moves are counted the one way everywhere people read them: move n is the
    # n-th move played, the API's ply n - 1. ``ply`` is the number of moves
    # played so far, which is also the API's (0-based) ply of the next move.
    ply: int
    moves_played: int  # == ply
    move_number: int  # the move to play next, from 1 (ply + 1); "move 2 to play" after one move
    viewer_seat: int | None
    viewer_name: str
    to_move: int | None
    to_move_name: str
    your_turn: bool
    colors: list[Chip]  # the legend; the joker (and the Time Stone) last
    bank: list[CountedChip]
    market: list[MarketRow]  # levels 3, 2, 1
    tile_word: str  # "noble" or "location"
    tiles_title: str
    tiles: list[Tile]
    players: list[PlayerArea]
    marvel: MarvelFacts | None
    result: ResultFacts | None
    last_moves: list[LastMove]  # oldest first
    seats_waiting: list[WaitingSeat]  # before the start, every seat


# What each letter means, and how it is painted: a letter (and a word for a
# screen reader) always goes with the colour, never the colour alone.
# The words are the glossaries' (docs/glossary-it.md, docs/glossary-lv.md), in the
# language active when the board is built.
_COLORS: dict[str, dict[str, tuple[str | Promise, str, str]]] = {
    "base": {
        "W": (pgettext_lazy("colour", "white"), "#f4f4f4", "#111111"),
        "U": (pgettext_lazy("colour", "blue"), "#1f5fbf", "#ffffff"),
        "G": (pgettext_lazy("colour", "green"), "#1e7b34", "#ffffff"),
        "R": (pgettext_lazy("colour", "red"), "#b8322a", "#ffffff"),
        "K": (pgettext_lazy("colour", "black"), "#222222", "#ffffff"),
        "J": (pgettext_lazy("colour", "gold"), "#d4a017", "#111111"),
    },
    "marvel": {
        "Y": (pgettext_lazy("colour", "yellow"), "#f1c40f", "#111111"),
        "U": (pgettext_lazy("colour", "blue"), "#1f5fbf", "#ffffff"),
        "O": (pgettext_lazy("colour", "orange"), "#e67e22", "#111111"),
        "R": (pgettext_lazy("colour", "red"), "#b8322a", "#ffffff"),
        "P": (pgettext_lazy("colour", "purple"), "#7d3c98", "#ffffff"),
        "J": (pgettext_lazy("colour", "grey"), "#9a9a9a", "#111111"),
        "T": (pgettext_lazy("colour", "green Time Stone"), "#1e7b34", "#ffffff"),
    },
}

# The bots (engine.bots.BOTS) as the pages name them: what a player calls each, and how it plays.
# Each: the bot as a sentence names it, several of it, and how it plays.
_BOT_WORDS: dict[str, tuple[str | Promise, str | Promise, str | Promise]] = {
    "ismcts": (gettext_lazy("search bot"), gettext_lazy("search bots"), gettext_lazy("thinks ahead")),
    "greedy": (gettext_lazy("greedy bot"), gettext_lazy("greedy bots"), gettext_lazy("looks one move ahead")),
    "random": (gettext_lazy("random bot"), gettext_lazy("random bots"), gettext_lazy("any legal move")),
}
# The bot as a list of opponents names it, with its article: "the greedy bot".
_BOT_THE: dict[str, str | Promise] = {
    "ismcts": gettext_lazy("the search bot"),
    "greedy": gettext_lazy("the greedy bot"),
    "random": gettext_lazy("the random bot"),
}


def _bot_words(name: str) -> tuple[str, str, str]:
    words = _BOT_WORDS.get(name)
    if words is None:
        return gettext("%(name)s bot") % {"name": name}, gettext("%(name)s bots") % {"name": name}, ""
    return str(words[0]), str(words[1]), str(words[2])


def bot_title(name: str) -> str:
    """``"search bot"``: the bot as a sentence names it (in the active language)."""
    return _bot_words(name)[0]


def bot_the(name: str) -> str:
    """``"the search bot"``: the bot with its article, as a list of opponents names it."""
    words = _BOT_THE.get(name)
    return str(words) if words is not None else gettext("the %(name)s bot") % {"name": name}


def bot_title_plural(name: str) -> str:
    """``"search bots"``: several of the bot, as a sentence names them."""
    return _bot_words(name)[1]


def bot_choice_label(name: str) -> str:
    """``"Search bot — thinks ahead (ismcts)"``: the bot in a list to choose from."""
    title, _, how = _bot_words(name)
    title = f"{title[0].upper()}{title[1:]}"
    if how:
        return gettext("%(bot)s — %(how)s (%(name)s)") % {"bot": title, "how": how, "name": name}
    return f"{title} ({name})"


_REASONS: dict[str, str | Promise] = {
    "points": gettext_lazy("a player reached the points target and the round was finished"),
    "gauntlet": gettext_lazy("a player completed the Infinity Gauntlet and the round was finished"),
    "all-passed": gettext_lazy("every player passed in a row"),
    "round-limit": gettext_lazy("the round limit was reached"),
    "resignation": gettext_lazy("every other player resigned"),
    "timeout": gettext_lazy("every other player resigned or ran out of time"),
    "account-disabled": gettext_lazy("every other player left the game"),
    "adjudicated": gettext_lazy("a moderator decided the places"),
}

# A game's status as the board says it (Game.Status's values).
_STATUS_LABELS: dict[str, str | Promise] = {
    "open": gettext_lazy("Open (waiting for players)"),
    "active": gettext_lazy("Active"),
    "finished": gettext_lazy("Finished"),
    "aborted": gettext_lazy("Aborted"),
}


def seat_words(index: int) -> str:
    """``"Seat 2"``: a seat nobody's name stands for (people count seats as the API does here)."""
    return gettext("Seat %(number)s") % {"number": index}


def _color(variant: str, letter: str) -> Chip:
    name, bg, fg = _COLORS[variant].get(letter, (letter, "#dddddd", "#111111"))
    return {"letter": letter, "name": str(name), "bg": bg, "fg": fg}


def color_chip(variant: str, letter: str) -> Chip:
    """A colour as the board draws it (letter, word and paint), for the other views of the table."""
    return _color(variant if variant in _COLORS else "base", letter)


def _counted(variant: str, counts: dict[str, int], *, keep_zero: bool = False) -> list[CountedChip]:
    order = list(_COLORS[variant])
    letters = sorted(counts, key=lambda letter: order.index(letter) if letter in order else len(order))
    return [
        CountedChip(**_color(variant, letter), count=counts[letter])
        for letter in letters
        if keep_zero or counts[letter]
    ]


def _stacks(variant: str, bonuses: dict[str, int], tokens: dict[str, int]) -> list[Stack]:
    order = list(_COLORS[variant])
    letters = sorted(set(bonuses) | set(tokens), key=lambda letter: order.index(letter) if letter in order else 99)
    return [
        Stack(**_color(variant, letter), bonus=bonuses.get(letter), tokens=tokens.get(letter, 0)) for letter in letters
    ]


def _card(variant: str, view: Any) -> Card:
    if view.get("hidden"):
        return {"slot": view["slot"], "level": view["level"], "hidden": True}
    return {
        "id": view["id"],
        "slot": view.get("slot", ""),
        "level": view["level"],
        "color": _color(variant, view["color"]),
        "points": view["points"],
        "cost": _counted(variant, view["cost"]),
        "name": view.get("name", ""),
        "avengers": view.get("avengers"),
        "time_stone": bool(view.get("time_stone", False)),
        "hidden": False,
        "blind": bool(view.get("blind", False)),
    }


def _display_name(seat: Seat) -> str:
    # One line of plain text: the board is also drawn in the emails' text part.
    if seat.bot_name:
        # A practice bot is named as every page names it ("Search bot", "Bot di
        # ricerca"), numbered when a game seats it twice (its account bot-<name>-<n>).
        title = bot_title(seat.bot_name)
        number = seat.user.get_username().rsplit("-", 1)[-1]
        title = f"{title[:1].upper()}{title[1:]}"
        return f"{title} {number}" if number.isdigit() and number != "1" else title
    player = getattr(seat.user, "player", None)
    name = getattr(player, "display_name", "") if player is not None else ""
    return name_for_plain_text(str(name)) or seat.user.get_username()


def _zone(seat: Seat | None) -> tzinfo:
    """The viewer's time zone (Player.time_zone); UTC for a spectator or a name not known here."""
    name = getattr(getattr(seat.user, "player", None), "time_zone", "") if seat is not None else ""
    try:
        return ZoneInfo(name) if name else UTC
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def _deadline_text(game: Game, zone: tzinfo) -> str:
    """The deadline as the active language writes a day and an hour ("Tue 01 Dec 2026,
    16:00 CET"; "mar 01 dic 2026, 16:00 CET"), with the zone's abbreviation."""
    if game.deadline_at is None:
        return ""
    local = game.deadline_at.astimezone(zone)
    return f"{short_moment_words(local)} {local.tzname() or 'UTC'}"


def _seats_with_players(game: Game) -> list[Seat]:
    """The game's seats with their users and players: those loaded with the game
    when they were (the game page's), else one query."""
    if "seats" in getattr(game, "_prefetched_objects_cache", {}):
        return list(game.seats.all())
    return list(Seat.objects.filter(game=game).select_related("user__player"))


def board_context(*, game: Game, seat_index: int | None, last_moves: int = 5) -> Board:
    """The board as seat ``seat_index`` sees it (``None``: a spectator); see the module docstring."""
    variant = game.variant if game.variant in _COLORS else "base"
    seats = _seats_with_players(game)
    by_index = {seat.index: seat for seat in seats if seat.index is not None}
    names = {index: _display_name(seat) for index, seat in by_index.items()}
    board: Board = {
        "game_id": game.pk,
        "variant": game.variant,
        "variant_name": game.get_variant_display(),
        "status": game.status,
        "status_label": str(_STATUS_LABELS.get(game.status, game.get_status_display())),
        "version": game.version,
        "deadline_at": game.deadline_at,
        "deadline_text": _deadline_text(game, _zone(by_index.get(seat_index) if seat_index is not None else None)),
        "started": game.state is not None,
        "over": game.is_over,
        "final_round": False,
        "round": 0,
        "ply": 0,
        "moves_played": 0,
        "move_number": 1,
        "viewer_seat": seat_index,
        "viewer_name": names.get(seat_index, "") if seat_index is not None else "",
        "to_move": None,
        "to_move_name": "",
        "your_turn": False,
        "colors": [_color(variant, letter) for letter in _COLORS[variant]],
        "bank": [],
        "market": [],
        "tile_word": "location" if variant == "marvel" else "noble",
        "tiles_title": gettext("Locations") if variant == "marvel" else gettext("Nobles"),
        "tiles": [],
        "players": [],
        "marvel": None,
        "result": None,
        "last_moves": [],
        "seats_waiting": [
            {"name": _display_name(seat), "joined": seat.has_joined, "invited": seat.invited}
            for seat in sorted(seats, key=lambda s: (s.join_position if s.join_position is not None else 99, s.pk))
        ],
    }
    if game.state is None:
        return board

    view = engine.observe(state_of_game(game), seat_index)
    to_move = view["to_move"] if game.status == Game.Status.ACTIVE else None
    result = game.result if game.status == Game.Status.FINISHED and game.result else None
    places: list[int] = list(result["places"]) if result else []
    board.update(
        {
            "final_round": view["final_round"],
            "round": view["round"],
            "ply": view["ply"],
            "moves_played": view["ply"],
            "move_number": view["ply"] + 1,
            "to_move": to_move,
            "to_move_name": names.get(to_move, "") if to_move is not None else "",
            "your_turn": to_move is not None and to_move == seat_index,
            "bank": _counted(variant, view["supply"], keep_zero=True),
            "market": [
                {
                    "level": level,
                    "deck_count": view["decks"][str(level)],
                    "cards": [None if card is None else _card(variant, card) for card in view["market"][str(level)]],
                }
                for level in (3, 2, 1)
            ],
            "tiles": [
                {
                    "id": tile["id"],
                    "name": tile.get("name", ""),
                    "points": tile["points"],
                    "requires": _counted(variant, tile["requires"]),
                }
                for tile in view.get("locations", view.get("nobles", []))
            ],
        }
    )
    players: list[PlayerArea] = []
    for entry in view["seats"]:
        index = entry["seat"]
        seat = by_index.get(index)
        gauntlet = entry.get("gauntlet")
        players.append(
            {
                "seat": index,
                "name": names.get(index, seat_words(index)),
                "is_you": index == seat_index,
                "to_move": index == to_move,
                "resigned": bool(seat and seat.resigned),
                "timed_out": bool(seat and seat.timed_out),
                # A moderator handed the seat to the built-in bot, which plays its turns.
                "bot": bool(seat and seat.bot and not seat.resigned),
                "points": entry["points"],
                "tokens": _counted(variant, entry["tokens"]),
                "token_count": entry["token_count"],
                "bonuses": _counted(variant, entry["bonuses"], keep_zero=True),
                "stacks": _stacks(variant, entry["bonuses"], entry["tokens"]),
                "card_count": entry["card_count"],
                "reserved": [_card(variant, card) for card in entry["reserved"]],
                "tiles": list(entry.get("locations", entry.get("nobles", []))),
                "place": places[index] if index < len(places) else None,
                "avengers_icons": entry.get("avengers_icons"),
                "avengers_assemble": entry.get("avengers_assemble"),
                "time_stone": entry.get("time_stone"),
                "gauntlet": None
                if gauntlet is None
                else {
                    "points": gauntlet["points"],
                    "points_needed": gauntlet["points_needed"],
                    "missing_colors": [_color(variant, letter) for letter in gauntlet["missing_colors"]],
                    "time_stone": gauntlet["time_stone"],
                    "meets": gauntlet["meets"],
                },
            }
        )
    board["players"] = players
    if "avengers_assemble" in view:
        holder = view.get("avengers_assemble")
        board["marvel"] = {
            "avengers_assemble_seat": holder,
            "avengers_assemble_name": names.get(holder, "") if holder is not None else "",
            "time_stone_names": [p["name"] for p in players if p["time_stone"]],
            "target_points": get_variant(variant).target_points,  # M-END-1
            "gauntlet_holders": [p["name"] for p in players if p["gauntlet"] and p["gauntlet"]["meets"]],
        }
    if result:
        reason = str(result.get("reason", ""))
        winners = [names.get(s, seat_words(s)) for s in result.get("winners", [])]
        board["result"] = {
            "reason": reason,
            "reason_text": str(_REASONS.get(reason, reason)),
            "winners": winners,
            "winners_text": listed(winners),
        }
    if last_moves > 0:
        moves = list(Move.objects.filter(game=game).order_by("-ply")[:last_moves])
        board["last_moves"] = [
            {
                "ply": move.ply,
                "number": move.ply + 1,
                "seat": move.seat,
                "name": names.get(move.seat, seat_words(move.seat)),
                "text": move.text,
                "words": move_in_words(move.text, game.variant),
                "automatic": move.automatic,
                "by_bot": move.played_by == PlayedBy.BOT,
                "private_card": move.private_card if seat_index is not None and move.seat == seat_index else "",
            }
            for move in reversed(moves)
        ]
    return board
