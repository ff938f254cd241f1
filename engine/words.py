"""A move written in words, for a person reading in English, Italian or Latvian:
``take white, blue and green``, ``prendi 2 rossi, restituisci nero``,
``rezervē no kaudzītes 2``.

What it writes, :func:`engine.notation.parse_move` reads back as the same move
(``parse(write(move)) == move``, tests/engine/test_move_words.py), in the
writer's language and in English: a player may type what a page or an email
shows. The words are the grammar's (engine.grammar), so the glossaries
(docs/glossary-it.md, docs/glossary-lv.md) decide them in one place; a move
names what its notation names and nothing else (a blind reservation names the
deck, never the card drawn).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from .grammar import ENGLISH
from .moves import Move, move_from_text
from .variants import Variant


@dataclass(frozen=True)
class _Phrasing:
    """How one language writes a move; every word is one its grammar reads."""

    verbs: Mapping[str, str]  # action -> verb ("buy" of a Marvel game: "recruit_marvel")
    colours: Mapping[str, tuple[str, str]]  # English colour word -> (one, several)
    and_word: str
    return_word: str
    tile_words: Mapping[str, str]  # "noble" / "location" -> word
    from_deck: str  # "from deck" before a level: "reserve from deck 2"
    paying: str  # "buy 1-01 paying gold for red"
    for_word: str
    plan: Mapping[str, str]  # "if", "then", "any"


_PHRASINGS: Mapping[str, _Phrasing] = MappingProxyType({
    "en": _Phrasing(
        verbs={"take": "take", "reserve": "reserve", "buy": "buy", "recruit": "recruit", "pass": "pass"},
        colours={word: (word, word) for word in (
            "white", "blue", "green", "red", "black", "gold", "yellow", "orange", "purple", "grey")},
        and_word="and",
        return_word="return",
        tile_words={"noble": "noble", "location": "location"},
        from_deck="from deck",
        paying="paying",
        for_word="for",
        plan={"if": "if", "then": "then", "any": "any"},
    ),
    # docs/glossary-it.md: tokens are "gettoni" (masculine); gold is "oro" (BGA).
    "it": _Phrasing(
        verbs={"take": "prendi", "reserve": "riserva", "buy": "compra", "recruit": "recluta", "pass": "passa"},
        colours={
            "white": ("bianco", "bianchi"), "blue": ("blu", "blu"), "green": ("verde", "verdi"),
            "red": ("rosso", "rossi"), "black": ("nero", "neri"), "gold": ("oro", "oro"),
            "yellow": ("giallo", "gialli"), "orange": ("arancione", "arancioni"), "purple": ("viola", "viola"),
            "grey": ("grigio", "grigi"),
        },
        and_word="e",
        return_word="restituisci",
        tile_words={"noble": "nobile", "location": "luogo"},
        from_deck="dal mazzo",
        paying="pagando",
        for_word="per",
        plan={"if": "se", "then": "allora", "any": "qualsiasi"},
    ),
    # docs/glossary-lv.md: the colours in the accusative a verb gives them ("ņem baltu").
    "lv": _Phrasing(
        verbs={"take": "ņem", "reserve": "rezervē", "buy": "pērc", "recruit": "vervē", "pass": "izlaid"},
        colours={
            "white": ("baltu", "baltus"), "blue": ("zilu", "zilus"), "green": ("zaļu", "zaļus"),
            "red": ("sarkanu", "sarkanus"), "black": ("melnu", "melnus"), "gold": ("zeltu", "zelta"),
            "yellow": ("dzeltenu", "dzeltenus"), "orange": ("oranžu", "oranžus"), "purple": ("violetu", "violetus"),
            "grey": ("pelēku", "pelēkus"),
        },
        and_word="un",
        return_word="atdod",
        tile_words={"noble": "dižciltīgo", "location": "vietu"},
        from_deck="no kaudzītes",
        paying="maksājot",
        for_word="par",
        plan={"if": "ja", "then": "tad", "any": "jebkurš"},
    ),
})

LANGUAGES: tuple[str, ...] = tuple(_PHRASINGS)


def phrasing_language(language: str | None) -> str:
    """The writer's language for a language code ("it", "it-it", "lv", "en-gb"):
    its first part when the writer has it, English otherwise."""
    code = (language or ENGLISH).lower().replace("_", "-").split("-")[0]
    return code if code in _PHRASINGS else ENGLISH


def _colour_words(variant: Variant) -> dict[str, str]:
    """Each letter of ``variant`` -> its English colour word (the first the
    variant's words give it, "gold" for J in the base game, "grey" in Marvel)."""
    out: dict[str, str] = {}
    for word, letter in variant.words.items():
        out.setdefault(letter, word)
    return out


def letters_words(letters: str, variant: Variant, language: str | None = ENGLISH) -> str:
    """Token letters in words, counted: ``RRK`` -> "2 red and black",
    "2 rossi e nero", "2 sarkanus un melnu"."""
    say = _PHRASINGS[phrasing_language(language)]
    names = _colour_words(variant)
    counts = Counter(letters)
    parts = []
    for letter in variant.all_letters:
        count = counts.get(letter, 0)
        if count:
            one, several = say.colours[names[letter]]
            parts.append(one if count == 1 else f"{count} {several}")
    if len(parts) < 2:
        return "".join(parts)
    return f"{', '.join(parts[:-1])} {say.and_word} {parts[-1]}"


def move_words(move: Move | str, variant: Variant, language: str | None = ENGLISH) -> str:
    """``move`` (a :class:`Move` or its canonical text) in the words of
    ``language`` for ``variant``; read back by ``parse_move`` as the same move."""
    if not isinstance(move, Move):
        move = move_from_text(move)
    say = _PHRASINGS[phrasing_language(language)]
    if move.kind == "take":
        text = f"{say.verbs['take']} {letters_words(move.take, variant, language)}"
    elif move.kind == "reserve":
        where = f"{say.from_deck} {move.deck}" if move.deck is not None else str(move.card)
        text = f"{say.verbs['reserve']} {where}"
    elif move.kind == "buy":
        verb = say.verbs["recruit" if variant.tile_word == "location" else "buy"]
        text = f"{verb} {move.card}"
        if move.pay:
            jokers = len(move.pay)
            one, several = say.colours[_colour_words(variant)["J"]]
            gold = one if jokers == 1 else f"{jokers} {several}"
            text += f" {say.paying} {gold} {say.for_word} {letters_words(move.pay, variant, language)}"
    else:
        text = say.verbs["pass"]
    if move.ret:
        text += f", {say.return_word} {letters_words(move.ret, variant, language)}"
    if move.tile:
        text += f", {say.tile_words[variant.tile_word]} {move.tile}"
    return text


def plan_line_words(condition: str, then: str, variant: Variant, language: str | None = ENGLISH) -> str:
    """A plan's line in words: "if <move> then <move>" (``condition`` "any" for
    any move), read back by ``engine.grammar.plan_line_split``."""
    say = _PHRASINGS[phrasing_language(language)]
    before = say.plan["any"] if condition == "any" else move_words(condition, variant, language)
    return f"{say.plan['if']} {before} {say.plan['then']} {move_words(then, variant, language)}"
