"""The health time series: bounded retention by averaging old samples into coarser buckets."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from clusters.models import ClusterSample

# (resolution of the samples, keep them this long, then average them into buckets of this size)
ROLLUPS = (
    (ClusterSample.RAW, timedelta(hours=1), ClusterSample.MINUTE),
    (ClusterSample.MINUTE, timedelta(hours=24), ClusterSample.TEN_MINUTES),
)
KEEP_TEN_MINUTES = timedelta(days=7)
AVERAGED = (
    "ready",
    "reachable",
    "latency_ms",
    "nodes_total",
    "nodes_ready",
    "pods",
    "cpu_allocatable",
    "cpu_allocated",
    "cpu_usage",
    "memory_allocatable",
    "memory_allocated",
    "memory_usage",
)
BATCH = 20000


def bucket_start(at: datetime, seconds: int) -> datetime:
    epoch = int(at.timestamp())
    return datetime.fromtimestamp(epoch - epoch % seconds, tz=at.tzinfo)


def average(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Count-weighted means; a field missing in every row (no metrics server) stays missing."""
    total = sum(r["count"] for r in rows)
    result: dict[str, Any] = {"count": total}
    for name in AVERAGED:
        present = [(r[name], r["count"]) for r in rows if r[name] is not None]
        weight = sum(c for _, c in present)
        result[name] = sum(v * c for v, c in present) / weight if weight else None
    return result


def compact_samples(now: datetime | None = None) -> int:
    """Roll old samples up and drop the oldest; returns how many rows were removed. Idempotent."""
    now = now or timezone.now()
    removed = 0
    for resolution, keep, into in ROLLUPS:
        old = ClusterSample.objects.filter(resolution=resolution, at__lt=bucket_start(now - keep, into))
        rows = list(old.order_by("at").values("id", "cluster_id", "at", "count", *AVERAGED)[:BATCH])
        if not rows:
            continue
        groups: dict[tuple[int, datetime], list[dict[str, Any]]] = defaultdict(list)
        for row in rows:
            groups[(row["cluster_id"], bucket_start(row["at"], into))].append(row)
        with transaction.atomic():
            ClusterSample.objects.bulk_create(
                ClusterSample(cluster_id=cluster_id, at=at, resolution=into, **average(group))
                for (cluster_id, at), group in groups.items()
            )
            removed += ClusterSample.objects.filter(id__in=[r["id"] for r in rows]).delete()[0]
    removed += ClusterSample.objects.filter(
        resolution=ClusterSample.TEN_MINUTES, at__lt=now - KEEP_TEN_MINUTES
    ).delete()[0]
    return removed


def series(cluster_id: int, window: timedelta, now: datetime | None = None) -> list[dict[str, Any]]:
    """Every sample of the window, oldest first, as plain dicts for the charts."""
    now = now or timezone.now()
    return list(
        ClusterSample.objects.filter(cluster_id=cluster_id, at__gte=now - window)
        .order_by("at")
        .values("at", "resolution", *AVERAGED)
    )
