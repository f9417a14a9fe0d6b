"""Celery tasks of the health queue: the periodic fan-out, one collection per cluster, sample compaction."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings

from clusters.collector import collect_cluster, mark_stale
from clusters.models import Cluster
from clusters.samples import compact_samples


@shared_task(ignore_result=True)
def collect_all() -> int:
    """Beat calls this every HEALTH_PROBE_INTERVAL: one task per cluster, stale ones marked Unknown."""
    mark_stale()
    ids = list(Cluster.objects.values_list("id", flat=True))
    for cluster_id in ids:
        # A task still queued when the next round starts is useless; expire it instead of piling up.
        collect_cluster_task.apply_async((cluster_id,), expires=settings.HEALTH_PROBE_INTERVAL)
    return len(ids)


@shared_task(ignore_result=True, soft_time_limit=60, time_limit=90)
def collect_cluster_task(cluster_id: int) -> str | None:
    result = collect_cluster(cluster_id)
    return result.ready if result else None


@shared_task(ignore_result=True)
def compact_samples_task() -> int:
    return compact_samples()
