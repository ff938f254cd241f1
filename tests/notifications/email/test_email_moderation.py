"""What a moderator's actions email: more time to the player to move, a handed-on
seat to the player who takes it and the one who leaves it, an adjudicated result
in the one game_over email, and a warning or suspension to the player (even with
game email turned off). None of them shows a card a recipient may not see."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from tests.notifications.email_helpers import (
    everything_in,
    headline_of,
    mail_to,
    play,
    start_game,
    subjects_to,
    user_to_move,
)

from accounts.models import Player
from games import moderation
from games.models import Game, GameEvent, Move, Seat
from notifications.email.game_events import event_handle
from notifications.models import Notification, Preferences
from tests.games.game_helpers import make_player

pytestmark = pytest.mark.usefixtures("clock")


@pytest.fixture
def moderator(db: None) -> Any:
    return make_player("mona")


def other_than(game: Game, user: Any) -> Any:
    return Seat.objects.select_related("user").exclude(user=user).get(game=game).user


def index_of(game: Game, user: Any) -> int:
    index = Seat.objects.get(game=game, user=user).index
    assert index is not None
    return index


def test_more_time_emails_the_player_to_move_the_new_deadline_in_their_time_zone(
    alice: Any, bob: Any, commit: Any, moderator: Any
) -> None:
    game = start_game(commit, alice, bob)
    mover = user_to_move(game)
    Player.objects.filter(user=mover).update(time_zone="Europe/Paris")
    mail.outbox.clear()
    with commit():
        moderation.moderation_deadline_extend(game_id=game.pk, by_user=moderator, reason="Power cut.", hours=5)
    game.refresh_from_db()
    assert game.deadline_at is not None
    [message] = mail_to(mover)
    assert headline_of(message) == f"More time for your move in game {game.pk}"
    paris = game.deadline_at.astimezone(__import__("zoneinfo").ZoneInfo("Europe/Paris"))
    assert f"{paris:%H:%M} (Europe/Paris)" in message.body
    assert "5 more hours" in message.body
    assert mail_to(other_than(game, mover)) == []


def test_more_time_for_a_turn_already_played_sends_nothing(alice: Any, bob: Any, commit: Any) -> None:
    game = start_game(commit, alice, bob)
    mover = user_to_move(game)
    event = GameEvent.objects.create(
        game=game,
        kind=GameEvent.Kind.DEADLINE_EXTENDED,
        payload={"seat": index_of(game, mover), "user_id": mover.pk, "hours": 2, "deadline_at": None},
    )
    play(commit, game)
    mail.outbox.clear()
    with commit():
        event_handle(event)
    assert mail.outbox == []


def test_a_handed_on_seat_tells_the_new_player_their_seat_and_link_and_the_old_player_it_is_gone(
    alice: Any, bob: Any, charlie: Any, commit: Any, moderator: Any
) -> None:
    game = start_game(commit, alice, bob)
    index = index_of(game, bob)
    mail.outbox.clear()
    with commit():
        seat = moderation.moderation_seat_replace(
            game_id=game.pk, seat_index=index, by_user=moderator, reason="Bob asked to leave.", new_user=charlie
        )
    taking = [m for m in mail_to(charlie) if "You now play" in headline_of(m)]
    assert [headline_of(m) for m in taking] == [f"You now play seat {index} in game {game.pk}"]
    assert f"/games/{game.pk}/?seat=" in taking[0].body
    assert taking[0].reply_to  # a seat's email: replies play it
    [gone] = mail_to(bob)
    assert headline_of(gone) == f"Your seat in game {game.pk} was handed on"
    assert "Charlie" in gone.body and "?seat=" not in everything_in(gone)
    assert gone.reply_to == []
    assert seat.link_key not in everything_in(gone)


def test_a_seat_handed_to_the_bot_tells_the_player_who_left(
    alice: Any, bob: Any, commit: Any, moderator: Any
) -> None:
    game = start_game(commit, alice, bob)
    mail.outbox.clear()
    with commit():
        moderation.moderation_seat_replace(
            game_id=game.pk, seat_index=index_of(game, bob), by_user=moderator, reason="Gone for good.", bot=True
        )
    gone = [m for m in mail_to(bob) if "handed on" in headline_of(m)]
    assert len(gone) == 1 and "the built-in bot" in gone[0].body


def test_an_adjudicated_game_sends_each_player_one_game_over_email_saying_a_moderator_decided(
    alice: Any, bob: Any, commit: Any, moderator: Any
) -> None:
    game = start_game(commit, alice, bob)
    mail.outbox.clear()
    with commit():
        moderation.moderation_game_adjudicate(game_id=game.pk, by_user=moderator, reason="Abandoned.", places=[1, 2])
    for player in (alice, bob):
        [message] = mail_to(player)
        assert headline_of(message).startswith(f"Game {game.pk} is over (decided by a moderator)")
        assert "A moderator decided this result" in message.body
        assert "A moderator decided this result" in everything_in(message).split(message.body, 1)[1]  # the HTML too
    assert mail_to(moderator) == []


def test_an_ordinary_game_over_says_nothing_of_a_moderator(alice: Any, bob: Any, commit: Any) -> None:
    from games import services

    game = start_game(commit, alice, bob)
    mail.outbox.clear()
    with commit():
        services.game_resign(game=game, user=bob)
    assert all("moderator" not in everything_in(m) for m in mail.outbox)


def test_a_warning_emails_the_player_the_moderators_reason(
    alice: Any, bob: Any, commit: Any, moderator: Any
) -> None:
    game = start_game(commit, alice, bob)
    mail.outbox.clear()
    with commit():
        moderation.moderation_player_warn(user=bob, by_user=moderator, reason="Stalling <on purpose>.", game_id=game.pk)
    [message] = mail.outbox
    assert message.to == [bob.email]
    assert message.subject == "A warning from the moderators"
    assert "Stalling <on purpose>." in message.body and f"about game {game.pk}" in message.body
    assert "Stalling &lt;on purpose&gt;." in everything_in(message)


def test_a_suspension_emails_the_player_even_with_game_email_turned_off(bob: Any, commit: Any, moderator: Any) -> None:
    Preferences.objects.update_or_create(user=bob, defaults={"mode": Preferences.Mode.OFF})
    with commit():
        assert moderation.moderation_player_suspend(user=bob, by_user=moderator, reason="Abusive replies.")
    [message] = mail.outbox
    assert message.to == [bob.email]
    assert message.subject == "Your account is suspended"
    assert "Abusive replies." in message.body and "cannot log in" in message.body


def test_suspending_twice_and_handling_the_signal_twice_email_once(bob: Any, commit: Any, moderator: Any) -> None:
    from accounts.signals import player_suspended

    with commit():
        moderation.moderation_player_suspend(user=bob, by_user=moderator, reason="Abusive replies.")
    with commit():
        assert not moderation.moderation_player_suspend(user=bob, by_user=moderator, reason="Again.")
    suspended_at = Player.objects.get(user=bob).suspended_at
    with commit():
        player_suspended.send(sender=Player, user_id=bob.pk, reason="Abusive replies.", suspended_at=suspended_at)
    assert len(mail.outbox) == 1
    assert Notification.objects.filter(user=bob, kind="account_notice").count() == 1


def test_a_disabled_account_gets_no_notice(bob: Any, commit: Any, moderator: Any) -> None:
    bob.is_active = False
    bob.save()
    with commit():
        moderation.moderation_player_warn(user=bob, by_user=moderator, reason="Spam.")
    assert mail.outbox == []
    assert Notification.objects.get(user=bob).last_error == "inactive account"


def test_a_suspended_player_gets_no_game_email(alice: Any, bob: Any, commit: Any, moderator: Any) -> None:
    game = start_game(commit, alice, bob)
    mover = user_to_move(game)
    waiting = other_than(game, mover)
    with commit():
        moderation.moderation_player_suspend(user=waiting, by_user=moderator, reason="Cheating.")
    mail.outbox.clear()
    play(commit, game)  # now it is the suspended player's turn
    assert mail_to(waiting) == []
    turn = Notification.objects.get(user=waiting, kind="your_turn")
    assert turn.status == Notification.Status.SUPPRESSED and turn.last_error == "suspended account"


def test_game_email_turned_off_stops_the_moderation_game_emails(
    alice: Any, bob: Any, commit: Any, moderator: Any
) -> None:
    game = start_game(commit, alice, bob)
    mover = user_to_move(game)
    Preferences.objects.update_or_create(user=mover, defaults={"mode": Preferences.Mode.OFF})
    mail.outbox.clear()
    with commit():
        moderation.moderation_deadline_extend(game_id=game.pk, by_user=moderator, reason="Travel.", hours=3)
    assert mail.outbox == []
    assert Notification.objects.get(user=mover, kind="deadline_extended").last_error == "mode off"


def _standing_alone(card_id: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(card_id)}(?![\w-])")


def test_no_moderation_email_names_a_blind_reserved_card(
    alice: Any, bob: Any, charlie: Any, commit: Any, moderator: Any, clock: Any
) -> None:
    game = start_game(commit, alice, bob)
    reserver = user_to_move(game)
    other = other_than(game, reserver)
    play(commit, game, "reserve deck1")
    hidden_card = Move.objects.get(game=game, ply=0).private_card
    assert hidden_card
    mail.outbox.clear()
    with commit():
        moderation.moderation_deadline_extend(game_id=game.pk, by_user=moderator, reason="Ill.", hours=4)
    with commit():
        moderation.moderation_player_warn(user=other, by_user=moderator, reason="Slow.", game_id=game.pk)
    with commit():
        moderation.moderation_seat_replace(
            game_id=game.pk, seat_index=index_of(game, other), by_user=moderator, reason="Left.", new_user=charlie
        )
    clock.shift(timedelta(minutes=1))
    with commit():
        moderation.moderation_seat_replace(
            game_id=game.pk, seat_index=index_of(game, reserver), by_user=moderator, reason="Left.", bot=True
        )
    with commit():
        moderation.moderation_player_suspend(user=other, by_user=moderator, reason="Rude.")
    kinds = set(Notification.objects.filter(status=Notification.Status.SENT).values_list("kind", flat=True))
    assert {"deadline_extended", "seat_replaced", "account_notice"} <= kinds
    assert len(mail.outbox) >= 5
    for message in mail.outbox:
        # What happened: in the subject of an account notice, in the first line of a game's email.
        told = (message.subject, headline_of(message))
        if reserver.email in message.to and not any("You now play" in words for words in told):
            # The reserver's own turn emails may show their own card; moderation emails show none.
            if any(words.startswith(("More time", "Your seat", "A warning", "Your account")) for words in told):
                assert not _standing_alone(hidden_card).search(everything_in(message)), message.subject
            continue
        assert not _standing_alone(hidden_card).search(everything_in(message)), message.subject
    assert game.seed not in "\n".join(everything_in(m) for m in mail.outbox)
    assert subjects_to(moderator) == []
