"""Celery tasks of observability: evaluate the alert rules every few seconds and send notifications."""

from __future__ import annotations

from celery import shared_task

from observability import engine, notify

RETRIES = 4  # after the first attempt: waits of 2, 4, 8 and 16 s


@shared_task(ignore_result=True)
def evaluate_alerts() -> dict[str, int]:
    outcome = engine.evaluate()
    return {"active": outcome.active, "fired": len(outcome.fired), "resolved": len(outcome.resolved)}


@shared_task(bind=True, max_retries=RETRIES, acks_late=True, ignore_result=True)
def deliver_notification(self, delivery_id: int) -> None:
    if notify.attempt(delivery_id, final=self.request.retries >= RETRIES):
        raise self.retry(countdown=2 ** (self.request.retries + 1))
