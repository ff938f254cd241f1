"""Command line: ``python -m engine selfplay ...`` and ``python -m engine bench``."""

from __future__ import annotations

import argparse
import json
import sys

from .selfplay import bench, selfplay
from .variants import VARIANTS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
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
    args = parser.parse_args(argv)
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
