"""Every game email, reminder and digest is written in its recipient's language
(``Player.language``): subject, text and HTML, counts in the plural form the
language needs (Latvian has three) and dates as the language writes them, in
the recipient's time zone. Move notation stays as the rules write it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.core import mail
from django.template.loader import render_to_string
from django.utils import translation

from accounts.models import Player
from games import moderation, services
from games.models import Game, Seat
from notifications.email.render import RenderedEmail, email_render
from notifications.models import Notification
from notifications.reminders.emails import time_left_text, timeout_policy_text
from tests.games.game_helpers import make_player, start_two_player_game
from tests.notifications.email_helpers import add_event, headline_of, html_of, mail_to, play, start_game, user_to_move

# A Tuesday in December: the first deadline (72 hours on) is Friday 4 December.
DECEMBER = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)

# Sentences of the English emails that no Italian or Latvian email may keep.
ENGLISH = (
    "Hello",
    "Stop all game email",
    "You get this email because",
    "It is your turn",
    "Your turn",
    "Some moves you could play",
    "Play at",
    "Play by",
    "reply to this email",
    "invites you",
    "Accept or decline",
    "left to move",
    "waiting on",
    "A moderator",
    "will not be played",
    "are paused",
    "More time",
    "handed on",
    "warned you",
    "suspended",
    " hours",
    " days",
    "December",
    "Friday",
)


@pytest.fixture
def december() -> Iterator[Any]:
    with time_machine.travel(DECEMBER, tick=False) as traveller:
        yield traveller


def speaks(user: Any, language: str, zone: str) -> Any:
    Player.objects.filter(user=user).update(language=language, time_zone=zone)
    user.player.refresh_from_db()
    return user


@pytest.fixture
def italian(alice: Any) -> Any:
    return speaks(alice, "it", "Europe/Rome")


@pytest.fixture
def latvian(bob: Any) -> Any:
    return speaks(bob, "lv", "Europe/Riga")


def only_mail_to(user: Any) -> Any:
    [message] = mail_to(user)
    return message


def assert_no_english(*texts: str) -> None:
    for text in texts:
        left = [sentence for sentence in ENGLISH if sentence in text]
        assert not left, (left, text)


def rendered(kind: str, user: Any, game: Game | None = None, key: str = "", **fields: Any) -> RenderedEmail:
    notification = Notification.objects.create(
        kind=kind, user=user, game=game, key=key or f"test:{kind}:{user.pk}:{Notification.objects.count()}", **fields
    )
    return email_render(Notification.objects.select_related("user__player", "game", "event").get(pk=notification.pk))


def both(message: Any) -> str:
    return f"{message.subject}\n{message.body}\n{html_of(message)}"


def first_line(text: str) -> str:
    """What happened, as a rendered email about a game says it first."""
    return text.split("\n", 1)[0]


# --- invitations and turns ---------------------------------------------------------------


def test_an_invitation_to_an_italian_player_is_in_italian(
    italian: Any, bob: Any, commit: Any, december: Any
) -> None:
    with commit():
        services.game_create(creator=bob, variant="base", seats=2, invited=[italian])
    message = only_mail_to(italian)
    assert headline_of(message) == "Bob ti invita a una partita di Splendor"
    assert "Ciao Alice," in message.body
    assert "ti invita a una partita di Splendor a 2 giocatori" in message.body
    assert "Accetta o rifiuta" in html_of(message)
    assert "Ferma tutte le email di gioco" in message.body
    assert_no_english(both(message))


def test_an_invitation_to_a_latvian_player_is_in_latvian(alice: Any, latvian: Any, commit: Any, december: Any) -> None:
    with commit():
        services.game_create(creator=alice, variant="base", seats=2, invited=[latvian])
    message = only_mail_to(latvian)
    assert headline_of(message) == "Alice tevi ielūdz uz Splendor spēli"
    assert "Sveiki, Bob!" in message.body
    assert "Pieņem vai noraidi šeit:" in message.body
    assert_no_english(both(message))


def test_the_turn_emails_are_each_in_their_recipients_language_with_the_move_in_their_words(
    italian: Any, latvian: Any, commit: Any, december: Any
) -> None:
    game = start_game(commit, italian, latvian)
    mover = user_to_move(game)
    mail.outbox.clear()
    play(commit, game, "take WUG")
    waiting = user_to_move(game)
    message = only_mail_to(waiting)
    name = mover.player.display_name
    if waiting == italian:
        assert message.subject == f"Splendor — partita {game.pk}"
        assert headline_of(message) == f"Tocca a te nella partita {game.pk}: {name} ha giocato prendi bianco, blu e verde"
        assert f"Tocca a te nella partita {game.pk} (Splendor)." in message.body
        assert "Alcune mosse che potresti giocare:" in message.body
        assert "ha giocato <code" in html_of(message)
    else:
        assert message.subject == f"Splendor — spēle {game.pk}"
        assert headline_of(message) == f"Tavs gājiens spēlē {game.pk}: {name} izdarīja ņem baltu, zilu un zaļu"
        assert f"Ir tavs gājiens spēlē {game.pk} (Splendor)." in message.body
        assert "Daži gājieni, ko tu varētu izdarīt:" in message.body
    assert_no_english(message.subject, message.body.split("\n\n")[0], message.body.split("\n\n")[1])


def test_the_deadline_of_a_turn_is_written_in_the_recipients_language_and_time_zone(
    italian: Any, latvian: Any, commit: Any, december: Any
) -> None:
    game = start_game(commit, italian, latvian)
    first = user_to_move(game)
    message = mail_to(first)[-1]
    if first == italian:
        assert "Gioca entro venerdì 4 dicembre 2026, 10:00 (Europe/Rome)." in message.body
    else:
        assert "Gājiena termiņš: piektdiena, 2026. gada 4. decembris, 11:00 (Europe/Riga)." in message.body
    assert "December" not in both(message)


# --- reminders and the digest -----------------------------------------------------------


@pytest.mark.parametrize(
    ("hours", "words"),
    [(1, "1 stunda"), (2, "2 stundas"), (11, "11 stundu"), (21, "21 stunda"), (48, "2 dienas")],
)
def test_a_latvian_reminder_counts_its_hours_in_the_form_the_number_needs(hours: int, words: str) -> None:
    with translation.override("lv"):
        assert time_left_text(timedelta(hours=hours)) == words


def test_an_italian_reminder_counts_hours_and_minutes() -> None:
    with translation.override("it"):
        assert time_left_text(timedelta(hours=1)) == "1 ora"
        assert time_left_text(timedelta(hours=5, minutes=1)) == "5 ore e 1 minuto"
        assert time_left_text(timedelta(days=3, hours=2)) == "3 giorni e 2 ore"


@pytest.mark.parametrize(("hours", "words"), [(1, "1 stunda"), (2, "2 stundas"), (11, "11 stundu")])
def test_a_reminder_to_a_latvian_player_is_in_latvian(
    hours: int, words: str, alice: Any, latvian: Any, commit: Any, december: Any
) -> None:
    game = start_game(commit, alice, latvian)
    if user_to_move(game) != latvian:
        play(commit, game, "take WUG")
    game.refresh_from_db()
    assert game.deadline_at is not None
    december.move_to(game.deadline_at - timedelta(hours=hours))
    email = rendered("reminder", latvian, game)
    assert email.subject == f"Splendor — spēle {game.pk}"
    assert first_line(email.text) == f"Spēle {game.pk}: gājienam atlikušais laiks — {words}"
    assert f"Joprojām ir tavs gājiens spēlē {game.pk} (Splendor); atlikušais laiks: {words}." in email.text
    assert "Tavs termiņš: " in email.text and "decembris" in email.text
    assert "Ja līdz tam gājiens nebūs izdarīts" in email.text
    assert_no_english(email.subject, email.text.split("\n\n")[0], email.text.split("\n\n")[2], email.html.split("<table")[0])


def test_a_reminder_to_an_italian_player_is_in_italian(
    italian: Any, bob: Any, commit: Any, december: Any
) -> None:
    game = start_game(commit, italian, bob)
    if user_to_move(game) != italian:
        play(commit, game, "take WUG")
    game.refresh_from_db()
    assert game.deadline_at is not None
    december.move_to(game.deadline_at - timedelta(hours=2))
    email = rendered("reminder", italian, game)
    assert email.subject == f"Splendor — partita {game.pk}"
    assert first_line(email.text) == f"Ancora 2 ore per muovere nella partita {game.pk}"
    assert "dicembre" in email.text and "Oppure rispondi a questa email" in email.html
    assert_no_english(email.subject, email.text.split("\n\n")[0], email.text.split("\n\n")[2])


def test_the_timeout_policy_counts_in_latvian() -> None:
    class Policy:
        forfeit_after = 3

    class SeatWith:
        def __init__(self, in_a_row: int) -> None:
            self.consecutive_timeouts = in_a_row

    with translation.override("lv"):
        assert "Pēc 3 nokavētiem termiņiem pēc kārtas" in timeout_policy_text(Policy(), SeatWith(0))  # type: ignore[arg-type]
        assert "Jau 2 termiņi pēc kārtas" in timeout_policy_text(Policy(), SeatWith(2))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("language", "zone", "games_line", "month"),
    [
        ("it", "Europe/Rome", "partite aspettano la tua mossa:", "dicembre"),
        ("lv", "Europe/Riga", "spēles gaida tavu gājienu:", "decembris"),
    ],
)
def test_the_digest_is_in_its_recipients_language(
    language: str, zone: str, games_line: str, month: str, alice: Any, bob: Any, charlie: Any, december: Any
) -> None:
    reader = speaks(alice, language, zone)
    for other in (bob, charlie):
        game = start_two_player_game(reader, other)
        if user_to_move(game) != reader:
            services.move_submit(game_id=game.pk, user=other, text="take WUG", expected_version=game.version)
    email = rendered("digest", reader)
    assert email.subject.startswith("2 ")
    assert f"2 {games_line}" in email.text and month in email.text
    assert_no_english(email.subject, email.text, email.html)


def test_a_digest_of_one_game_in_latvian_says_one_game() -> None:
    with translation.override("lv"):
        one, two, eleven = (
            render_to_string("notifications/email/digest_subject.txt", {"count": count}).strip() for count in (1, 2, 11)
        )
    assert (one, two, eleven) == ("1 spēle gaida tevi", "2 spēles gaida tevi", "11 spēļu gaida tevi")


# --- the clock, cancellations and the moderators' emails ----------------------------------


def test_a_cancelled_game_tells_the_invitees_in_their_language(
    alice: Any, italian_bob: Any, latvian_charlie: Any, commit: Any, december: Any
) -> None:
    with commit():
        game = services.game_create(creator=alice, variant="base", seats=3, invited=[italian_bob, latvian_charlie])
    mail.outbox.clear()
    with commit():
        services.game_cancel(game_id=game.pk, user=alice)
    italian_mail, latvian_mail = only_mail_to(italian_bob), only_mail_to(latvian_charlie)
    assert headline_of(italian_mail) == f"La partita {game.pk} è stata annullata"
    assert f"La partita {game.pk} di Splendor non si giocherà: Alice l'ha annullata." in italian_mail.body
    assert headline_of(latvian_mail) == f"Spēle {game.pk} ir atcelta"
    assert f"Splendor spēle {game.pk} nenotiks: Alice to atcēla." in latvian_mail.body
    assert_no_english(both(italian_mail), both(latvian_mail))


@pytest.fixture
def italian_bob(bob: Any) -> Any:
    return speaks(bob, "it", "Europe/Rome")


@pytest.fixture
def latvian_charlie(charlie: Any) -> Any:
    return speaks(charlie, "lv", "Europe/Riga")


@pytest.mark.parametrize(
    ("language", "zone", "headline", "sentence"),
    [
        (
            "it",
            "Europe/Rome",
            "Le tue partite sono in pausa fino a giovedì 3 dicembre 2026, 10:00 (Europe/Rome)",
            "quindi è stato preso per te un giorno di vacanza",
        ),
        (
            "lv",
            "Europe/Riga",
            "Tavas spēles ir apturētas līdz: ceturtdiena, 2026. gada 3. decembris, 11:00 (Europe/Riga)",
            "tāpēc tev tika izmantota viena atvaļinājuma diena",
        ),
    ],
)
def test_a_vacation_is_told_in_the_players_language_with_its_end_in_their_zone(
    language: str, zone: str, headline: str, sentence: str, alice: Any, bob: Any, commit: Any, december: Any
) -> None:
    game = start_game(commit, alice, bob)
    reader = speaks(alice, language, zone)
    until = (DECEMBER + timedelta(days=2)).isoformat()
    event = add_event(
        game, "clock_paused", {"reason": "vacation", "user_id": reader.pk, "until": until, "automatic": True}
    )
    email = rendered("vacation", reader, game, event=event)
    assert first_line(email.text) == headline
    assert sentence in email.text and sentence in email.html
    assert_no_english(email.subject, email.text, email.html)


@pytest.fixture
def moderator(db: None) -> Any:
    return make_player("mona")


def test_more_time_from_a_moderator_is_told_in_latvian_with_the_hours_counted(
    alice: Any, bob: Any, commit: Any, moderator: Any, december: Any
) -> None:
    game = start_game(commit, alice, bob)
    mover = speaks(user_to_move(game), "lv", "Europe/Riga")
    mail.outbox.clear()
    with commit():
        moderation.moderation_deadline_extend(game_id=game.pk, by_user=moderator, reason="Elektrības pārrāvums.", hours=1)
    message = only_mail_to(mover)
    assert headline_of(message) == f"Vairāk laika tavam gājienam spēlē {game.pk}"
    assert f"Moderators tev deva vēl 1 stundu tavam gājienam spēlē {game.pk} (Splendor)." in message.body
    assert "Tava gājiena jaunais termiņš: " in message.body and "decembris" in message.body
    assert_no_english(both(message))


def test_a_handed_on_seat_is_told_in_italian_to_both_players(
    alice: Any, italian_bob: Any, charlie: Any, commit: Any, moderator: Any, december: Any
) -> None:
    game = start_game(commit, alice, italian_bob)
    speaks(charlie, "it", "Europe/Rome")
    index = Seat.objects.get(game=game, user=italian_bob).index
    mail.outbox.clear()
    with commit():
        moderation.moderation_seat_replace(
            game_id=game.pk, seat_index=index, by_user=moderator, reason="Bob asked to leave.", new_user=charlie
        )
    gone = only_mail_to(italian_bob)
    assert headline_of(gone) == f"Il tuo posto nella partita {game.pk} è stato affidato ad altri"
    assert "a Charlie." in gone.body and "Non giochi più in questa partita" in gone.body
    taking = [m for m in mail_to(charlie) if "Ora giochi" in headline_of(m)]
    assert [headline_of(m) for m in taking] == [f"Ora giochi il posto {index} nella partita {game.pk}"]
    assert_no_english(both(gone), both(taking[0]))


@pytest.mark.parametrize(
    ("language", "subject", "sentence"),
    [
        ("it", "Un avvertimento dai moderatori", "Un moderatore ti ha dato un avvertimento per la partita"),
        ("lv", "Brīdinājums no moderatoriem", "Moderators tev izteica brīdinājumu par spēli"),
    ],
)
def test_a_moderators_warning_is_in_the_players_language(
    language: str, subject: str, sentence: str, alice: Any, bob: Any, commit: Any, moderator: Any, december: Any
) -> None:
    game = start_game(commit, alice, bob)
    speaks(bob, language, "Europe/Riga")
    mail.outbox.clear()
    with commit():
        moderation.moderation_player_warn(user=bob, by_user=moderator, reason="Stalling.", game_id=game.pk)
    message = only_mail_to(bob)
    assert message.subject == subject
    assert sentence in message.body and "Stalling." in message.body
    assert "dicembre" in message.body if language == "it" else "decembris" in message.body
    assert_no_english(both(message))


def test_a_suspension_is_told_in_latvian(bob: Any, commit: Any, moderator: Any, december: Any) -> None:
    speaks(bob, "lv", "Europe/Riga")
    with commit():
        moderation.moderation_player_suspend(user=bob, by_user=moderator, reason="Rupjas atbildes.")
    message = only_mail_to(bob)
    assert message.subject == "Tavs konts ir apturēts"
    assert "Moderators apturēja tavu kontu" in message.body and "Moderators <strong>apturēja tavu kontu</strong>" in html_of(
        message
    )
    assert_no_english(both(message))


def test_english_stays_the_language_of_a_player_who_chose_no_other(
    alice: Any, bob: Any, commit: Any, december: Any
) -> None:
    with commit():
        game = services.game_create(creator=alice, variant="base", seats=2, invited=[bob])
    message = only_mail_to(bob)
    assert message.subject == f"Splendor — game {game.pk}"
    assert headline_of(message) == "Alice invites you to a game of Splendor"
    assert "Hello Bob," in message.body and "(72 hours per move)" in message.body
