"""Command line: ``python -m engine selfplay ...``, ``python -m engine bench`` and
``python -m engine arena ...``."""

from __future__ import annotations

import argparse
import json
import sys

from .arena import arena, parse_bot
from .selfplay import bench, selfplay
from .variants import VARIANTS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine",
        description="Bot games from the command line: selfplay (play and check every invariant), "
        "bench (playouts and legal-move generations per second), arena (bots against bots).",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sp = sub.add_parser("selfplay", help="play bot games and check every invariant")
    sp.add_argument("--variant", choices=sorted(VARIANTS), default="base")
    sp.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    sp.add_argument("--games", type=int, default=10)
    sp.add_argument("--seed", type=int, default=1)
    sp.add_argument("--bots", default="random",
                    help="comma-separated bot names, seated in turn (random, greedy)")
    sp.add_argument("--no-check", action="store_true", help="skip the per-ply invariant checks")
    bp = sub.add_parser("bench", help="random playouts and legal-move generations per second")
    bp.add_argument("--variant", choices=sorted(VARIANTS), default="base")
    bp.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    bp.add_argument("--rounds", type=int, default=5)
    bp.add_argument("--seconds", type=float, default=2.0)
    ap = sub.add_parser("arena", help="bots against bots: wins with their 95%% Wilson intervals")
    ap.add_argument("--bots", required=True,
                    help="comma-separated bots, one a seat (random, greedy, ismcts, ismcts:N for N playouts)")
    ap.add_argument("--variant", choices=sorted(VARIANTS), default="base")
    ap.add_argument("--games", type=int, default=100)
    budget = ap.add_mutually_exclusive_group()
    budget.add_argument("--playouts", type=int, help="the search bot's playouts a move (default 1000)")
    budget.add_argument("--seconds", type=float, help="the search bot's seconds a move")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1, help="games played at once, one process each")
    args = parser.parse_args(argv)
    if args.command == "arena":
        bots = [b.strip() for b in args.bots.split(",") if b.strip()]
        try:
            for label in bots:
                parse_bot(label)
        except ValueError as exc:
            parser.error(str(exc))
        if not 2 <= len(bots) <= 4:
            parser.error("--bots names one bot a seat: 2 to 4 of them")
        if args.games < 1 or args.jobs < 1:
            parser.error("--games and --jobs must be at least 1")
        if args.playouts is not None and args.playouts < 1 or args.seconds is not None and args.seconds <= 0:
            parser.error("the budget must be positive")
        playouts = args.playouts if args.playouts is not None or args.seconds is not None else 1000

        def progress(game: dict[str, object]) -> None:
            print(json.dumps({k: v for k, v in game.items() if k != "seconds"}, sort_keys=True),
                  file=sys.stderr, flush=True)

        report = arena(bots, variant=args.variant, games=args.games, playouts=playouts,
                       seconds=args.seconds, seed=args.seed, jobs=args.jobs, progress=progress)
        print(json.dumps(report, sort_keys=True))
        return 0
    if args.command == "selfplay":
        if args.games < 1:
            parser.error("--games must be at least 1")
        report = selfplay(args.variant, args.players, args.games, args.seed,
                          args.bots.split(","), check=not args.no_check)
        for failure in report["failures"]:
            print("INVARIANT BROKEN:", failure, file=sys.stderr)
        print(json.dumps(report, sort_keys=True))
        return 1 if report["invariant_failures"] or report["finished"] != args.games else 0
    print(json.dumps(bench(args.variant, args.players, args.rounds, args.seconds), sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
