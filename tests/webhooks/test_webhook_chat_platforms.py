"""Webhooks in the Discord and Slack formats: one line per game start, move and
end, in the endpoint owner's language, written as a spectator reads the game,
with no mention anyone could set off, posted to a real local receiver as each
platform's incoming webhook takes it; a 429 is retried after its Retry-After; a
league's endpoint hears of the league's public games only, and only its admins
may set one.

Personas (tests/webhooks/conftest.py): alice owns the endpoints and plays; bob
plays against her; charlie administers nothing, so he may not point an endpoint
at a league; dave is the league's admin who does not play in its games.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone

from accounts.models import Player
from games import services as game_services
from games.models import Game, Move, Seat
from games.words import move_in_words
from leagues.models import League, LeagueGame, Season
from tests.games.game_helpers import client_for, start_two_player_game, user_to_move
from tests.metrics_helpers import samples
from tests.webhooks.test_webhook_hidden_information import CARD_ID
from tests.webhooks.webhook_helpers import PUBLIC_ADDRESS, Committed, new_game
from webhooks import services, tasks
from webhooks.chat_platforms import ZERO_WIDTH_SPACE
from webhooks.models import Delivery, Endpoint

pytestmark = pytest.mark.django_db

START = "2026-03-02 09:00:00+00:00"


class Receiver(BaseHTTPRequestHandler):
    """Records each POST; answers with the server's next (status, headers)."""

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        server: Any = self.server
        server.received.append((self.rfile.read(length), dict(self.headers.items())))
        status, headers = server.answers.pop(0) if server.answers else (204, {})
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def receiver(settings: Any) -> Iterator[Any]:
    settings.WEBHOOKS_ALLOW_LOOPBACK = True
    server: Any = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    server.received = []
    server.answers = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def url_of(receiver: Any, path: str) -> str:
    return f"http://127.0.0.1:{receiver.server_address[1]}/{path}"


def bodies(receiver: Any) -> list[dict[str, Any]]:
    return [json.loads(body) for body, _ in receiver.received]


def speaks(user: Any, language: str) -> None:
    Player.objects.filter(user=user).update(language=language)


def named(user: Any, name: str) -> None:
    # Straight to the row: an older name, as the validators never saw it.
    Player.objects.filter(user=user).update(display_name=name)


def name_of(user: Any) -> str:
    return Player.objects.get(user=user).display_name


def play(game: Game, text: str, committed: Committed) -> Any:
    game.refresh_from_db()
    mover = user_to_move(game)
    with committed():
        game_services.move_submit(game_id=game.pk, user=mover, text=text, expected_version=game.version)
    return mover


def first_take(game: Game) -> str:
    import engine

    game.refresh_from_db()
    texts = [engine.format_move(m) for m in engine.legal_moves(engine.from_dict(game.state))]
    return next(t for t in texts if t.startswith("take ") and " return " not in t)


def page_of(game: Game) -> str:
    return f"{settings.SITE_URL}/games/{game.pk}/"


# --- the documented bodies -----------------------------------------------------------------------


def test_a_discord_endpoint_gets_the_move_as_one_italian_line_with_no_mentions_parsed(
    alice: Any, bob: Any, receiver: Any, committed: Committed
) -> None:
    speaks(alice, "it")
    endpoint = services.endpoint_create(
        owner=alice, url=url_of(receiver, "discord"), format="discord", events=["move_played"]
    )
    game = new_game(alice, bob, committed)
    text = first_take(game)
    mover = play(game, text, committed)
    game.refresh_from_db()
    other = Seat.objects.exclude(user=mover).get(game=game).user

    assert bodies(receiver) == [
        {
            "content": f"Partita {game.pk} (Splendor): {name_of(mover)} ha giocato: "
            f"{move_in_words(text, 'base', 'it')}. Tocca a {name_of(other)}. {page_of(game)}",
            "allowed_mentions": {"parse": []},
        }
    ]
    _, headers = receiver.received[0]
    assert headers["Content-Type"] == "application/json"
    assert not {name.lower() for name in headers} & {"webhook-id", "webhook-signature", "webhook-timestamp"}
    assert Delivery.objects.get(endpoint=endpoint).status == "succeeded"


def test_a_slack_endpoint_gets_the_move_as_one_italian_line(
    alice: Any, bob: Any, receiver: Any, committed: Committed
) -> None:
    speaks(alice, "it")
    services.endpoint_create(owner=alice, url=url_of(receiver, "slack"), format="slack", events=["move_played"])
    game = new_game(alice, bob, committed)
    text = first_take(game)
    mover = play(game, text, committed)
    other = Seat.objects.exclude(user=mover).get(game=game).user

    assert bodies(receiver) == [
        {
            "text": f"Partita {game.pk} (Splendor): {name_of(mover)} ha giocato: "
            f"{move_in_words(text, 'base', 'it')}. Tocca a {name_of(other)}. {page_of(game)}"
        }
    ]


def test_the_start_and_the_end_are_posted_and_other_events_are_not(
    alice: Any, bob: Any, receiver: Any, committed: Committed
) -> None:
    services.endpoint_create(owner=alice, url=url_of(receiver, "slack"), format="slack")
    game = new_game(alice, bob, committed)  # game_created and seat_joined are not posted
    first = user_to_move(game)
    with committed():
        game_services.game_resign(game=game, user=alice)
    game.refresh_from_db()

    lines = [body["text"] for body in bodies(receiver)]
    assert len(lines) == 2
    in_order = [name_of(seat.user) for seat in Seat.objects.filter(game=game).order_by("index")]
    assert lines[0] == (
        f"Game {game.pk} (Splendor) has started: {in_order[0]} and {in_order[1]}. "
        f"{name_of(first)} to move. {page_of(game)}"
    )
    assert lines[1] == f"Game {game.pk} (Splendor) is over: {name_of(bob)} won. {page_of(game)}"


def test_a_chat_format_refuses_events_it_does_not_post(alice: Any) -> None:
    from core.errors import InvalidInput

    with pytest.raises(InvalidInput) as refused:
        services.endpoint_create(owner=alice, url="https://discord.example/x", format="discord", events=["chat"])
    assert "events" in refused.value.errors


# --- no mentions -------------------------------------------------------------------------------


def test_a_display_name_that_reads_as_a_mention_is_never_one(
    alice: Any, bob: Any, receiver: Any, committed: Committed
) -> None:
    named(alice, "@everyone <!channel> & @here")
    named(bob, "@everyone <!channel> & @here")
    services.endpoint_create(owner=alice, url=url_of(receiver, "discord"), format="discord", events=["move_played"])
    services.endpoint_create(owner=alice, url=url_of(receiver, "slack"), format="slack", events=["move_played"])
    game = new_game(alice, bob, committed)
    play(game, first_take(game), committed)

    discord = next(body for body in bodies(receiver) if "content" in body)
    slack = next(body for body in bodies(receiver) if "text" in body)
    assert discord["allowed_mentions"] == {"parse": []}
    assert "@everyone" not in discord["content"] and "@here" not in discord["content"]
    assert f"@{ZERO_WIDTH_SPACE}everyone" in discord["content"]
    assert "<!channel>" not in slack["text"] and "&lt;!channel&gt; &amp; @here" in slack["text"]
    assert "<" not in slack["text"] and ">" not in slack["text"]


# --- hidden information ----------------------------------------------------------------------


def test_a_blind_reservation_is_posted_as_from_deck_n_and_never_names_the_card(
    alice: Any, bob: Any, receiver: Any, committed: Committed
) -> None:
    speaks(alice, "it")
    services.endpoint_create(owner=alice, url=url_of(receiver, "discord"), format="discord", events=["move_played"])
    services.endpoint_create(owner=alice, url=url_of(receiver, "slack"), format="slack", events=["move_played"])
    game = new_game(alice, bob, committed)
    play(game, "reserve deck1", committed)

    blind_card = Move.objects.get(game=game, ply=0).private_card
    assert blind_card
    posted = [body.get("content") or body.get("text") for body in bodies(receiver)]
    assert len(posted) == 2
    for line in posted:
        assert "riserva dal mazzo 1" in line
        assert blind_card not in line and not CARD_ID.findall(line)
        assert "seat=" not in line and "?" not in line  # the spectator's page: no seat token
        assert game.seed not in line


# --- rate limits -------------------------------------------------------------------------------


def test_a_429_is_retried_after_its_retry_after(
    alice: Any, bob: Any, receiver: Any, committed: Committed, time_machine: Any, settings: Any
) -> None:
    settings.WEBHOOKS_RETRY_DELAYS_SECONDS = [300, 1800]
    time_machine.move_to(START, tick=False)
    endpoint = services.endpoint_create(
        owner=alice, url=url_of(receiver, "slack"), format="slack", events=["game_started"]
    )
    receiver.answers = [(429, {"Retry-After": "7"})]
    new_game(alice, bob, committed)

    delivery = Delivery.objects.get(endpoint=endpoint)
    assert delivery.status == "pending" and delivery.last_status_code == 429
    assert delivery.next_attempt_at == timezone.now() + timedelta(seconds=7)

    time_machine.shift(timedelta(seconds=6))
    assert tasks.deliver_due() == 0
    time_machine.shift(timedelta(seconds=1))
    assert tasks.deliver_due() == 1
    delivery.refresh_from_db()
    assert delivery.status == "succeeded" and delivery.attempts == 2
    assert len(receiver.received) == 2 and receiver.received[0][0] == receiver.received[1][0]


def test_a_standard_endpoints_429_keeps_the_usual_delays(
    alice: Any, bob: Any, receiver: Any, committed: Committed, time_machine: Any, settings: Any
) -> None:
    settings.WEBHOOKS_RETRY_DELAYS_SECONDS = [300, 1800]
    time_machine.move_to(START, tick=False)
    endpoint = services.endpoint_create(owner=alice, url=url_of(receiver, "standard"), events=["game_started"])
    receiver.answers = [(429, {"Retry-After": "7"})]
    new_game(alice, bob, committed)

    delivery = Delivery.objects.get(endpoint=endpoint)
    assert delivery.next_attempt_at == timezone.now() + timedelta(seconds=300)


def test_posts_are_counted_by_format_and_outcome(
    alice: Any, bob: Any, receiver: Any, committed: Committed
) -> None:
    from api.metrics import metrics_text

    def count(fmt: str, outcome: str) -> float:
        for (name, labels), value in samples(metrics_text().decode()).items():
            if name == "splendor_chat_platform_posts_total" and dict(labels) == {"format": fmt, "outcome": outcome}:
                return value
        return 0.0

    before = count("discord", "delivered"), count("discord", "retry")
    services.endpoint_create(owner=alice, url=url_of(receiver, "discord"), format="discord", events=["game_started"])
    receiver.answers = [(429, {"Retry-After": "0"})]
    new_game(alice, bob, committed)

    assert (count("discord", "delivered"), count("discord", "retry")) == (before[0], before[1] + 1)


# --- a league's endpoint -----------------------------------------------------------------------


@pytest.fixture
def dave(db: None) -> Any:
    from tests.games.game_helpers import make_player

    return make_player("dave")


@pytest.fixture
def league(dave: Any) -> League:
    league = League.objects.create(name="Tuesday League")
    league.admins.add(dave)
    return league


def league_game(league: League, alice: Any, bob: Any, *, public: bool) -> Game:
    game = start_two_player_game(alice, bob, public=public)
    season = Season.objects.get_or_create(
        league=league, number=1, defaults={"starts_on": "2026-11-01", "ends_on": "2099-12-31"}
    )[0]
    LeagueGame.objects.create(season=season, game=game, round=1)
    return game


def test_a_public_league_game_posts_to_the_league_endpoint_and_a_private_one_never(
    alice: Any, bob: Any, dave: Any, league: League, receiver: Any, committed: Committed
) -> None:
    endpoint = services.endpoint_create(
        owner=dave, url=url_of(receiver, "league"), format="discord", league_id=league.pk
    )
    # alice's own endpoint, in the same format, hears of her games and not as the league's.
    private = league_game(league, alice, bob, public=False)
    public = league_game(league, alice, bob, public=True)

    play(private, first_take(private), committed)
    assert receiver.received == []
    assert not Delivery.objects.filter(endpoint=endpoint).exists()

    play(public, first_take(public), committed)
    posted = [body["content"] for body in bodies(receiver)]
    assert len(posted) == 1 and posted[0].startswith(f"Game {public.pk} (Splendor): ")
    assert private.pk not in posted[0]


def test_a_league_endpoint_is_silent_once_its_owner_no_longer_administers_the_league(
    alice: Any, bob: Any, dave: Any, league: League, receiver: Any, committed: Committed
) -> None:
    services.endpoint_create(owner=dave, url=url_of(receiver, "league"), format="slack", league_id=league.pk)
    league.admins.remove(dave)
    game = league_game(league, alice, bob, public=True)
    play(game, first_take(game), committed)
    assert receiver.received == []


def test_a_league_admin_who_plays_a_private_league_game_does_not_post_it_to_the_league(
    alice: Any, bob: Any, league: League, receiver: Any, committed: Committed
) -> None:
    league.admins.add(alice)
    services.endpoint_create(owner=alice, url=url_of(receiver, "league"), format="slack", league_id=league.pk)
    game = league_game(league, alice, bob, public=False)
    play(game, first_take(game), committed)
    assert receiver.received == []


def test_only_a_league_admin_may_set_a_league_endpoint_through_the_api(
    charlie: Any, dave: Any, league: League, dns: Any
) -> None:
    dns.table["discord.example"] = [PUBLIC_ADDRESS]
    body = {"url": "https://discord.example/api/webhooks/1/x", "format": "discord", "league": league.pk}

    refused = client_for(charlie).post("/api/v1/webhooks/", body, format="json")
    assert refused.status_code == 403, refused.content
    assert refused.json()["code"] == "permission_denied"
    assert not Endpoint.objects.filter(league=league).exists()

    made = client_for(dave).post("/api/v1/webhooks/", body, format="json")
    assert made.status_code == 201, made.content
    assert made.json()["league"] == league.pk and made.json()["format"] == "discord"

    standard = client_for(dave).post("/api/v1/webhooks/", {**body, "format": "standard"}, format="json")
    assert standard.status_code == 400 and "league" in standard.json()["errors"]
    unknown = client_for(dave).post("/api/v1/webhooks/", {**body, "format": "teams"}, format="json")
    assert unknown.status_code == 400 and "format" in unknown.json()["errors"]


def test_a_league_endpoint_cannot_be_changed_to_the_standard_format(
    dave: Any, league: League, dns: Any
) -> None:
    dns.table["discord.example"] = [PUBLIC_ADDRESS]
    made = client_for(dave).post(
        "/api/v1/webhooks/",
        {"url": "https://discord.example/api/webhooks/1/x", "format": "slack", "league": league.pk},
        format="json",
    )
    changed = client_for(dave).patch(f"/api/v1/webhooks/{made.json()['id']}/", {"format": "standard"}, format="json")
    assert changed.status_code == 400 and "format" in changed.json()["errors"]


@pytest.mark.parametrize(
    "header, seconds",
    [("7", 7.0), (" 1.5 ", 1.5), ("0", 0.0), ("86400", 3600.0), (None, None), ("", None), ("soon", None),
     ("-3", None), ("nan", None), ("inf", None), ("Wed, 21 Oct 2026 07:28:00 GMT", None)],
)
def test_a_retry_after_is_read_as_seconds_and_capped_at_an_hour(header: str | None, seconds: float | None) -> None:
    assert services.retry_after_seconds(header) == seconds
