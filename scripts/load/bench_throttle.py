"""CPU of one rate-limit check against Redis, per request, for the code in a tree.

    python scripts/load/bench_throttle.py TREE RATE [--requests N] [--keys K]
    python scripts/load/bench_throttle.py /tmp/before 120/minute   # then the same for "."

Runs ``UserRateThrottle().allow_request`` inside a request's Redis budget, as DRF
does for each request, for --keys players in turn, against the Redis at --cache-url
(a database the run may fill with counters), with the user rate set to RATE. Prints
the median CPU microseconds per call over 10 batches of N/10 calls (time.process_time).
Run it for two trees in alternation to compare them (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import time
from types import SimpleNamespace


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree", help="the checkout whose code is measured")
    parser.add_argument("rate", help="API_THROTTLE_USER_RATE, e.g. 120/minute")
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--keys", type=int, default=200, help="players the requests are spread over")
    parser.add_argument("--cache-url", default="redis://127.0.0.1:6379/14")
    args = parser.parse_args()
    tree = os.path.abspath(args.tree)
    sys.path.insert(0, tree)
    os.chdir(tree)
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "splendor_site.settings",
            "DEBUG": "false",
            "SECRET_KEY": "bench-only-" + secrets.token_hex(24),
            "ALLOWED_HOSTS": "127.0.0.1",
            "SECURE_SSL_REDIRECT": "false",
            "API_THROTTLE_USER_RATE": args.rate,
            "CACHE_URL": args.cache_url,
            "LOG_LEVEL": "WARNING",
        }
    )
    import django

    django.setup()
    from api.throttling import UserRateThrottle
    from core.redis_budget import redis_budget

    run = secrets.token_hex(4)
    requests = [
        SimpleNamespace(user=SimpleNamespace(is_authenticated=True, pk=f"{run}-{n}"), _request=SimpleNamespace())
        for n in range(args.keys)
    ]
    for request in requests[:50]:  # connect and warm up
        UserRateThrottle().allow_request(request, None)  # type: ignore[arg-type]
    per_batch = args.requests // 10
    batches, allowed = [], 0
    for _ in range(10):
        started = time.process_time()
        for n in range(per_batch):
            with redis_budget(0.5):
                allowed += UserRateThrottle().allow_request(requests[n % args.keys], None)  # type: ignore[arg-type]
        batches.append((time.process_time() - started) / per_batch * 1e6)
    print(
        f"{args.rate}: median {statistics.median(batches):.1f} µs of CPU per check "
        f"(batches {min(batches):.1f}-{max(batches):.1f}), {allowed} of {per_batch * 10} allowed"
    )


if __name__ == "__main__":
    main()
