"""WorkloadRebalancers' time to live: one finished longer ago than its ttlSecondsAfterFinished goes,
as Karmada's rebalancer controller deletes it (its reschedules stay done)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from scheduling.models import WorkloadRebalancer


def expire_rebalancers(now: datetime | None = None) -> list[str]:
    """Delete every rebalancer past its TTL; the names it deleted."""
    now = now or timezone.now()
    expired = [
        row
        for row in WorkloadRebalancer.objects.filter(
            ttl_seconds_after_finished__isnull=False, finish_time__isnull=False
        )
        if row.finish_time + timedelta(seconds=row.ttl_seconds_after_finished or 0) <= now
    ]
    for row in expired:
        row.delete()  # one by one: each leaves its deletion record for watches
    return [row.name for row in expired]
