"""Replies that a person reads without trouble, in the shapes real clients send
(fixtures/reply_shapes/, written for these tests): each is read for the move
its sender wrote and, delivered to a game, plays it. Italian and Latvian
replies among them: their quote headers, phone signatures and auto-replies."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.notifications.email_helpers import start_game
from tests.notifications.inbound.mail_helpers import authentication_results, receive

from games.models import Game, Move, Seat
from notifications.inbound import CommandKind, command_from_text, inbound_parse, new_text
from notifications.inbound.message import DROP_AUTO_REPLY
from notifications.inbound.reply_tokens import reply_token_for
from notifications.inbound.text import flowed_decode, html_to_text, strip_quotes
from notifications.models import InboundMessage

SHAPES = Path(__file__).parent / "fixtures" / "reply_shapes"
DOMAIN = "reply.splendor.test"
TOKEN = b"12-0123456789abcdef01234567"
Status = InboundMessage.Status

# fixture -> (the move as read, the move the game then shows)
MOVES = {
    "move_above_quoted_attribution.eml": ("take white blue green", "take WUG"),
    "move_above_attribution.eml": ("take 2 red", "take RR"),
    "iphone_flowed_signature.eml": ("Take 2 red", "take RR"),
    "android_flowed_soft_breaks.eml": ("take white blue green", "take WUG"),
    "header_block_above_the_quote.eml": ("take white blue green", "take WUG"),
    "thunderbird_html_cite_prefix.eml": ("take white blue green", "take WUG"),
    "zero_width_characters.eml": ("take white blue green", "take WUG"),
    "italian_iphone_flowed.eml": ("Take 2 red", "take RR"),
    "italian_gmail_header_under_the_move.eml": ("take white blue green", "take WUG"),
    "italian_outlook_android.eml": ("take W U G", "take WUG"),
    "latvian_iphone_flowed.eml": ("take 2 red", "take RR"),
    "latvian_android_flowed.eml": ("take white blue green", "take WUG"),
    "latvian_gmail_header_under_the_move.eml": ("take 2 red", "take RR"),
}
# fixture -> (the reader's language, the move in the sender's own words)
NATIVE_MOVES = {
    "italian_words_iphone_flowed.eml": ("it", "prendi bianco blu verde"),
    "latvian_words_gmail.eml": ("lv", "ņem baltu zilu zaļu"),
}
AUTO_REPLIES = ("italian_auto_reply_subject.eml", "latvian_auto_reply_subject.eml")
QUOTE = "> It is your turn in game g7Qk2xPa.\n>\n> Some moves you could play:\n>   buy 1-07\n>   take WUG\n"


def _read(name: str) -> Any:
    return inbound_parse((SHAPES / name).read_bytes(), reply_domain=DOMAIN)


def _message(body: str, *, subject: str = "Re: Your turn", content_type: str = "text/plain; charset=utf-8") -> Any:
    raw = (
        "From: Bob <bob@example.com>\r\nTo: play+12-0123456789abcdef01234567@reply.splendor.test\r\n"
        f"Subject: {subject}\r\nMessage-ID: <shape@example.com>\r\nMIME-Version: 1.0\r\n"
        f"Content-Type: {content_type}\r\nContent-Transfer-Encoding: 8bit\r\n\r\n" + body.replace("\n", "\r\n")
    )
    return inbound_parse(raw.encode("utf-8"), reply_domain=DOMAIN)


def test_every_reply_shape_fixture_has_an_expected_outcome() -> None:
    assert {path.name for path in SHAPES.glob("*.eml")} == set(MOVES) | set(NATIVE_MOVES) | set(AUTO_REPLIES)


@pytest.mark.parametrize("name", sorted(MOVES))
def test_each_reply_shape_is_read_as_the_move_its_sender_wrote(name: str) -> None:
    parsed = _read(name)
    assert parsed.drop_reason == ""
    assert parsed.seat_token == TOKEN.decode() and parsed.answers_version == 7
    assert (parsed.command.kind, parsed.command.argument) == (CommandKind.MOVE, MOVES[name][0]), parsed.text
    for example in ("buy 1-07", "take WUG", "reserve 2-13", "Some moves you could play", "wrote", "Sent from"):
        assert example not in parsed.text


@pytest.mark.parametrize("name", sorted(NATIVE_MOVES))
def test_a_move_in_italian_or_latvian_words_is_what_is_read_from_its_reply(name: str) -> None:
    language, move = NATIVE_MOVES[name]
    parsed = _read(name)
    assert parsed.drop_reason == "" and parsed.text == move
    command = command_from_text(parsed.text, subject=parsed.subject, languages=("en", language))
    assert (command.kind, command.argument) == (CommandKind.MOVE, move)


@pytest.mark.parametrize(
    "body",
    [
        "prendi 2 rossi\n\nDomani sono fuori ufficio: gioco la sera.\n",
        "ņem divus sarkanus\n\nRīt neesmu birojā, spēlēšu vakarā.\n",
    ],
)
def test_a_move_in_italian_or_latvian_on_the_first_line_is_a_persons_not_an_out_of_office_answer(body: str) -> None:
    assert _message(body).drop_reason == ""


@pytest.mark.parametrize("name", AUTO_REPLIES)
def test_italian_and_latvian_auto_replies_are_dropped_unanswered(name: str) -> None:
    assert _read(name).drop_reason == DROP_AUTO_REPLY


def _deliver(commit: Any, game: Game, name: str) -> InboundMessage | None:
    game.refresh_from_db()
    seat = Seat.objects.select_related("user").get(game=game, index=game.to_move)
    raw = (SHAPES / name).read_bytes().replace(TOKEN, reply_token_for(seat=seat).encode())
    raw = raw.replace(b"bob@example.com", seat.user.email.encode()).replace(b".v7@", f".v{game.version}@".encode())
    # As the trusted mail host would have checked the player's own mail.
    return receive(commit, authentication_results(seat.user.email).encode() + b"\r\n" + raw)


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(MOVES))
def test_each_reply_shape_delivered_to_the_seat_to_move_plays_its_move(
    name: str, clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    inbound = _deliver(commit, game, name)
    assert inbound is not None
    assert inbound.status == Status.APPLIED, inbound.outcome
    assert list(Move.objects.filter(game=game).values_list("text", flat=True)) == [MOVES[name][1]]


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(NATIVE_MOVES))
def test_a_reply_in_the_players_own_words_delivered_to_the_seat_to_move_plays_its_move(
    name: str, clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    game.refresh_from_db()
    player = Seat.objects.select_related("user__player").get(game=game, index=game.to_move).user.player
    player.language = NATIVE_MOVES[name][0]
    player.save(update_fields=["language"])
    inbound = _deliver(commit, game, name)
    assert inbound is not None
    assert inbound.status == Status.APPLIED, inbound.outcome
    assert list(Move.objects.filter(game=game).values_list("text", flat=True)) == ["take WUG"]


@pytest.mark.django_db
@pytest.mark.parametrize("name", AUTO_REPLIES)
def test_an_italian_or_latvian_auto_reply_delivered_to_a_game_plays_nothing(
    name: str, clock: Any, commit: Any, alice: Any, bob: Any
) -> None:
    game = start_game(commit, alice, bob)
    inbound = _deliver(commit, game, name)
    assert inbound is not None and inbound.status == Status.DROPPED
    assert not Move.objects.filter(game=game).exists()


# --- The move right above a quote header -------------------------------------------


@pytest.mark.parametrize(
    "header",
    [
        "On Mon, 2 Mar 2026 at 09:00, Splendor <play@reply.splendor.test> wrote:",
        "> On Mon, 2 Mar 2026 at 09:00, Splendor <play@reply.splendor.test> wrote:",
        "Il giorno lun 2 mar 2026 alle ore 09:00 Splendor <play@reply.splendor.test> ha scritto:",
        "> Il giorno 2 mar 2026, alle ore 09:00, Splendor <play@reply.splendor.test> ha scritto:",
        "pirmd., 2026. g. 2. marts, plkst. 09:00 — lietotājs Splendor (<play@reply.splendor.test>) rakstīja:",
        "2026. gada 2. marts, plkst. 09:00, Splendor <play@reply.splendor.test> rakstīja:",
    ],
)
def test_the_line_right_above_a_quote_header_is_the_senders_not_part_of_the_header(header: str) -> None:
    assert new_text(f"take 2 red\n{header}\n{QUOTE}") == "take 2 red"


def test_a_quote_header_wrapped_onto_two_lines_is_still_one_header() -> None:
    text = f"take 2 red\n\nOn Mon, 2 Mar 2026 at 09:00, Splendor by post\n<play@reply.splendor.test> wrote:\n{QUOTE}"
    assert strip_quotes(text) == "take 2 red"


# --- format=flowed (RFC 3676) --------------------------------------------------------


def test_flowed_text_with_delsp_joins_a_word_broken_at_a_soft_break() -> None:
    assert flowed_decode("reserve de \nck 3", delsp=True) == "reserve deck 3"
    assert flowed_decode("reserve \ndeck 3", delsp=False) == "reserve deck 3"


def test_flowed_lines_of_two_quote_depths_are_never_joined() -> None:
    decoded = flowed_decode("take 2 red \n> buy 1-07 \n> please\n>> take WUG", delsp=False)
    assert decoded.split("\n") == ["take 2 red ", "> buy 1-07 please", ">> take WUG"]


@pytest.mark.parametrize(
    "signature",
    [
        "Sent from my iPhone",
        "Inviato da iPhone",
        "Inviato dal mio iPhone",
        "Inviato da Outlook per Android",
        "Nosūtīts no mana iPhone",
        "Nosūtīts no mana Android tālruņa",
        "-- ",
    ],
)
def test_a_soft_break_before_a_signature_is_read_as_the_line_break_it_was(signature: str) -> None:
    assert flowed_decode(f"take 2 red \n{signature}", delsp=True).split("\n") == ["take 2 red", signature]
    assert new_text(flowed_decode(f"take 2 red \n{signature}\nbuy 1-07", delsp=False)) == "take 2 red"


# --- Signatures, quote blocks and auto-replies in Italian and Latvian -------------


@pytest.mark.parametrize(
    "signature",
    [
        "Inviato da iPhone",
        "Inviato dal mio iPhone",
        "Inviato da Outlook per Android",
        "Nosūtīts no mana iPhone",
        "Nosūtīts no mana Android tālruņa",
    ],
)
def test_an_italian_or_latvian_phone_signature_ends_the_senders_words(signature: str) -> None:
    assert new_text(f"take 2 red\n\n{signature}\n\ntake WUG") == "take 2 red"


@pytest.mark.parametrize(
    "block",
    [
        "-----Sākotnējais ziņojums-----\nNo: Splendor\nNosūtīts: pirmdiena, 2026. gada 2. martā 09:00\n",
        "No: Splendor <play@reply.splendor.test>\nDatums: 02.03.2026 09:00\nKam: Bob\n",
        "-----Messaggio originale-----\nDa: Splendor\nInviato: lunedì 2 marzo 2026 09:00\n",
    ],
)
def test_a_latvian_or_italian_original_message_block_cuts_the_quoted_turn_email(block: str) -> None:
    assert new_text(f"take 2 red\n\n{block}\nIt is your turn.\n  buy 1-07\n  take WUG\n") == "take 2 red"


@pytest.mark.parametrize(
    "subject",
    [
        "Risposta automatica: Your turn",
        "Fuori sede: Your turn",
        "Fuori ufficio",
        "Assente: Re: Your turn",
        "Automātiskā atbilde: Your turn",
        "Automatiska atbilde: Your turn",
        "Prombūtnē: Your turn",
        "Nav birojā",
    ],
)
def test_an_italian_or_latvian_auto_reply_subject_is_an_auto_reply(subject: str) -> None:
    assert _message("take 2 red\n", subject=subject).drop_reason == DROP_AUTO_REPLY


@pytest.mark.parametrize("subject", ["Re: Your turn", "Re: Assenteismo", "R: Fuori ufficiale", "Re: Navigācija"])
def test_a_subject_that_only_begins_like_an_auto_reply_word_is_not_one(subject: str) -> None:
    assert _message("take 2 red\n", subject=subject).drop_reason == ""


@pytest.mark.parametrize(
    "body",
    [
        "Sono assente fino al 9 marzo, con accesso limitato alla posta.\n\nTake 2 red\n",
        "Esmu atvaļinājumā līdz 9. martam.\n\nTake 2 red\n",
        "Paldies! Šobrīd neesmu birojā.\n",
    ],
)
def test_an_italian_or_latvian_out_of_office_body_without_headers_is_an_auto_reply(body: str) -> None:
    assert _message(body).drop_reason == DROP_AUTO_REPLY


# --- A header block copied above the quote ------------------------------------------


HEADERS = "From: Splendor by post <play@reply.splendor.test>\nDate: Monday, 2 March 2026 at 09:00\n"
HEADERS += "To: Bob <bob@example.com>\nSubject: Your turn in game g7Qk2xPa\n"


def test_a_header_block_above_a_quote_is_dropped_and_the_move_below_the_quote_read() -> None:
    assert strip_quotes(f"{HEADERS}\n{QUOTE}\ntake 2 red\n") == "take 2 red"


def test_a_header_block_above_an_unmarked_original_still_cuts_it_so_its_example_moves_never_play() -> None:
    parsed = _message(f"{HEADERS}\nIt is your turn in game g7Qk2xPa.\nSome moves you could play:\n  buy 1-07\n")
    assert parsed.command.kind is CommandKind.EMPTY


def test_a_top_posted_move_above_a_header_block_is_read_and_the_original_under_it_cut() -> None:
    assert new_text(f"take 2 red\n\n{HEADERS}\nIt is your turn.\n  buy 1-07\n") == "take 2 red"


# --- Thunderbird's attribution block (moz-cite-prefix) ------------------------------


BLOCKQUOTE = '<blockquote type="cite">It is your turn.<br>buy 1-07<br>take WUG</blockquote>'


@pytest.mark.parametrize(
    "prefix",
    [
        '<div class="moz-cite-prefix">take 2 red<br>On 02/03/2026 09:00, Splendor by post wrote:<br></div>',
        '<div class="moz-cite-prefix">take 2 red On 02/03/2026 09:00, Splendor by post wrote:<br></div>',
        '<div class="moz-cite-prefix">take 2 red Il 02/03/26 09:00, Splendor by post ha scritto:<br></div>',
        '<div class="moz-cite-prefix">take 2 red<br>02.03.2026 09:00, Splendor by post rakstīja:<br></div>',
        '<p>take 2 red</p><div class="moz-cite-prefix">On 02/03/2026 09:00, Splendor by post wrote:<br></div>',
        '<div class="moz-cite-prefix">On 02/03/2026 09:00, Splendor by post wrote:<br></div>take 2 red<br>',
    ],
)
def test_thunderbirds_attribution_is_dropped_and_the_words_in_or_beside_its_block_kept(prefix: str) -> None:
    assert new_text(html_to_text(f"<html><body>{prefix}{BLOCKQUOTE}</body></html>")) == "take 2 red"


def test_an_attribution_block_alone_leaves_no_words() -> None:
    html = '<div class="moz-cite-prefix">On 02/03/2026 09:00, Splendor by post wrote:<br></div>' + BLOCKQUOTE
    assert html_to_text(html) == ""


# --- Invisible characters -----------------------------------------------------------------


@pytest.mark.parametrize("character", ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"])
def test_zero_width_characters_around_the_words_are_not_read(character: str) -> None:
    body = f"{character}take{character} 2 red{character}\n{character}\nOn Mon, 2 Mar 2026, Splendor wrote:{character}\n"
    assert _message(body + QUOTE).command.argument == "take 2 red"


@pytest.mark.parametrize("character", ["\u200b", "\u2060", "\ufeff"])
def test_a_zero_width_character_after_a_soft_breaks_space_keeps_the_break_soft(character: str) -> None:
    parsed = _message(f"take 2 {character}\nred\n", content_type="text/plain; charset=utf-8; format=flowed")
    assert parsed.command.argument == "take 2 red"


def test_a_zero_width_character_after_thunderbirds_attribution_still_drops_it() -> None:
    html = '<div class="moz-cite-prefix">take 2 red<br>On 02/03/2026, Splendor wrote:&#8203;<br></div>' + BLOCKQUOTE
    assert html_to_text(html) == "take 2 red"
