"""The table as text, from one seat's view: ``SplendorEnv(render_mode="ansi").render()``."""

from __future__ import annotations

from typing import Any

from engine import BoardView

from .actions import ActionTable


def _cost(cost: dict[str, int]) -> str:
    return " ".join(f"{n}{letter}" for letter, n in cost.items()) or "free"


def _card(c: Any) -> str:
    points = f" {c['points']}pt" if c["points"] else ""
    return f"{c['id']} {c['color']}{points} ({_cost(c['cost'])})"


def render_text(view: BoardView, table: ActionTable) -> str:
    """The view as a few lines of text: the round, the supply, the tiles, the market
    (level 3 first, as on the table) and each seat, the one to move marked ``>``."""
    v: Any = view
    tile_key = "locations" if "locations" in v else "nobles"
    lines = [f"{v['variant']} · {v['players']} players · round {v['round']} · ply {v['ply']}"
             + (" · final round" if v["final_round"] else "") + (" · over" if v["over"] else "")]
    lines.append("supply: " + " ".join(f"{letter}{n}" for letter, n in v["supply"].items()))
    lines.append(f"{tile_key}: " + ", ".join(f"{t['id']} {t['points']}pt ({_cost(t['requires'])})"
                                            for t in v[tile_key]))
    for level in ("3", "2", "1"):
        row = ["-" if c is None else _card(c) for c in v["market"][level]]
        lines.append(f"L{level} [{v['decks'][level]:>2}] " + " | ".join(row))
    for s in v["seats"]:
        mark = ">" if v["to_move"] == s["seat"] else " "
        tokens = " ".join(f"{letter}{n}" for letter, n in s["tokens"].items() if n)
        bonuses = " ".join(f"{letter}{n}" for letter, n in s["bonuses"].items() if n)
        held = ", ".join(f"{r['slot']} level {r['level']} (hidden)" if r.get("hidden") else f"{r['slot']} {_card(r)}"
                         for r in s["reserved"])
        lines.append(f"{mark} seat {s['seat']}: {s['points']}pt · tokens {tokens or '-'} · bonuses {bonuses or '-'}"
                     + (f" · reserved {held}" if held else ""))
    if v["outcome"]:
        lines.append("winners: " + ", ".join(f"seat {w}" for w in v["outcome"]["winners"]))
    lines.append(f"({table.variant}: {len(table)} action ids)")
    return "\n".join(lines) + "\n"


__all__ = ["render_text"]
