"""The words a sender wrote: a message's text, with quoted history and
signatures taken away.

A reply's quoted history holds the turn email, and the turn email shows legal
moves as examples: read from the quote, they would play. So quoted text is
removed in every style we know (``>`` lines, the quote headers of Gmail,
Outlook, Apple Mail and Thunderbird in several languages, Outlook's
"From:/Sent:" block, "-----Original Message-----", HTML blockquotes), first by
``mailparser_reply`` and then by our own rules for what it misses (Latvian
headers, the move on the line right above a quote header, a header block copied
above a ``>`` quote, Thunderbird's attribution block, bottom-posted replies,
phone signatures in English, Italian and Latvian).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from mailparser_reply import EmailReplyParser  # type: ignore[import-untyped]  # no stubs

_LANGUAGES = ["en", "de", "fr", "it", "es", "nl", "sv", "da", "pl", "cs"]

# A line that introduces quoted history: "On <date>, <name> wrote:" and its
# kin. Matched on the line (or two joined lines, as clients wrap long headers).
_QUOTE_HEADER = re.compile(
    r"(\b(wrote|writes|ha scritto|scrisse|rakstīja|rakstija|schrieb|schreef|skrev|escribió|escribio|"
    r"napisał|napisal|napsal|kirjoitti|írta|yazdı|написал|написала|a écrit|a ecrit)\s*:?\s*$)"
    r"|(^(Il giorno|Am|On|Le|El|Op|Den|Dnia|W dniu|Em)\b.*\b(wrote|ha scritto|schrieb|a écrit|escribió|schreef|skrev|"
    r"napisał|escreveu)\b)",
    re.IGNORECASE,
)
# Lines after which everything is quoted (top-posting clients).
_CUT_LINE = re.compile(
    r"^\s*(-{2,}\s*(Original Message|Ursprüngliche Nachricht|Messaggio originale|Message d'origine|"
    r"Oorspronkelijk bericht|Mensaje original|Oprindelig meddelelse|Ursprungligt meddelande|"
    r"Sākotnējais ziņojums|Sākotnējā ziņa|Oriģinālā ziņa)\s*-{2,}"
    r"|_{10,}|Begin forwarded message:|-{5,} ?Forwarded message ?-{5,}|Anfang der weitergeleiteten Nachricht:)\s*$",
    re.IGNORECASE,
)
# Outlook's header block: "From: ..." followed within a few lines by "Sent:"/"Date:".
_FROM_LINE = re.compile(r"^\s*\*?(From|Von|Da|De|Från|Fra|Van|Od|No)\s*:\*?\s", re.IGNORECASE)
_SENT_LINE = re.compile(
    r"^\s*\*?(Sent|Date|Gesendet|Datum|Datums|Inviato|Data|Envoyé|Skickat|Sendt|Verzonden|Enviado|Nosūtīts)\s*:",
    re.IGNORECASE,
)
_SIGNATURE = re.compile(
    r"^\s*(--\s*|__\s*|Sent from my .*|Sent from .* for (iOS|Android)|Get Outlook for .*|Von meinem .* gesendet|"
    r"Inviato da(l mio)? .*|Ottieni Outlook per .*|Envoyé de mon .*|Enviado desde mi .*|Skickat från min .*|"
    r"Sendt fra min .*|Nosūtīts no (mana|manas|mans|sava) .*|Nosūtīts no .* (iOS|Android)( ierīces| ierīcei)?|"
    r"Nosutits no (mana|manas|mans|sava) .*|Iegūstiet Outlook .*)$",
    re.IGNORECASE,
)
# A header block that a client copies above the message it quotes ("From: ...",
# "Date: ...", "Subject: ...", "To: ...", in the client's language): one
# "Name:" line after another, a long value wrapped onto indented lines.
_HEADER_LIKE = re.compile(r"^\s*\*?[^\s:>*][^\s:]{0,24}( [^\s:]{1,24})?\s*:\*?(\s|$)")

_reply_parser = EmailReplyParser(languages=_LANGUAGES)


def flowed_decode(text: str, *, delsp: bool) -> str:
    """RFC 3676 format=flowed: join soft-broken lines (ending in a space) and
    undo space-stuffing. Lines of one quote depth are joined, never lines of two
    (section 4.5); each joined line keeps its depth's ``>`` marks. A soft break
    before a signature line ("Sent from my iPhone", "-- ") is taken for the hard
    one the sender typed: phones leave a space at the end of a line (the one
    after a word chosen from the keyboard's suggestions), and the move is then
    read on its own line."""
    out: list[str] = []
    paragraph: tuple[int, str] | None = None  # (quote depth, text so far)

    def close() -> None:
        nonlocal paragraph
        if paragraph is not None:
            depth, words = paragraph
            out.append(">" * depth + " " + words if depth else words)
            paragraph = None

    for line in text.split("\n"):
        line = line.rstrip("\r")
        unquoted = line.lstrip(">")
        depth = len(line) - len(unquoted)
        if unquoted.startswith(" "):
            unquoted = unquoted[1:]  # space-stuffed
        signature = unquoted == "-- "
        if paragraph is not None and (paragraph[0] != depth or signature or _SIGNATURE.match(unquoted)):
            close()
        if signature:
            out.append(">" * depth + " -- " if depth else "-- ")
            continue
        words = (paragraph[1] if paragraph is not None else "") + unquoted
        if unquoted.endswith(" "):
            paragraph = (depth, words[:-1] if delsp else words)
            continue
        paragraph = (depth, words)
        close()
    close()
    return "\n".join(out)


# Characters nobody sees and a database may refuse: C0 and C1 controls (NUL
# among them) but the line breaks and tabs, lone surrogates (undecodable bytes
# in headers come out as those), and the invisible format characters (zero-width
# spaces and joiners, bidirectional overrides, the byte order mark).
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff]"
)


def invisible_removed(text: str) -> str:
    """``text`` without the characters a reader cannot see. Taken out before
    anything is read: a zero-width space after a soft line break's space would
    hide the break, and one after "wrote:" would hide the quote header."""
    return _INVISIBLE.sub("", text)


def visible_text(text: str) -> str:
    """``text`` without the characters a reader cannot see; tabs become spaces."""
    return invisible_removed(text).replace("\t", " ")


def _style_hides(style: str) -> bool:
    """Whether an inline style keeps the element's text from being seen, as mail
    clients render it: a command hidden this way must not play."""
    declarations: dict[str, str] = {}
    for declaration in style.split(";"):
        name, colon, value = declaration.partition(":")
        if colon:
            value = value.lower().replace("!important", "").strip()
            declarations[name.strip().lower()] = " ".join(value.split())
    if declarations.get("display") == "none" or declarations.get("visibility") in ("hidden", "collapse"):
        return True
    if declarations.get("mso-hide") == "all" or declarations.get("color") == "transparent":
        return True
    if _zero(declarations.get("font-size")) or _zero(declarations.get("opacity")):
        return True
    # A box of no size shows its text anyway unless its overflow is hidden.
    clipped = declarations.get("overflow") == "hidden"
    if clipped and any(_zero(declarations.get(name)) for name in ("height", "max-height", "width", "max-width")):
        return True
    # Pushed far off the page.
    if _far_off(declarations.get("text-indent")):
        return True
    placed = declarations.get("position") in ("absolute", "fixed")
    return placed and any(_far_off(declarations.get(name)) for name in ("left", "top"))


def _zero(value: str | None) -> bool:
    return value is not None and re.fullmatch(r"[-+]?(0+\.?0*|\.0+)(px|pt|em|rem|ex|%|vh|vw)?", value) is not None


def _far_off(value: str | None) -> bool:
    match = re.fullmatch(r"-(\d+)(\.\d*)?(px|pt|em|rem)?", value or "")
    return match is not None and int(match.group(1)) >= (100 if match.group(3) in ("em", "rem") else 999)


_STYLE_BLOCK = re.compile(r"<style\b[^>]*>(.*?)</style\s*>", re.IGNORECASE | re.DOTALL)
_CSS_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_CSS_NAME = re.compile(r"([.#])(-?[A-Za-z_][\w-]*)")


def hidden_selectors(html: str) -> frozenset[str]:
    """The classes (``.name``) and ids (``#name``) that the message's own style
    sheets hide: mail clients apply ``<style>`` rules, so ``.x{display:none}``
    hides a command as well as an inline style does. A selector is judged by its
    last part, so a rule that hides only in some context hides everywhere here:
    the text is then taken for no command, never for another one."""
    names: set[str] = set()
    for block in _STYLE_BLOCK.findall(html):
        block = re.sub(r"/\*.*?\*/", "", block, flags=re.DOTALL)
        for selectors, declarations in _CSS_RULE.findall(block):
            if not _style_hides(declarations):
                continue
            for selector in selectors.split(","):
                last = (selector.split() or [""])[-1]
                names.update(kind + name.lower() for kind, name in _CSS_NAME.findall(last))
    return frozenset(names)


class _HtmlText(HTMLParser):
    """Text from HTML, with quoted parts (blockquotes, the quote containers of
    Gmail, Outlook, Thunderbird, Apple Mail) and hidden elements (``hidden``,
    ``display:none``, ``visibility:hidden``, no size, no opacity) left out."""

    _BLOCKS = frozenset({"p", "div", "br", "tr", "li", "h1", "h2", "h3", "h4", "table", "pre", "hr"})
    _QUOTE_MARKERS = ("gmail_quote", "divrplyfwdmsg", "appendonsend", "yahoo_quoted",
                      "protonmail_quote", "applemail-quote", "x_divrplyfwdmsg", "mail-quote")
    # Thunderbird's attribution ("On ... wrote:") above its blockquote. The sender's
    # cursor may stand in it: what they type there is theirs, the attribution is not.
    _CITE_PREFIX = "moz-cite-prefix"
    # Elements whose text is never shown as the message's words.
    _UNSHOWN = frozenset({"style", "script", "head", "title", "template", "object", "svg", "math", "select", "option"})

    def __init__(self, hidden: frozenset[str] = frozenset()) -> None:
        super().__init__(convert_charrefs=True)
        self._hidden = hidden
        self.parts: list[str] = []
        self._skip_depth = 0
        self._stack: list[tuple[str, bool]] = []
        # Where in ``parts`` the open attribution block began, and its depth in the stack.
        self._cite: tuple[int, int] | None = None

    def _is_quote(self, tag: str, attrs: list[tuple[str, str | None]]) -> bool:
        if tag == "blockquote":
            return True
        values = " ".join((value or "") for name, value in attrs if name in ("class", "id", "type")).lower()
        return any(marker in values for marker in self._QUOTE_MARKERS)

    def _is_cite_prefix(self, attrs: list[tuple[str, str | None]]) -> bool:
        return any(name == "class" and value and self._CITE_PREFIX in value.lower().split() for name, value in attrs)

    def _is_hidden(self, attrs: list[tuple[str, str | None]]) -> bool:
        for name, value in attrs:
            if name == "hidden" or (name == "style" and value and _style_hides(value)):
                return True
            if name == "class" and value and any("." + word.lower() in self._hidden for word in value.split()):
                return True
            if name == "id" and value and "#" + value.strip().lower() in self._hidden:
                return True
        return False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("br", "hr", "img", "meta", "link", "input"):
            if tag in ("br", "hr") and not self._skip_depth:
                self.parts.append("\n")
            return
        quote = self._is_quote(tag, attrs) or tag in self._UNSHOWN or self._is_hidden(attrs)
        if not quote and self._cite is None and not self._skip_depth and self._is_cite_prefix(attrs):
            self._cite = (len(self.parts), len(self._stack))
        self._stack.append((tag, quote))
        if quote:
            self._skip_depth += 1
        elif tag in self._BLOCKS and not self._skip_depth:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        # Close up to the matching open tag (HTML in mail is often not well formed).
        for position in range(len(self._stack) - 1, -1, -1):
            if self._stack[position][0] == tag:
                for _, was_quote in self._stack[position:]:
                    if was_quote:
                        self._skip_depth -= 1
                del self._stack[position:]
                if self._cite is not None and self._cite[1] >= position:
                    self.cite_close()
                break
        if tag in self._BLOCKS and not self._skip_depth:
            self.parts.append("\n")

    def cite_close(self) -> None:
        """End the open attribution block: its words stay, its attribution goes."""
        if self._cite is not None:
            start = self._cite[0]
            self.parts[start:] = [without_attribution("".join(self.parts[start:]))]
            self._cite = None

    def handle_data(self, data: str) -> None:
        if not self._skip_depth:
            self.parts.append(invisible_removed(data))


# Where an attribution begins on the line it shares with the sender's words: its
# opening word before a date ("On 02/03/2026 09:00, ..."), or the date itself.
_ATTRIBUTION_BEGINS = re.compile(
    r"\b(Il giorno|On|Il|Le|Am|El|Op|Den|Dnia|W dniu|Em)\s+(?=[^\s]*\d)|\b\d{1,4}[./-]\d{1,2}[./-]\d{1,4}\b",
    re.IGNORECASE,
)


def without_attribution(text: str) -> str:
    """The text of an attribution block (Thunderbird's ``moz-cite-prefix``) with
    its attribution, the last line that ends with a colon, taken away: what the
    sender typed before it, on its line or above, stays."""
    lines = text.split("\n")
    for index in range(len(lines) - 1, -1, -1):
        line = lines[index].strip()
        if not line:
            continue
        if not line.endswith(":"):
            continue
        begins = _ATTRIBUTION_BEGINS.search(line)
        lines[index] = line[: begins.start()].rstrip() if begins else ""
        break
    return "\n".join(lines)


def html_to_text(html: str) -> str:
    parser = _HtmlText(hidden_selectors(html))
    parser.feed(html)
    parser.close()
    parser.cite_close()  # an attribution block never closed runs to the end
    text = "".join(parser.parts).replace("\xa0", " ")
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


# How the first of a quote header's two wrapped lines begins: an opening word
# ("On", "Il giorno", ...), or a date or a time, which no command has.
_HEADER_BEGINS = re.compile(
    r"^\s*(Il giorno|Am|On|Le|El|Op|Den|Dnia|W dniu|Em|Il)\b|\b\d{4}\b|\b\d{1,2}:\d{2}\b", re.IGNORECASE
)


def _is_quote_header(lines: list[str], i: int) -> int:
    """How many lines starting at ``i`` make a quote header (0, 1 or 2)."""
    line = lines[i].strip()
    if not line:
        return 0
    if _QUOTE_HEADER.search(line):
        return 1
    if i + 1 >= len(lines):
        return 0
    following = lines[i + 1].strip()
    # A header wrapped onto two lines ends with its closing word on the second
    # line. The line above a header that stands alone (the move written right
    # above "On ... wrote:") is the sender's, and so is the line above a quoted one.
    if not following or following.startswith(">"):
        return 0
    if _QUOTE_HEADER.search(following) and not _HEADER_BEGINS.search(line):
        return 0
    if following.endswith(":") and _QUOTE_HEADER.search(line + " " + following):
        return 2
    return 0


def _outlook_block(lines: list[str], i: int) -> bool:
    if not _FROM_LINE.match(lines[i]):
        return False
    return any(_SENT_LINE.match(line) for line in lines[i + 1 : i + 5])


def _header_block_end(lines: list[str], i: int) -> int:
    """Where the header block that starts at ``i`` ends: the index of the first
    line after its "Name: value" lines (and their indented continuations)."""
    end = i
    while end < len(lines) and lines[end].strip():
        if not _HEADER_LIKE.match(lines[end]) and not (end > i and lines[end][:1] == " "):
            break
        end += 1
    return end


def _heads_a_quote(lines: list[str], end: int) -> bool:
    """Whether the first line written after ``end`` (blank lines aside) is quoted."""
    following = next((line for line in lines[end:] if line.strip()), "")
    return following.lstrip().startswith(">")


def strip_quotes(text: str) -> str:
    """Our own rules: drop ``>`` lines and quote headers; cut at an original-message
    marker, an Outlook header block, or a signature. A header block above ``>``
    lines heads that quote as "On ... wrote:" does: it is dropped, and the words
    written below the quote are read."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    kept: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(">"):
            i += 1
            continue
        header = _is_quote_header(lines, i)
        if header:
            i += header
            continue
        if _outlook_block(lines, i):
            end = _header_block_end(lines, i)
            if end > i and _heads_a_quote(lines, end):
                i = end
                continue
            break
        if _CUT_LINE.match(line):
            break
        if _SIGNATURE.match(line) and line.strip() not in ("",):
            # A signature ends the sender's words, but a bottom-poster's quote may
            # sit above it: everything after is theirs or quoted, never a command.
            break
        kept.append(line)
        i += 1
    return "\n".join(kept).strip()


def new_text(text: str) -> str:
    """What the sender wrote in a reply, above or below the quote."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    try:
        by_library = str(_reply_parser.parse_reply(text=text) or "")
    except Exception:  # the library's regexes on odd input: our own rules still apply
        by_library = ""
    ours = strip_quotes(text)
    theirs = strip_quotes(by_library) if by_library.strip() else ""
    # The library only takes away; when its answer has a line our own reading
    # lacks, it cut a quote header in two (it reads French headers that way, and
    # keeps nothing of a bottom-posted reply): then our own reading stands.
    if theirs and set(theirs.split("\n")) <= set(ours.split("\n")):
        return theirs
    return ours
