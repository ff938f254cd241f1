"""`celery` as on the command line, for the end-to-end tests, with the service's
claim leases shortened when E2E_LEASE_SECONDS is set.

A worker that dies holding a claim (an outbox event, a notification, a webhook
delivery) leaves it to be taken again when the claim's lease runs out: 2 to 10
minutes in the service. The tests that kill workers shorten those leases (and
the minute an unqueued outbox event waits before redelivery) to seconds, the
way GAME_CLOCK_SECONDS shortens game clocks; the code paths are the service's own.

    python tests/e2e_support/worker_main.py -A splendor_site worker ...
"""

from __future__ import annotations

import os
import sys
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "splendor_site.settings")


def _shorten_leases(seconds: float) -> None:
    import django

    django.setup()
    lease = timedelta(seconds=seconds)
    import games.services

    games.services.EVENT_CLAIM_LEASE = lease
    redeliver = games.services.game_events_redeliver
    if redeliver.__kwdefaults__ and "older_than" in redeliver.__kwdefaults__:
        redeliver.__kwdefaults__["older_than"] = lease
    for module_name, constant in (("notifications.services", "SEND_LEASE"), ("webhooks.services", "CLAIM_LEASE")):
        try:
            module = __import__(module_name, fromlist=[constant])
        except ImportError:
            continue
        if hasattr(module, constant):
            setattr(module, constant, lease)


if __name__ == "__main__":
    if os.environ.get("E2E_LEASE_SECONDS"):
        _shorten_leases(float(os.environ["E2E_LEASE_SECONDS"]))
    from celery.__main__ import main

    sys.argv[0] = "celery"
    sys.exit(main())
