"""Celery tasks of the health queue: the periodic fan-out, one collection per cluster, sample compaction."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.db.models import F

from clusters.collector import collect_cluster, collect_clusters, mark_stale
from clusters.models import Cluster
from clusters.samples import compact_samples

# Clusters one task collects: a thousand clusters are 50 tasks a round, not a thousand, and each
# shares one lease statement, one read of the rows and one insert of the samples.
COLLECT_BATCH = 20


@shared_task(ignore_result=True)
def collect_all() -> int:
    """Beat calls this every HEALTH_PROBE_INTERVAL: one task per COLLECT_BATCH clusters, stale ones
    marked Unknown."""
    mark_stale()
    # The longest unprobed first: when a round is more than the workers get through before its tasks
    # expire, the clusters left out are probed first in the next one, instead of always the same.
    ordered = Cluster.objects.order_by(F("last_probe_at").asc(nulls_first=True), "id")
    ids = list(ordered.values_list("id", flat=True))
    for start in range(0, len(ids), COLLECT_BATCH):
        # A task still queued when the next round starts is useless; expire it instead of piling up.
        batch = ids[start : start + COLLECT_BATCH]
        collect_clusters_task.apply_async((batch,), expires=settings.HEALTH_PROBE_INTERVAL)
    return len(ids)


@shared_task(ignore_result=True, soft_time_limit=60, time_limit=90)
def collect_clusters_task(cluster_ids: list[int]) -> int:
    """One batch of collect_all; how many clusters it collected (the others were busy or gone)."""
    return len(collect_clusters(cluster_ids))


@shared_task(ignore_result=True, soft_time_limit=60, time_limit=90)
def collect_cluster_task(cluster_id: int) -> str | None:
    result = collect_cluster(cluster_id)
    return result.ready if result else None


@shared_task(ignore_result=True)
def compact_samples_task() -> int:
    return compact_samples()
