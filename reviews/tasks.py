"""Celery tasks of the reviews app: thin adapters that take ids and call services.

``bot_review_position`` searches one position of a review on the `bots` queue
(settings' CELERY_TASK_ROUTES), in line with the bots' moves of practice games,
and queues the next itself (reviews.services.review_position_search): its
arguments are the review's id and the ply, nothing of the game. ``requeue_reviews``
is the beat's safety net for a review whose task was lost."""

from __future__ import annotations

from celery import shared_task

from reviews import services


@shared_task(name="reviews.tasks.bot_review_position", acks_late=True, ignore_result=True)
def bot_review_position(review_id: int, ply: int) -> bool:
    """One position of a review, stored once however often it runs. True when this run stored it."""
    return services.review_position_search(review_id=review_id, ply=ply)


@shared_task(name="reviews.tasks.requeue_reviews", ignore_result=True)
def requeue_reviews() -> int:
    """Queue again the reviews that stopped moving on (services.reviews_requeue). Returns how many."""
    return services.reviews_requeue()
