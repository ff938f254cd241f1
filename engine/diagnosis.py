"""Explaining an illegal move: which rule it breaks, in words a player can act on.

Legality itself is decided by ``rules.legal_moves`` alone; these functions run
only for a move already known not to be in it, and always raise
:class:`IllegalMove` (or :class:`AmbiguousMove`, with the complete moves it
could have meant).
"""

from __future__ import annotations

from typing import NoReturn

from .errors import AmbiguousMove, IllegalMove, Word, Words, gettext_noop, ngettext
from .moves import Move
from .rules import LIMIT, MAX_RESERVED, default_payment, legal_moves, qualifying_tiles
from .state import Player, State
from .variants import JOKER, Variant


def diagnose(state: State, move: Move) -> NoReturn:
    """Raise the error that explains why ``move``, which is not in
    ``legal_moves(state)``, is not legal here."""
    v = state.variant
    if state.over:
        raise IllegalMove(v.rule("over"), gettext_noop("the game is over; no more moves can be played"))
    legal = legal_moves(state)
    same_action = [m for m in legal if m.action_text == move.action_text]
    if same_action:
        diagnose_suffix(state, move, same_action)
    else:
        diagnose_action(state, move)
    raise IllegalMove("B-TURN", gettext_noop("'%(move)s' is not a legal move in this position", move=move.text))


def _letters_ok(v: Variant, letters: str) -> bool:
    return all(v.letter_index(ch) >= 0 for ch in letters)


def diagnose_suffix(state: State, move: Move, same: list[Move]) -> NoReturn:
    """Raise for a legal action with wrong suffixes: ``same`` are the legal moves
    with the same action, differing in their returns or tile choice."""
    v = state.variant
    p = state.players[state.seat]
    rets = sorted({m.ret for m in same})
    if move.ret not in rets:
        if rets == [""]:
            raise IllegalMove(v.rule("limit"), gettext_noop("you may return tokens only when the move leaves you "
                                                "with more than 10; this one does not"))
        need = len(rets[0])
        if not move.ret:
            choices = [m.text for m in same if not move.tile or m.tile == move.tile] or [m.text for m in same]
            raise AmbiguousMove(v.rule("limit"), ngettext(
                "this move leaves you with %(total)s tokens; add 'return' and %(count)s token letter to get down "
                "to 10",
                "this move leaves you with %(total)s tokens; add 'return' and %(count)s token letters to get down "
                "to 10",
                need, total=LIMIT + need), choices)
        if v.time_letter and v.time_letter in move.ret:
            raise IllegalMove(v.rule("limit_time"), gettext_noop("the Time Stone can never be returned; return other tokens"))
        if len(move.ret) != need:
            raise IllegalMove(v.rule("limit"), ngettext(
                "return exactly %(count)s token to get down to 10, not %(given)s",
                "return exactly %(count)s tokens to get down to 10, not %(given)s",
                need, given=len(move.ret)))
        raise IllegalMove(v.rule("limit"), gettext_noop("you cannot return %(tokens)s: you would not hold those tokens",
                                                tokens=move.ret))
    tiles = sorted({m.tile for m in same if m.tile})
    word = v.tile_word
    if not tiles:
        q = qualifying_tiles(state, _bonuses_after(state, p, move))
        if move.tile in q:
            raise IllegalMove(v.rule("tile_choice"), gettext_noop(
                "%(tile)s is the only one you qualify for; it comes by itself, so leave out '%(suffix)s'",
                tile=move.tile, suffix=f"{word} {move.tile}"))
        raise IllegalMove(v.rule("tile"), gettext_noop(
            "you do not qualify for %(tile)s: its requirement is counted in cards (bonuses), not tokens",
            tile=move.tile))
    if move.tile is None:
        choices = [m.text for m in same if m.ret == move.ret]
        raise AmbiguousMove(v.rule("tile_choice"), gettext_noop(
            "you qualify for several (%(tiles)s); add '%(word)s <id>' to choose one",
            tiles=", ".join(tiles), word=word), choices)
    raise IllegalMove(v.rule("tile"), gettext_noop(
        "you do not qualify for %(tile)s; you may choose one of %(tiles)s", tile=move.tile, tiles=", ".join(tiles)))


def _bonuses_after(state: State, p: Player, move: Move) -> tuple[int, ...]:
    if move.kind != "buy" or move.card not in state.variant.cards:
        return p.bonuses
    b = list(p.bonuses)
    b[state.variant.cards[move.card].color] += 1
    return tuple(b)


def diagnose_action(state: State, move: Move) -> None:
    """Raise for an action that no legal move shares (a move of an unknown kind
    falls through to the caller's catch-all)."""
    v = state.variant
    p = state.players[state.seat]
    kind = move.kind
    for letters in (move.take, move.pay, move.ret):
        if not _letters_ok(v, letters):
            bad = "".join(ch for ch in letters if v.letter_index(ch) < 0)
            raise IllegalMove("B-TURN", gettext_noop("%(letters)s is not a token of the %(variant)s game (letters: %(all)s)",
                                                     letters=bad, variant=v.name, all=v.all_letters))
    others = [m for m in legal_moves(state) if m.kind != "pass"]
    if kind == "pass":
        raise IllegalMove(v.rule("pass"), ngettext(
            "you may pass only when no other move is possible; you have %(count)s legal move",
            "you may pass only when no other move is possible; you have %(count)s legal moves",
            len(others)))
    if kind == "take":
        diagnose_take(state, move)
    elif kind == "reserve":
        if len(p.reserved) >= MAX_RESERVED:
            raise IllegalMove(v.rule("reserve_limit"), gettext_noop(
                "you already hold 3 reserved cards; buy one before reserving another"))
        if move.deck is not None:
            raise IllegalMove(v.rule("reserve"), gettext_noop("deck %(level)s is empty", level=move.deck))
        if any(c == move.card for c, _ in p.reserved):
            raise IllegalMove(v.rule("reserve"), gettext_noop("you have already reserved %(card)s", card=move.card))
        raise IllegalMove(v.rule("reserve"), gettext_noop("%(card)s is not face up in the market", card=move.card))
    elif kind == "buy":
        diagnose_buy(state, p, move)


def diagnose_take(state: State, move: Move) -> NoReturn:
    """Raise for a take that is not legal: the colours, or the piles, do not allow it."""
    v = state.variant
    take = move.take
    if len(take) > 3:
        raise IllegalMove(v.rule("take3"), gettext_noop(
            "a turn takes at most 3 tokens, not %(given)s: 3 of different colours, or 2 of one colour",
            given=len(take)))
    idx = [v.letter_index(ch) for ch in take]
    if any(i >= 5 for i in idx):
        raise IllegalMove(v.rule("take_joker"), gettext_noop(
            "%(tokens)s tokens can never be taken; take gems of the five colours", tokens=Word(v.untakeable)))
    names = [v.colours[i] for i in idx]
    if len(take) == 2 and take[0] == take[1]:
        n = state.supply[idx[0]]
        raise IllegalMove(v.rule("take2"), ngettext(
            "%(colour)s has %(count)s token; taking two needs 4", "%(colour)s has %(count)s tokens; taking two needs 4",
            n, colour=Word(names[0])))
    if len(set(take)) != len(take):
        raise IllegalMove(v.rule("take3"), gettext_noop("take 3 tokens of different colours, or 2 of one colour"))
    empty = [names[k] for k, i in enumerate(idx) if state.supply[i] == 0]
    if empty:
        raise IllegalMove(v.rule("take3"), gettext_noop("no %(colours)s tokens are left", colours=Words(tuple(empty))))
    left = sum(1 for i in range(5) if state.supply[i] > 0)
    raise IllegalMove(v.rule("take3"), ngettext(
        "take 3 different colours (fewer only when fewer are left; %(count)s colour is left)",
        "take 3 different colours (fewer only when fewer are left; %(count)s colours are left)",
        left))


def diagnose_buy(state: State, p: Player, move: Move) -> NoReturn:
    """Raise for a card ``p`` cannot buy, or a ``J:`` payment it cannot make."""
    v = state.variant
    cid = move.card
    assert cid is not None
    in_market = any(cid in row for row in state.market)
    in_hand = any(c == cid for c, _ in p.reserved)
    if not (in_market or in_hand):
        raise IllegalMove(v.rule("buy"), gettext_noop("%(card)s is neither face up in the market nor in your reserve", card=cid))
    card = v.cards[cid]
    paid, deficit = default_payment(card.cost, p.bonuses, p.tokens)
    jokers = p.tokens[JOKER]
    if deficit > jokers:
        missing = []
        for i in range(5):
            need = max(0, card.cost[i] - p.bonuses[i])
            if need > p.tokens[i]:
                missing.append(f"{need - p.tokens[i]} {v.colours[i]}")
        raise IllegalMove(v.rule("buy"), ngettext(
            "you cannot afford %(card)s: after bonuses you are short of %(missing)s and hold %(count)s "
            "%(joker)s token to cover %(deficit)s",
            "you cannot afford %(card)s: after bonuses you are short of %(missing)s and hold %(count)s "
            "%(joker)s tokens to cover %(deficit)s",
            jokers, card=cid, missing=Words(tuple(missing), as_list=False), deficit=deficit,
            joker=Word(v.joker_name)))
    for ch in set(move.pay):
        i = v.letter_index(ch)
        if i >= 5:
            raise IllegalMove(v.rule("buy"), gettext_noop("'J:' lists gem colours where a %(joker)s token replaces a gem",
                                                              joker=Word(v.joker_name)))
        if move.pay.count(ch) > paid[i]:
            raise IllegalMove(v.rule("buy"), gettext_noop(
                "J:%(pay)s spends more %(joker)s tokens on %(colour)s than the default payment spends "
                "%(colour)s gems (%(paid)s)", pay=move.pay, colour=Word(v.colours[i]), paid=paid[i],
                joker=Word(v.joker_name)))
    raise IllegalMove(v.rule("buy"), ngettext(
        "J:%(pay)s needs %(count)s more %(joker)s token than the %(spare)s you have to spare",
        "J:%(pay)s needs %(count)s more %(joker)s tokens than the %(spare)s you have to spare",
        len(move.pay), pay=move.pay, spare=jokers - deficit, joker=Word(v.joker_name)))
