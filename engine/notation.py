"""Parsing moves a person typed: canonical text, or the friendlier forms of
notation.md (colour words, market slots ``2c``, hand slots ``h1``, ``deck 2``,
``1x``, Marvel character names), in English and, when asked, in the words of
another language's grammar (engine.grammar). Whatever the input, the result is
the canonical :class:`Move`, and only a legal one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from .diagnosis import diagnose
from .errors import InvalidNotation, Word, gettext_noop, ngettext
from .grammar import ACTIONS, ENGLISH, ENGLISH_GRAMMAR, GRAMMARS, LANGUAGE_NAMES, Grammar, grammar_for, word_key
from .moves import Move, make_move, move_from_text, sort_letters
from .rules import legal_index
from .state import State
from .variants import Variant

# The English words a move may start with, and the action each means; every
# language's words, English included, are engine.grammar's (``Grammar.verbs``).
MOVE_VERBS: Mapping[str, str] = ENGLISH_GRAMMAR.verbs
# The English words that open a move's later parts: the tokens given back
# (``return K``) and the tile chosen (``noble N03``, ``location L2B``).
MOVE_PART_WORDS: tuple[str, ...] = tuple(ENGLISH_GRAMMAR.parts)
_MAX_LETTERS = 10  # no part of a turn moves more tokens than this
MAX_MOVE_TEXT = 200  # longer input is refused before any parsing


def parse_move(state: State, text: str, *, languages: Iterable[str] = (ENGLISH,)) -> Move:
    """The legal move that ``text`` means in ``state``.

    ``text`` is read in English and in the grammars of ``languages`` (codes of
    ``engine.grammar.GRAMMARS``: "it", "lv"); courtesy words that trail it
    ("please", "grazie", "paldies") are ignored, anything else extra is not.

    Raises :class:`InvalidNotation` for text that is no move at all,
    :class:`IllegalMove` (with the rule id) for a move the rules forbid here, and
    :class:`AmbiguousMove` (with ``choices``) when a required choice is missing.
    """
    move = _read(state, text, grammar_for(languages), hand_seat=state.seat)
    if move in legal_index(state):
        return move
    diagnose(state, move)


def read_move(
    state: State, text: str, *, languages: Iterable[str] = (ENGLISH,), hand_seat: int | None = None
) -> Move:
    """The canonical move that ``text`` names, read as :func:`parse_move` reads
    it but not checked against the rules: for a move to be played later (a
    conditional move), whose legality is known only then.

    The board resolves only the friendly references: a market slot ("2c") names
    the card in it now, a hand slot ("h1") a reserved card of ``hand_seat``
    (refused when it is None, so that no seat's hidden reserve is read).
    Raises :class:`InvalidNotation` for text that is no move at all.
    """
    return _read(state, text, grammar_for(languages), hand_seat=hand_seat)


def _read(state: State, text: str, grammar: Grammar, *, hand_seat: int | None) -> Move:
    """Canonical notation first, then the lenient reading of ``grammar``."""
    if isinstance(text, str):
        if len(text) > MAX_MOVE_TEXT:
            raise InvalidNotation(gettext_noop("a move is at most %(limit)s characters", limit=MAX_MOVE_TEXT))
        text = grammar.courtesy_strip(text)
        _check_characters(text, grammar)
    try:
        return move_from_text(text)
    except InvalidNotation as canonical_error:
        try:
            return _lenient(state, text, grammar, hand_seat)
        except InvalidNotation as lenient_error:
            first = text.split()[:1] if isinstance(text, str) else []
            if first and (word_key(first[0]) in grammar.verbs or grammar.code != ENGLISH):
                # The lenient reading's words name the other language's verbs too.
                raise lenient_error from None
            raise canonical_error from None


def _check_characters(text: str, grammar: Grammar) -> None:
    """Refuse characters beyond ASCII outside the grammar's own words: lookalike
    digits and letters (a full-width 2, a Cyrillic a) would otherwise read as ids
    or colours they only resemble."""
    if text.isascii():
        return
    known = grammar.words()
    odd_words = [word for word in text.replace(",", " ").split()
                 if not word.isascii() and word_key(word).strip(";.!") not in known]
    if not odd_words:
        return
    odd = "".join(dict.fromkeys(ch for word in odd_words for ch in word if not ch.isascii()))
    codes = grammar.code.split("+")
    names = " or ".join(LANGUAGE_NAMES[code] for code in codes)
    elsewhere = [LANGUAGE_NAMES[code] for code, other in GRAMMARS.items()
                 if code not in codes and word_key(odd_words[0]).strip(";.!") in other.words()]
    if elsewhere:
        raise InvalidNotation(f"{text!r}: {odd_words[0]!r} is a word of {elsewhere[0]}, and this move is read in "
                              f"{names}; apart from the words of {names}, moves are written in plain ASCII "
                              f"letters and digits")
    if len(codes) == 1:
        raise InvalidNotation(gettext_noop("%(text)s: moves are written in plain ASCII letters and digits, not %(odd)s",
                                           text=repr(text), odd=repr(odd)))
    raise InvalidNotation(f"{text!r}: {odd_words[0]!r} is not a word of a move in {names}; apart from those "
                          f"words, moves are written in plain ASCII letters and digits, not {odd!r}")


def _norm_name(s: str) -> str:
    return re.sub(r"[^a-z0-9]", "", s.lower())


def _letters(v: Variant, words: list[str], what: str, grammar: Grammar) -> str:
    """The token letters ``words`` name: letters, colour words (the variant's
    English ones and the grammar's, which stand for them) and counts. How many
    a move may take is the rules' to say (B-TAKE-3), beyond what no turn moves."""
    out = ""
    count = 1
    for original in words:
        w = word_key(original).strip(",;.")
        if not w or w in grammar.ands:
            continue
        if w.isdigit():
            if len(w) > 1 or w == "0":
                raise InvalidNotation(gettext_noop("%(word)s: a count of tokens is a digit from 1 to 9",
                                                   word=repr(original)))
            count = int(w)
            continue
        english = grammar.colours.get(w)
        if english is not None and english in v.words:
            w = english
        m = re.match(r"^([1-3])x$|^x([1-3])$", w)
        if m:
            if out:
                out += out[-1] * (int(m.group(1) or m.group(2)) - 1)
            continue
        word = w[:-1] if w.endswith("s") and w[:-1] in v.words else w
        if word in v.words:
            out += v.words[word] * count
        elif all(v.letter_index(ch) >= 0 for ch in w):
            out += w.upper() * count
        else:
            raise InvalidNotation(gettext_noop(
                "%(word)s is not a token colour of the %(variant)s game (letters %(letters)s, or words like %(example)s)",
                word=repr(original), variant=v.name, letters=v.all_letters, example=Word(next(iter(v.words)))))
        count = 1
        if len(out) > _MAX_LETTERS:
            raise InvalidNotation(gettext_noop("%(part)s lists more tokens than a turn can ever move", part=what))
    if not out:
        raise InvalidNotation(gettext_noop("%(part)s needs token colours, e.g. '%(example)s'",
                                           part=what, example=f"{what} {v.letters[:3]}"))
    return sort_letters(out)


def _card_ref(state: State, arg: str, kind: str, hand_seat: int | None) -> tuple[str | None, int | None]:
    v = state.variant
    a = arg.strip().lower()
    compact = a.replace(" ", "")
    if re.fullmatch(r"[1-3]-\d\d", compact):
        return compact, None
    m = re.fullmatch(r"deck([1-3])|([1-3])x|level([1-3])deck", compact)
    if m:
        if kind != "reserve":
            raise InvalidNotation(gettext_noop("only a reservation can take the top card of a deck"))
        return None, int(next(g for g in m.groups() if g))
    m = re.fullmatch(r"([1-3])([a-d])", compact)
    if m:
        level, slot = int(m.group(1)), "abcd".index(m.group(2))
        cid = state.market[level - 1][slot]
        if cid is None:
            raise InvalidNotation(gettext_noop("market slot %(slot)s is empty", slot=compact))
        return cid, None
    m = re.fullmatch(r"h([1-3])", compact)
    if m:
        k = int(m.group(1))
        if kind != "buy":
            raise InvalidNotation(gettext_noop("hand slots h1-h3 name your reserved cards, which you can only buy"))
        if hand_seat is None:
            raise InvalidNotation(gettext_noop("here a reserved card is named by its id (2-13), not a hand slot"))
        hand = state.players[hand_seat].reserved
        if k > len(hand):
            raise InvalidNotation(ngettext("you have %(count)s reserved card; there is no %(slot)s",
                                            "you have %(count)s reserved cards; there is no %(slot)s",
                                            len(hand), slot=f"h{k}"))
        return hand[k - 1][0], None
    name = _norm_name(a)
    if name:
        for card in v.cards.values():
            if card.name and _norm_name(card.name) == name:
                return card.id, None
    if kind == "reserve":
        raise InvalidNotation(
            gettext_noop("%(arg)s is not a card: use an id (2-13), a market slot (2c), a deck (deck 2) or a "
                         "character's name", arg=repr(arg)) if v.has_card_names
            else gettext_noop("%(arg)s is not a card: use an id (2-13), a market slot (2c), a deck (deck 2)",
                              arg=repr(arg)))
    raise InvalidNotation(
        gettext_noop("%(arg)s is not a card: use an id (2-13), a market slot (2c), a hand slot (h1) or a "
                     "character's name", arg=repr(arg)) if v.has_card_names
        else gettext_noop("%(arg)s is not a card: use an id (2-13), a market slot (2c), a hand slot (h1)",
                          arg=repr(arg)))


def _deck_words(words: list[str], grammar: Grammar) -> list[str]:
    """A card reference with the grammar's deck words as "deck" ("mazzo 2",
    "kaudzīte2" -> "deck 2", "deck2"), as ``_card_ref`` reads it."""
    out = []
    for word in words:
        key = word_key(word)
        digit = key[-1:] if key[-1:] in ("1", "2", "3") else ""
        stem = key[:-1] if digit else key
        out.append("deck" + digit if stem in grammar.decks else word)
    return out


def _from_words_drop(words: list[str], grammar: Grammar) -> list[str]:
    """A card reference without the word that may stand before a deck ("from
    deck 2", "dal mazzo 2", "no kaudzītes 2"); elsewhere the word stays, and is
    refused with the reference."""
    out = []
    for index, word in enumerate(words):
        following = word_key(words[index + 1]) if index + 1 < len(words) else ""
        stem = following.rstrip("123")
        if word_key(word) in grammar.froms and stem in grammar.decks:
            continue
        out.append(word)
    return out


def _pay_words(v: Variant, text: str, words: list[str], grammar: Grammar) -> str:
    """The payment a buy writes in words ("paying 2 gold for red and black",
    "pagando oro per rosso"): the jokers, the word "for", then the colours they
    pay for, one joker a token; as notation's ``J:`` letters (notation.md "Payments")."""
    keys = [word_key(word).strip(",;.") for word in words]
    split = next((index for index, key in enumerate(keys) if key in grammar.fors), None)
    if split is None or split == len(words) - 1:
        raise InvalidNotation(gettext_noop("%(text)s: a payment with %(joker)s tokens names them, then the colours "
                                           "they pay for, as the move buttons write it", text=repr(text),
                                           joker=Word(v.joker_name)))
    jokers = _letters(v, words[:split], "J:", grammar)
    pay = _letters(v, words[split + 1:], "J:", grammar)
    if set(jokers) != {"J"} or len(jokers) != len(pay):
        raise InvalidNotation(gettext_noop("%(text)s: a payment names one %(joker)s token for each token it pays for",
                                           text=repr(text), joker=Word(v.joker_name)))
    return pay


def _verbs_named(grammar: Grammar) -> str:
    """"take, reserve, buy or pass", and each other language's first word for each."""
    named = "take, reserve, buy or pass"
    for code in grammar.code.split("+")[1:]:
        verbs = GRAMMARS[code].verbs
        firsts = [next(word for word, action in verbs.items() if action == kind) for kind in ACTIONS]
        named += f" ({LANGUAGE_NAMES[code]}: {', '.join(firsts)})"
    return named


def _lenient(state: State, text: str, grammar: Grammar, hand_seat: int | None) -> Move:
    if not isinstance(text, str) or not text.strip():
        raise InvalidNotation(gettext_noop("the move is empty"))
    v = state.variant
    words = text.replace(",", " ").split()
    if not words:
        raise InvalidNotation(gettext_noop("the move is empty"))
    kind = grammar.verbs.get(word_key(words[0]))
    if kind is None:
        raise InvalidNotation(gettext_noop("%(text)s: a move starts with %(verbs)s", text=repr(text),
                                           verbs=_verbs_named(grammar)))
    # Every word lands in exactly one part, and every part must be read in full:
    # nothing a player wrote is dropped (a stray word is refused, not ignored).
    segments: dict[str, list[str]] = {"args": []}
    current = "args"
    for w in words[1:]:
        lw = w.lower()
        part = grammar.parts.get(word_key(w))
        if part is not None:
            current = "return" if part == "return" else "tile"
            if current in segments:
                raise InvalidNotation(gettext_noop("%(text)s: %(word)s is written twice", text=repr(text), word=repr(w)))
            segments[current] = []
            continue
        if word_key(w).strip(",;.") in grammar.payings:
            if kind != "buy":
                raise InvalidNotation(gettext_noop("%(text)s: %(word)s names %(joker)s tokens to pay with, which only a buy does",
                                                   text=repr(text), word=repr(w), joker=Word(v.joker_name)))
            if "pay" in segments or "pay_words" in segments:
                raise InvalidNotation(gettext_noop("%(text)s: %(word)s is written twice", text=repr(text), word=repr(w)))
            current = "pay_words"
            segments[current] = []
            continue
        if lw.startswith("j:"):
            if kind != "buy":
                raise InvalidNotation(gettext_noop("%(text)s: %(word)s names %(joker)s tokens to pay with, which only a buy does",
                                                   text=repr(text), word=repr(w), joker=Word(v.joker_name)))
            if "pay" in segments or "pay_words" in segments:
                raise InvalidNotation(gettext_noop("%(text)s: %(word)s: name the %(joker)s tokens to pay with in one J: part",
                                                   text=repr(text), word=repr(w), joker=Word(v.joker_name)))
            segments["pay"] = [lw[2:]]
            if not lw[2:]:
                raise InvalidNotation(gettext_noop("%(text)s: %(word)s needs colour letters, e.g. J:R",
                                                   text=repr(text), word=repr(w)))
            continue
        segments[current].append(w)
    for part, word in (("return", "return"), ("tile", state.variant.tile_word)):
        if part in segments and not segments[part]:
            example = "'return K'" if part == "return" else "'noble N03'" if word == "noble" else "'location L2B'"
            raise InvalidNotation(gettext_noop("%(text)s: %(word)s needs what follows it, e.g. %(example)s",
                                               text=repr(text), word=repr(word), example=example))
    take = pay = ret = ""
    card: str | None = None
    deck: int | None = None
    if kind == "take":
        take = _letters(v, segments["args"], "take", grammar)
    elif kind in ("reserve", "buy"):
        if not segments["args"]:
            raise InvalidNotation(gettext_noop("%(text)s: '%(verb)s' needs a card", text=repr(text), verb=kind))
        card, deck = _card_ref(state, " ".join(_deck_words(_from_words_drop(segments["args"], grammar), grammar)),
                               kind, hand_seat)
        if "pay" in segments:
            pay = _letters(v, segments["pay"], "J:", grammar)
        elif "pay_words" in segments:
            pay = _pay_words(v, text, segments["pay_words"], grammar)
    elif segments["args"]:
        raise InvalidNotation(gettext_noop("%(text)s: 'pass' takes no argument", text=repr(text)))
    if "return" in segments:
        ret = _letters(v, segments["return"], "return", grammar)
    tile = None
    if "tile" in segments:
        tile = "".join(segments["tile"]).upper()
        if not re.fullmatch(r"N\d\d|L[1-4][AB]", tile):
            found = [t.id for t in v.tiles.values() if t.name and _norm_name(t.name) == _norm_name(tile)]
            if not found:
                raise InvalidNotation(gettext_noop("%(tile)s is not a noble", tile=repr(tile)) if v.tile_word == "noble"
                                      else gettext_noop("%(tile)s is not a location", tile=repr(tile)))
            tile = found[0]
    # A take of more than 3 tokens is a move the rules forbid (B-TAKE-3): the
    # diagnosis says so with the rule's id, wherever the move was written.
    return make_move(kind, take=take, card=card, deck=deck, pay=pay, ret=ret, tile=tile)

