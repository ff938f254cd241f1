"""The words a person writes a move or an email command with, one grammar per
language (English, Italian, Latvian), defined here once and read by every door:
``engine.notation.parse_move`` (the API, the game page, email moves) and the
email command reader (``notifications.inbound.commands``).

A grammar only names words; what they mean is the notation's (shared
notation.md): a verb is one of its four actions, a part word opens its
``return`` or ``noble``/``location`` part, a colour word stands for the English
colour word of the variant (``Variant.words`` in engine.variants, which the
English grammar reads directly). English is always read; another language adds
its words (:func:`grammar_for`). The Italian and Latvian words are those of the
project's glossaries (docs/glossary-it.md, docs/glossary-lv.md), in the forms a
sentence gives them: imperative and infinitive verbs, and colour words in the
gender, number and case that follow a verb ("prendi bianchi", "ņem baltu").

Words match case-insensitively, after Unicode NFC normalisation and with
zero-width characters removed (:func:`word_key`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

ENGLISH = "en"

# The actions of notation.md "Forms" and the parts of its suffixes.
ACTIONS: tuple[str, ...] = ("take", "reserve", "buy", "pass")
PARTS: tuple[str, ...] = ("return", "noble", "location")
# The email commands other than a move (notifications.inbound.commands.CommandKind).
COMMANDS: tuple[str, ...] = (
    "resign", "confirm", "board", "help", "vacation", "moves", "new", "accept", "decline", "say", "plan",
)
# The words of a plan's lines ("if take WUG then buy 1-05"; "any" move; "plan clear").
PLAN_WORDS: tuple[str, ...] = ("if", "then", "any", "clear")

# Invisible characters some mail and chat clients put around words.
_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"))
# What may stand between a move and the courtesy words after it, and after them.
_TRAILING = ",.;!"


def _trailing_strip(text: str) -> str:
    while True:
        stripped = text.rstrip().rstrip(_TRAILING)
        if stripped == text:
            return text
        text = stripped


def text_normalise(text: str) -> str:
    """``text`` in Unicode NFC, without zero-width characters (U+200B..U+200D,
    U+2060, U+FEFF): what the reader sees is what is read."""
    if text.isascii():  # the canonical notation's case, on the bots' hot path
        return text
    return unicodedata.normalize("NFC", text).translate(_ZERO_WIDTH)


def word_key(word: str) -> str:
    """The form a word is looked up in: normalised and case-folded."""
    return text_normalise(word).casefold()


def _table(pairs: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType({word_key(word): meaning for word, meaning in pairs.items()})


def _words(meaning: str, *words: str) -> dict[str, str]:
    return dict.fromkeys(words, meaning)


@dataclass(frozen=True)
class Grammar:
    """The words of one language (or of several, merged by :func:`grammar_for`)."""

    code: str  # "en", "it", "lv"; merged grammars join theirs with "+"
    # Each word that may start a move -> its action (ACTIONS).
    verbs: Mapping[str, str]
    # Each word that opens a part of a move -> the part (PARTS).
    parts: Mapping[str, str]
    # The words for a level's deck ("deck 2", "mazzo 2").
    decks: frozenset[str]
    # The words that join colours ("white and blue"); ignored where colours are read.
    ands: frozenset[str]
    # The words that may stand before a deck ("reserve from deck 2", "dal mazzo 2").
    froms: frozenset[str]
    # The words that open a buy's payment with jokers ("buy 1-01 paying gold for
    # red", notation.md "Payments": ``J:R``), and the word before the colours the
    # jokers stand for ("for", "per", "par").
    payings: frozenset[str]
    fors: frozenset[str]
    # Each colour word -> the English colour word the variants read (Variant.words).
    colours: Mapping[str, str]
    # Each word that starts an email command other than a move -> the command (COMMANDS).
    commands: Mapping[str, str]
    # Polite words that may trail a move or a command and are then ignored:
    # each phrase as its words.
    courtesy: tuple[tuple[str, ...], ...]
    # "new": the words that introduce the invited ("with") and the words that
    # fill a sentence without meaning anything ("game", "players").
    with_words: frozenset[str]
    filler_words: frozenset[str]
    # Each word of a plan's lines -> its meaning (PLAN_WORDS).
    plans: Mapping[str, str]

    def words(self) -> frozenset[str]:
        """Every word of a move this grammar knows (verbs, parts, decks, "and",
        colours): the words a move may hold beyond plain ASCII letters and digits."""
        return (frozenset(self.verbs) | frozenset(self.parts) | self.decks | self.ands | frozenset(self.colours)
                | self.froms | self.payings | self.fors)

    def courtesy_strip(self, text: str) -> str:
        """``text`` without the courtesy words and punctuation that trail it
        ("buy 1-13, please!" -> "buy 1-13"); nothing else is taken away."""
        text = _trailing_strip(text_normalise(text))
        while True:
            words = text.split()
            last = word_key(words[-1]).strip(",;.!") if len(words) > 1 else ""
            for phrase in self.courtesy:
                size = len(phrase)
                if (phrase[-1] == last and len(words) > size
                        and tuple(word_key(word).strip(",;.!") for word in words[-size:]) == phrase):
                    # Whatever stands between the move and the phrase (a comma) goes with it.
                    text = _trailing_strip(" ".join(words[:-size]))
                    break
            else:
                return text


def _grammar(
    code: str,
    *,
    verbs: dict[str, str],
    parts: dict[str, str],
    decks: Iterable[str],
    ands: Iterable[str],
    froms: Iterable[str],
    payings: Iterable[str],
    fors: Iterable[str],
    colours: dict[str, str],
    commands: dict[str, str],
    courtesy: Iterable[str],
    with_words: Iterable[str],
    filler_words: Iterable[str],
    plans: dict[str, str],
) -> Grammar:
    assert set(verbs.values()) <= set(ACTIONS) and set(parts.values()) <= set(PARTS)
    assert set(commands.values()) <= set(COMMANDS) and set(plans.values()) <= set(PLAN_WORDS)
    return Grammar(
        code=code,
        verbs=_table(verbs),
        parts=_table(parts),
        decks=frozenset(map(word_key, decks)),
        ands=frozenset(map(word_key, ands)),
        froms=frozenset(map(word_key, froms)),
        payings=frozenset(map(word_key, payings)),
        fors=frozenset(map(word_key, fors)),
        colours=_table(colours),
        commands=_table(commands),
        courtesy=tuple(sorted((tuple(word_key(part) for part in phrase.split()) for phrase in courtesy),
                              key=len, reverse=True)),
        with_words=frozenset(map(word_key, with_words)),
        filler_words=frozenset(map(word_key, filler_words)),
        plans=_table(plans),
    )


ENGLISH_GRAMMAR = _grammar(
    ENGLISH,
    verbs={
        **_words("take", "take", "get", "pick"),
        **_words("reserve", "reserve", "hold"),
        **_words("buy", "buy", "purchase", "recruit"),
        **_words("pass", "pass"),
    },
    parts={"return": "return", "noble": "noble", "location": "location"},
    decks=("deck",),
    ands=("and", "&", "+"),
    froms=("from",),
    payings=("paying",),
    fors=("for",),
    colours={},  # the variants' own words (Variant.words)
    commands={
        "resign": "resign",
        "confirm": "confirm",
        "board": "board",
        "help": "help",
        "?": "help",
        # Not "holiday": out-of-office mail starts with it ("Holiday 14 days, back on ...").
        "vacation": "vacation",
        "moves": "moves",
        "legal": "moves",  # "legal moves"
        "new": "new",
        "accept": "accept",
        "join": "accept",
        "decline": "decline",
        # Table talk: the rest of the line (and the lines after it) is a chat message.
        "say": "say",
        # Conditional moves: "plan" shows the plan, "plan clear" clears it.
        "plan": "plan",
    },
    courtesy=("please", "thanks", "thank you"),
    with_words=("with", "invite"),
    filler_words=("game", "a", "players", "player", "seats", "seat", "and", "of"),
    plans={"if": "if", "then": "then", "any": "any", "anything": "any", "clear": "clear"},
)

# docs/glossary-it.md; colour words in both genders and numbers ("prendi due rossi").
ITALIAN_GRAMMAR = _grammar(
    "it",
    verbs={
        **_words("take", "prendi", "prendere"),
        **_words("buy", "compra", "comprare", "acquista", "acquistare", "recluta", "reclutare"),
        **_words("reserve", "riserva", "riservare", "prenota", "prenotare"),
        **_words("pass", "passa", "passare"),
    },
    parts={
        **_words("return", "restituisci", "restituire", "rendi"),
        **_words("noble", "nobile"),
        **_words("location", "luogo"),
    },
    decks=("mazzo",),
    ands=("e", "ed"),
    froms=("dal", "da"),
    payings=("pagando",),
    fors=("per",),
    colours={
        **_words("white", "bianco", "bianca", "bianchi", "bianche"),
        **_words("blue", "blu"),
        **_words("green", "verde", "verdi"),
        **_words("red", "rosso", "rossa", "rossi", "rosse"),
        **_words("black", "nero", "nera", "neri", "nere"),
        **_words("gold", "oro"),
        **_words("joker", "jolly"),
        # Splendor: Marvel
        **_words("yellow", "giallo", "gialla", "gialli", "gialle"),
        **_words("orange", "arancione", "arancioni"),
        **_words("purple", "viola"),
        **_words("grey", "grigio", "grigia", "grigi", "grigie"),
    },
    commands={
        "abbandona": "resign",
        "abbandonare": "resign",
        "conferma": "confirm",
        "confermare": "confirm",
        "tabellone": "board",
        "aiuto": "help",
        "vacanza": "vacation",
        "ferie": "vacation",
        "mosse": "moves",
        "nuova": "new",
        "nuovo": "new",
        "accetta": "accept",
        "accettare": "accept",
        "rifiuta": "decline",
        "di": "say",
        "rifiutare": "decline",
        "piano": "plan",
    },
    courtesy=("per favore", "per piacere", "grazie", "grazie mille"),
    with_words=("con", "invita"),
    filler_words=("partita", "una", "un", "giocatori", "giocatore", "posti", "posto", "e", "di", "a"),
    plans={"se": "if", "allora": "then", "qualsiasi": "any", "qualunque": "any", "cancella": "clear"},
)

# docs/glossary-lv.md; colour words in the cases a sentence gives them: nominative,
# accusative, plural ("ņem baltu zilu zaļu", "ņem divus sarkanus").
LATVIAN_GRAMMAR = _grammar(
    "lv",
    verbs={
        **_words("take", "ņem", "ņemt", "paņem", "paņemt"),
        **_words("buy", "pērc", "pirkt", "nopērc", "nopirkt", "iegādājies", "iegādāties",
                 "vervē", "vervēt", "savervē", "savervēt"),
        **_words("reserve", "rezervē", "rezervēt"),
        **_words("pass", "izlaid", "izlaist"),
    },
    parts={
        **_words("return", "atdod", "atdot"),
        **_words("noble", "dižciltīgais", "dižciltīgo"),
        **_words("location", "vieta", "vietu"),
    },
    decks=("kaudzīte", "kaudzīti", "kaudzītes"),
    ands=("un",),
    froms=("no",),
    payings=("maksājot",),
    fors=("par",),
    colours={
        **_words("white", "balts", "baltu", "balti", "baltus", "baltos"),
        **_words("blue", "zils", "zilu", "zili", "zilus", "zilos"),
        **_words("green", "zaļš", "zaļu", "zaļi", "zaļus", "zaļos"),
        **_words("red", "sarkans", "sarkanu", "sarkani", "sarkanus", "sarkanos"),
        **_words("black", "melns", "melnu", "melni", "melnus", "melnos"),
        **_words("gold", "zelts", "zeltu", "zelta"),
        **_words("joker", "džokers", "džokeru", "džokeri", "džokerus"),
        # Splendor: Marvel
        **_words("yellow", "dzeltens", "dzeltenu", "dzelteni", "dzeltenus", "dzeltenos"),
        **_words("orange", "oranžs", "oranžu", "oranži", "oranžus", "oranžos"),
        **_words("purple", "violets", "violetu", "violeti", "violetus", "violetos"),
        **_words("grey", "pelēks", "pelēku", "pelēki", "pelēkus", "pelēkos"),
    },
    commands={
        "padodos": "resign",
        "padoties": "resign",
        "apstiprini": "confirm",
        "apstiprināt": "confirm",
        "laukums": "board",
        "palīdzība": "help",
        "atvaļinājums": "vacation",
        "gājieni": "moves",
        "jauna": "new",
        "jauns": "new",
        "pieņemt": "accept",
        "pieņemu": "accept",
        "noraidīt": "decline",
        "noraidu": "decline",
        "saki": "say",
        "plāns": "plan",
    },
    courtesy=("lūdzu", "paldies", "liels paldies"),
    with_words=("ar", "uzaicini"),
    filler_words=("spēle", "spēli", "spēlētāji", "spēlētājiem", "spēlētāju", "vietas", "un"),
    plans={"ja": "if", "tad": "then", "jebkurš": "any", "jebkas": "any", "dzēst": "clear", "notīrīt": "clear"},
)

GRAMMARS: Mapping[str, Grammar] = MappingProxyType(
    {grammar.code: grammar for grammar in (ENGLISH_GRAMMAR, ITALIAN_GRAMMAR, LATVIAN_GRAMMAR)}
)
LANGUAGE_NAMES: Mapping[str, str] = MappingProxyType({"en": "English", "it": "Italian", "lv": "Latvian"})


def languages_normalise(languages: Iterable[str]) -> tuple[str, ...]:
    """English first, then each other language named, once, in the order given.
    A code that is no grammar's raises ``ValueError`` naming the known ones."""
    if isinstance(languages, str):
        languages = (languages,)
    codes = [ENGLISH]
    for code in languages:
        if code not in GRAMMARS:
            known = ", ".join(GRAMMARS)
            raise ValueError(f"no grammar for the language {code!r}; known languages: {known}")
        if code not in codes:
            codes.append(code)
    return tuple(codes)


def reading_languages(language: object) -> tuple[str, ...]:
    """The languages a person's text is read in: English, and their own language
    (an account's ``language``) when it has a grammar; anything else adds nothing."""
    code = str(language or ENGLISH)
    return (ENGLISH, code) if code != ENGLISH and code in GRAMMARS else (ENGLISH,)


def grammar_for(languages: Iterable[str] = (ENGLISH,)) -> Grammar:
    """English and the other ``languages`` merged into one grammar: a word of any
    of them is read. English is always among them."""
    if languages == (ENGLISH,):  # the default, on the bots' hot path
        return ENGLISH_GRAMMAR
    return _merged(languages_normalise(languages))


@lru_cache(maxsize=16)
def _merged(codes: tuple[str, ...]) -> Grammar:
    grammars = [GRAMMARS[code] for code in codes]
    if len(grammars) == 1:
        return grammars[0]

    def union(name: str) -> frozenset[str]:
        out: frozenset[str] = frozenset()
        for grammar in grammars:
            out |= getattr(grammar, name)
        return out

    def merged(name: str) -> Mapping[str, str]:
        table: dict[str, str] = {}
        for grammar in grammars:
            for word, meaning in getattr(grammar, name).items():
                table.setdefault(word, meaning)
        return MappingProxyType(table)

    return Grammar(
        code="+".join(codes),
        verbs=merged("verbs"),
        parts=merged("parts"),
        decks=union("decks"),
        ands=union("ands"),
        froms=union("froms"),
        payings=union("payings"),
        fors=union("fors"),
        colours=merged("colours"),
        commands=merged("commands"),
        courtesy=tuple(sorted({phrase for grammar in grammars for phrase in grammar.courtesy}, key=len, reverse=True)),
        with_words=union("with_words"),
        filler_words=union("filler_words"),
        plans=merged("plans"),
    )


def plan_line_split(line: str, grammar: Grammar) -> tuple[str, str] | None:
    """``if <A> then <B>`` (in any language of ``grammar``) as (A, B), A ``any``
    for the grammar's words for it; None for a line that is no plan line."""
    words = text_normalise(line).split()
    if len(words) < 4 or grammar.plans.get(word_key(words[0]).rstrip(":,")) != "if":
        return None
    then = next((i for i, word in enumerate(words) if i > 1 and grammar.plans.get(word_key(word).strip(",:")) == "then"),
                None)
    if then is None or then == len(words) - 1:
        return None
    before = " ".join(words[1:then]).strip(",")
    if len(words[1:then]) == 1 and grammar.plans.get(word_key(before)) == "any":
        before = "any"
    return before, grammar.courtesy_strip(" ".join(words[then + 1 :]))


def plan_text_read(block: str, grammar: Grammar) -> tuple[list[dict[str, object]], list[str]]:
    """The lines of a plan written as text (an email's lines, the game page's
    box), as the API takes them (``{"if", "then", "next"}``): a line indented
    deeper than the one above it is one of that line's ``next`` lines. Also the
    line each is read from, depth first (``lines[0]``, ``lines[0].next[0]``...);
    lines that are no plan line are left out."""
    top: list[dict[str, object]] = []
    stack: list[tuple[int, list[dict[str, object]]]] = []
    written: list[str] = []
    for line in block.expandtabs(4).split("\n"):
        split = plan_line_split(line, grammar)
        if split is None:
            continue
        indent = len(line) - len(line.lstrip())
        while stack and stack[-1][0] >= indent:
            stack.pop()
        siblings = stack[-1][1] if stack else top
        following: list[dict[str, object]] = []
        siblings.append({"if": split[0], "then": split[1], "next": following})
        stack.append((indent, following))
        written.append(line.strip())
    return top, written
