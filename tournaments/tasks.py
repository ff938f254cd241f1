"""Celery tasks of the tournaments app: thin adapters.

``start_due`` is beat's sweep (on the beat queue): tournaments whose start time
has come start, and scheduled rounds whose time has come open
(tournaments.services.tournaments_start_due).
"""

from __future__ import annotations

from celery import shared_task

from tournaments.services import tournaments_start_due


@shared_task(name="tournaments.tasks.start_due", ignore_result=True)
def start_due() -> int:
    return tournaments_start_due()
