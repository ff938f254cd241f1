"""The review on the replay page (reviews.extension): the panel below the list of
moves, and ``POST /games/<id>/review/``, where its button posts (no JavaScript:
it answers with a redirect back to the replay's review).

The panel, once the game is over: a "Review this game" button before anyone asked;
the progress while the bot searches; then the graph of each seat's chance over
the game (reviews.graph; each point a link to that position of the replay), the
same numbers in a table, and the moves that cost their mover most, the mistakes
marked, each with the bot's move and "Try this position" (the sandbox)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.translation import gettext, pgettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from core.errors import DomainError
from games.extensions import MoveMark, PageViewer, Panel, ReplayPosition
from games.pages.session import LoginNeeded, page_viewer
from games.words import move_in_words
from reviews import selectors, services
from reviews.graph import Graph, legend, percent, review_graph
from reviews.models import GameReview
from reviews.selectors import ReviewedMove

# The session key of what the last POST left to say: a refusal.
_NOTICE = "review_notice"
# The moves that cost most, listed under the graph: the mistakes, and at least this many.
COSTLIEST = 5


def _reader(request: HttpRequest, viewer: PageViewer) -> Any:
    """Who asks: the seat's player (a seat link or their account), else the signed-in account, else None."""
    if viewer.seat is not None and viewer.seat.has_joined:
        return viewer.seat.user
    user = getattr(request, "user", None)
    return user if user is not None and user.is_authenticated else None


def _reviewed(request: HttpRequest, game_id: str) -> tuple[GameReview | None, list[ReviewedMove]]:
    """The game's review and its moves reviewed so far, read once per request: the
    replay's panel and its marks in the list of moves both show them."""
    kept: dict[str, tuple[GameReview | None, list[ReviewedMove]]] = request.__dict__.setdefault("_reviews_read", {})
    if game_id not in kept:
        review = selectors.review_of_game(game_id=game_id)
        kept[game_id] = (review, selectors.review_moves(review) if review is not None else [])
    return kept[game_id]


def _replay_url(game_id: str, position: int | None = None) -> str:
    url = reverse("game-replay", kwargs={"game_id": game_id})
    return url if position is None else f"{url}?ply={position}"


def _position_words(position: int, chances: str) -> str:
    if position == 0:
        return gettext("The deal: %(chances)s") % {"chances": chances}
    return gettext("After move %(n)s: %(chances)s") % {"n": position, "chances": chances}


def _graph(game_id: str, moves: list[ReviewedMove], position: ReplayPosition) -> Graph:
    """Position 0 is the deal (the first move's chances before it), position k the
    board after move k."""
    rows = ([moves[0]["before"]] if moves else []) + [move["chances"] for move in moves]
    return review_graph(
        rows,
        total=position["total"],
        names=position["names"],
        current=position["ply"],
        href=lambda k: _replay_url(game_id, k) + "#board",
        label=_position_words,
    )


def _costliest(moves: list[ReviewedMove]) -> list[ReviewedMove]:
    """The mistakes, and the moves that cost most besides up to COSTLIEST, in game order."""
    ranked = sorted((move for move in moves if move["drop"] > 0), key=lambda move: (-move["drop"], move["ply"]))
    mistakes = [move for move in ranked if move["mistake"]]
    kept = mistakes + [move for move in ranked if not move["mistake"]][: max(0, COSTLIEST - len(mistakes))]
    return sorted(kept, key=lambda move: move["ply"])


def _rows(game_id: str, moves: list[ReviewedMove], names: dict[int, str], variant: str) -> list[dict[str, Any]]:
    """A row per move reviewed: the replay's number for it (move n is ply n - 1), the
    mover, the move in words, every seat's chance after it, and the mover's cost."""
    seats = sorted(names)
    rows: list[dict[str, Any]] = []
    for move in moves:
        rows.append(
            {
                "number": move["ply"] + 1,
                "href": _replay_url(game_id, move["ply"] + 1) + "#board",
                "before_href": _replay_url(game_id, move["ply"]) + "#board",
                "name": names.get(move["seat"], str(move["seat"] + 1)),
                "words": move_in_words(move["move"], variant),
                "text": move["move"],
                "chances": [percent(move["chances"][seat]) if seat < len(move["chances"]) else "" for seat in seats],
                "mover_before": percent(move["before"][move["seat"]]),
                "mover_after": percent(move["chances"][move["seat"]]),
                "drop": percent(move["drop"]),
                "mistake": move["mistake"],
                "best": move["best"] or "",
                "best_words": move_in_words(move["best"], variant) if move["best"] else "",
                "ply": move["ply"],
                "seat": move["seat"],
            }
        )
    return rows


def _seat_title(name: str) -> str:
    """A seat's column in the table: "Alice's chance"."""
    return pgettext("review table", "%(name)s's chance") % {"name": name}


def replay_panel(request: HttpRequest, viewer: PageViewer, position: ReplayPosition) -> Panel | None:
    """The review's panel on the replay of a game that is over; None before."""
    game = viewer.game
    if not game.is_over:
        return None
    review, moves = _reviewed(request, game.pk)
    notice = request.session.pop(_NOTICE, None) if hasattr(request, "session") else None
    error = str(notice.get("error") or "") if isinstance(notice, dict) and notice.get("game_id") == game.pk else ""
    reader = _reader(request, viewer)
    context: dict[str, Any] = {
        "action": reverse("game-review-page", kwargs={"game_id": game.pk}),
        "ply": position["ply"],
        "signed_in": reader is not None,
        "login_url": f"{settings.LOGIN_URL}?{urlencode({'next': _replay_url(game.pk) + '#review'})}",
        "review": None,
        "error": error,
    }
    if review is None:
        return {"template": "reviews/_replay_panel.html", "context": context}
    names = position["names"]
    rows = _rows(game.pk, moves, names, game.variant)
    costly = {move["ply"] for move in _costliest(moves)}
    costliest = []
    for row in rows:
        if row["ply"] in costly:
            form = position["try_position"](row["ply"], row["seat"])
            costliest.append({**row, "try": form})
    context.update(
        {
            "review": {
                "status": review.status,
                "pending": review.status == GameReview.Status.PENDING,
                "failed": review.status == GameReview.Status.FAILED,
                "done": len(moves),
                "total": review.positions_total,
            },
            "graph": _graph(game.pk, moves, position) if moves else None,
            "seats": [
                {"seat": seat, "name": names[seat], "title": _seat_title(names[seat]), "colour": line.colour, "dash": line.dash}
                for seat, line in zip(sorted(names), legend(len(names)))
            ],
            "rows": rows,
            "costliest": costliest,
            "mistake_drop": percent(float(settings.REVIEW_MISTAKE_DROP)),
            "deal_chances": [percent(chance) for chance in moves[0]["before"]] if moves else [],
            "refresh_url": _replay_url(game.pk, position["ply"]) + "#review",
        }
    )
    return {"template": "reviews/_replay_panel.html", "context": context}


def replay_move_marks(request: HttpRequest, viewer: PageViewer) -> dict[int, MoveMark]:
    """The mistakes of the game's review, by ply, for the replay's list of moves:
    "Mistake, -12%" (linked to the move's entry under "The moves that cost most",
    which lists every mistake) and the bot's move beside it."""
    game = viewer.game
    if not game.is_over:
        return {}
    marks: dict[int, MoveMark] = {}
    for move in _reviewed(request, game.pk)[1]:
        if move["mistake"]:
            best = move_in_words(move["best"], game.variant) if move["best"] else ""
            marks[move["ply"]] = {
                "label": pgettext("replay moves", "Mistake, −%(drop)s") % {"drop": percent(move["drop"])},
                "detail": gettext("(the bot: %(move)s)") % {"move": best} if best else "",
                "href": f"#review-move-{move['ply'] + 1}",
            }
    return marks


@never_cache
@require_POST
def review_start_page(request: HttpRequest, game_id: str) -> HttpResponse:
    """``POST /games/<id>/review/``: ask for the game's review (reviews.services.review_request)
    for the page's reader, then back to the replay's review, with the refusal if any."""
    try:
        viewer = page_viewer(request, game_id)
    except LoginNeeded:
        if not request.user.is_authenticated:
            return redirect_to_login(_replay_url(game_id), settings.LOGIN_URL)
        raise Http404 from None
    except DomainError:
        raise Http404 from None
    raw = request.POST.get("ply", "")
    position = int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 6 else None
    back = _replay_url(viewer.game.pk, position) + "#review"
    reader = _reader(request, viewer)
    if reader is None:
        return redirect_to_login(back, settings.LOGIN_URL)
    try:
        services.review_request(game_id=viewer.game.pk, user=reader)
    except DomainError as error:
        request.session[_NOTICE] = {"game_id": viewer.game.pk, "error": error.message}
    return HttpResponseRedirect(back)


