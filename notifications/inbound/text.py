"""The words a sender wrote: a message's text, with quoted history and
signatures taken away.

A reply's quoted history holds the turn email, and the turn email shows legal
moves as examples: read from the quote, they would play. So quoted text is
removed in every style we know (``>`` lines, the quote headers of Gmail,
Outlook, Apple Mail and Thunderbird in several languages, Outlook's
"From:/Sent:" block, "-----Original Message-----", HTML blockquotes), first by
``mailparser_reply`` and then by our own rules for what it misses (Latvian
headers, bottom-posted replies, phone signatures).
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
    r"Oorspronkelijk bericht|Mensaje original|Oprindelig meddelelse|Ursprungligt meddelande)\s*-{2,}"
    r"|_{10,}|Begin forwarded message:|-{5,} ?Forwarded message ?-{5,}|Anfang der weitergeleiteten Nachricht:)\s*$",
    re.IGNORECASE,
)
# Outlook's header block: "From: ..." followed within a few lines by "Sent:"/"Date:".
_FROM_LINE = re.compile(r"^\s*\*?(From|Von|Da|De|Från|Fra|Van|Od|No)\s*:\*?\s", re.IGNORECASE)
_SENT_LINE = re.compile(
    r"^\s*\*?(Sent|Date|Gesendet|Datum|Inviato|Data|Envoyé|Date|Skickat|Sendt|Verzonden|Enviado|Nosūtīts)\s*:",
    re.IGNORECASE,
)
_SIGNATURE = re.compile(
    r"^\s*(--\s*|__\s*|Sent from my .*|Sent from .* for (iOS|Android)|Get Outlook for .*|Von meinem .* gesendet|"
    r"Inviato da(l mio)? .*|Envoyé de mon .*|Enviado desde mi .*|Skickat från min .*|Sendt fra min .*)$",
    re.IGNORECASE,
)

_reply_parser = EmailReplyParser(languages=_LANGUAGES)


def flowed_decode(text: str, *, delsp: bool) -> str:
    """RFC 3676 format=flowed: join soft-broken lines (ending in a space) and
    undo space-stuffing. Quote depth is kept on each joined line."""
    out: list[str] = []
    pending: str | None = None
    for line in text.split("\n"):
        line = line.rstrip("\r")
        if line.startswith(" "):
            line = line[1:]  # space-stuffed
        if line == "-- ":
            if pending is not None:
                out.append(pending)
                pending = None
            out.append(line)
            continue
        if pending is not None:
            line = pending + line.lstrip(">").lstrip(" ") if pending.startswith(">") else pending + line
            pending = None
        if line.endswith(" "):
            pending = line[:-1] if delsp else line
            continue
        out.append(line)
    if pending is not None:
        out.append(pending)
    return "\n".join(out)


class _HtmlText(HTMLParser):
    """Text from HTML, with quoted parts (blockquotes, the quote containers of
    Gmail, Outlook, Thunderbird, Apple Mail) left out."""

    _BLOCKS = frozenset({"p", "div", "br", "tr", "li", "h1", "h2", "h3", "h4", "table", "pre", "hr"})
    _QUOTE_MARKERS = ("gmail_quote", "moz-cite-prefix", "divrplyfwdmsg", "appendonsend", "yahoo_quoted",
                      "protonmail_quote", "applemail-quote", "x_divrplyfwdmsg", "mail-quote")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip_depth = 0
        self._stack: list[tuple[str, bool]] = []

    def _is_quote(self, tag: str, attrs: list[tuple[str, str | None]]) -> bool:
        if tag == "blockquote":
            return True
        values = " ".join((value or "") for name, value in attrs if name in ("class", "id", "type")).lower()
        return any(marker in values for marker in self._QUOTE_MARKERS)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("br", "hr", "img", "meta", "link", "input"):
            if tag in ("br", "hr") and not self._skip_depth:
                self.parts.append("\n")
            return
        quote = self._is_quote(tag, attrs) or tag in ("style", "script", "head", "title")
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
                break
        if tag in self._BLOCKS and not self._skip_depth:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skip_depth:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    parser = _HtmlText()
    parser.feed(html)
    parser.close()
    text = "".join(parser.parts).replace("\xa0", " ")
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def _is_quote_header(lines: list[str], i: int) -> int:
    """How many lines starting at ``i`` make a quote header (0, 1 or 2)."""
    line = lines[i].strip()
    if not line:
        return 0
    if _QUOTE_HEADER.search(line):
        return 1
    if i + 1 < len(lines) and lines[i + 1].strip() and _QUOTE_HEADER.search(line + " " + lines[i + 1].strip()):
        # A wrapped header: the pair must end with the header's closing word.
        if lines[i + 1].rstrip().endswith(":"):
            return 2
    return 0


def _outlook_block(lines: list[str], i: int) -> bool:
    if not _FROM_LINE.match(lines[i]):
        return False
    return any(_SENT_LINE.match(line) for line in lines[i + 1 : i + 5])


def strip_quotes(text: str) -> str:
    """Our own rules: drop ``>`` lines and quote headers; cut at an original-message
    marker, an Outlook header block, or a signature."""
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
        if _CUT_LINE.match(line) or _outlook_block(lines, i):
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
