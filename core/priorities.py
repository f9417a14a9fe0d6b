"""Task message priorities on Redis, shared by the Celery app (karmada_ui.celery) and the tasks.

0 is taken first, and a worker asks priority by priority across all its queues: an event's member
writes and other steps (0), an event's renders (SYNC), the bulk lanes' steps (BULK), their renders last
(BULK_SYNC). Work already rendered reaches the members before more is rendered, so a fleet being seeded
applies as it goes instead of rendering every binding of its batch first. A message without a priority
counts as 0; the demo's folder broker ignores priorities (first in, first out per queue)."""

STEPS = [0, 3, 6, 9]
SYNC = 3
BULK = 6
BULK_SYNC = 9


def redis_keys(queue: str) -> list[str]:
    """The Redis lists one queue's messages wait in, one per priority step (kombu's naming)."""
    return [queue if step == 0 else f"{queue}\x06\x16{step}" for step in STEPS]
