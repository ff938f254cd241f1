"""The :class:`Move` value and its canonical text (``shared`` notation.md).

A move knows nothing of the board: it is its canonical text, split into fields.
Two moves are equal exactly when their canonical texts are equal.
"""

from __future__ import annotations

import re

from .errors import InvalidNotation

# Canonical letter order, valid for both variants: base W U G R K J, Marvel Y U O R P J T.
_LETTER_ORDER = {"W": 0, "Y": 0, "U": 1, "G": 2, "O": 2, "R": 3, "K": 4, "P": 4, "J": 5, "T": 6}


def sort_letters(letters: str) -> str:
    """Letters in canonical order (input is case-insensitive and in any order)."""
    return "".join(sorted(letters.upper(), key=lambda c: (_LETTER_ORDER.get(c, 9), c)))


class Move(str):
    """One complete turn: an action plus its ``J:`` payment, returns and tile choice.

    A move *is* its canonical text (a ``str``), so equality, hashing and sorting
    are those of the text, and ``str(move)`` is the notation. The parsed fields
    ride along as attributes.
    """

    kind: str  # "take" | "reserve" | "buy" | "pass"
    take: str  # letters taken (take)
    card: str | None  # card id (reserve / buy)
    deck: int | None  # level of a blind reservation
    pay: str  # letters of jokers spent beyond the default payment (buy)
    ret: str  # letters returned to get down to 10 tokens
    tile: str | None  # chosen noble / location

    @property
    def text(self) -> str:
        """The canonical text as a plain ``str``."""
        return str.__str__(self)

    def __repr__(self) -> str:
        return f"Move({str.__repr__(self)})"

    def __str__(self) -> str:
        return str.__str__(self)

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (move_from_text, (self.text,))

    @property
    def action_text(self) -> str:
        """The text without its ``return`` and tile suffixes."""
        if self.kind == "take":
            return "take " + self.take
        if self.kind == "reserve":
            return f"reserve {self.card}" if self.card else f"reserve deck{self.deck}"
        if self.kind == "buy":
            return f"buy {self.card}" + (f" J:{self.pay}" if self.pay else "")
        return "pass"

    def with_suffix(self, ret: str = "", tile: str | None = None) -> Move:
        """The same action with other ``return`` / tile suffixes."""
        return make_move(self.kind, take=self.take, card=self.card, deck=self.deck,
                         pay=self.pay, ret=ret, tile=tile)


_INTERN: dict[str, Move] = {}


def make_move(
    kind: str,
    *,
    take: str = "",
    card: str | None = None,
    deck: int | None = None,
    pay: str = "",
    ret: str = "",
    tile: str | None = None,
) -> Move:
    """Build (or fetch the interned) move; letters must already be canonical."""
    if kind == "take":
        text = "take " + take
    elif kind == "reserve":
        text = f"reserve {card}" if card else f"reserve deck{deck}"
    elif kind == "buy":
        text = f"buy {card} J:{pay}" if pay else f"buy {card}"
    else:
        text = "pass"
    if ret:
        text += " return " + ret
    if tile:
        text += (" noble " if tile[0] == "N" else " location ") + tile
    move = _INTERN.get(text)
    if move is None:
        move = str.__new__(Move, text)
        move.kind = kind
        move.take = take
        move.card = card
        move.deck = deck
        move.pay = pay
        move.ret = ret
        move.tile = tile
        if len(_INTERN) < 200_000:
            _INTERN[text] = move
    return move


def format_move(move: Move) -> str:
    """The canonical text of a move."""
    return str.__str__(move)


_CARD = re.compile(r"^[1-3]-\d\d$")
_TILE = re.compile(r"^(N\d\d|L[1-4][AB])$")
_LETTERS = re.compile(r"^[WUGRKJYOPT]+$")


def move_from_text(text: str) -> Move:
    """Parse canonical notation without a board (like UCI): syntax only, no legality.

    Raises :class:`InvalidNotation` for text that is not canonical notation.
    """
    if not isinstance(text, str):
        raise InvalidNotation(f"a move is text, not {type(text).__name__}")
    words = text.strip().split()
    if not words:
        raise InvalidNotation("the move is empty")
    upper = [w.upper() for w in words]
    kind = upper[0].lower()
    i = 1
    take = pay = ret = ""
    card: str | None = None
    deck: int | None = None
    tile: str | None = None
    if kind == "take":
        if len(upper) < 2 or not _LETTERS.match(upper[1]):
            raise InvalidNotation(f"{text!r}: 'take' needs token letters, e.g. 'take WUG' or 'take RR'")
        take = sort_letters(upper[1])
        if len(take) > 3:
            raise InvalidNotation(f"{text!r}: a turn takes at most 3 tokens")
        i = 2
    elif kind in ("reserve", "buy"):
        if len(upper) < 2:
            raise InvalidNotation(f"{text!r}: '{kind}' needs a card id such as 2-13")
        arg = upper[1]
        m = re.match(r"^DECK([1-3])$", arg)
        if kind == "reserve" and m:
            deck = int(m.group(1))
        elif _CARD.match(arg):
            card = arg
        else:
            raise InvalidNotation(f"{text!r}: {words[1]!r} is not a card id (like 2-13)"
                                  + (" or a deck (deck1..deck3)" if kind == "reserve" else ""))
        i = 2
        if kind == "buy" and i < len(upper) and upper[i].startswith("J:"):
            pay = sort_letters(upper[i][2:])
            if not pay or not _LETTERS.match(pay):
                raise InvalidNotation(f"{text!r}: 'J:' needs colour letters, e.g. J:R")
            i += 1
    elif kind == "pass":
        pass
    else:
        raise InvalidNotation(f"{text!r}: a move starts with take, reserve, buy or pass")
    if i < len(upper) and upper[i] == "RETURN":
        if i + 1 >= len(upper) or not _LETTERS.match(upper[i + 1]):
            raise InvalidNotation(f"{text!r}: 'return' needs token letters, e.g. 'return KJ'")
        ret = sort_letters(upper[i + 1])
        i += 2
    if i < len(upper) and upper[i] in ("NOBLE", "LOCATION"):
        if i + 1 >= len(upper) or not _TILE.match(upper[i + 1]):
            raise InvalidNotation(f"{text!r}: '{words[i]}' needs an id such as N03 or L2B")
        tile = upper[i + 1]
        if (tile[0] == "N") != (upper[i] == "NOBLE"):
            raise InvalidNotation(f"{text!r}: nobles are N01..N10 and locations L1A..L4B")
        i += 2
    if i != len(upper):
        raise InvalidNotation(f"{text!r}: unexpected {' '.join(words[i:])!r}")
    return make_move(kind, take=take, card=card, deck=deck, pay=pay, ret=ret, tile=tile)
