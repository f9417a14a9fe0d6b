"""The values behind /metrics and the built-in alerts: cluster gauges from the clusters' rows, counters
and histograms from the recorded tallies. Both readers use these, so they always agree."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import Sum
from django.utils import timezone

from clusters.models import Cluster, ReadyState
from metrics import recording
from metrics.catalogue import BY_NAME, CLUSTER_GAUGES, COUNTER, HISTOGRAM, MetricDef
from metrics.models import Tally
from metrics.recording import labels_from_key
from observability.expr import Labels, Vector, labels_of

MILLI = 1000


def cluster_gauges() -> dict[str, Vector]:
    """Karmada's cluster gauges, one value per member cluster, as the cluster pages show them."""
    gauges: dict[str, Vector] = {metric.name: {} for metric in CLUSTER_GAUGES}
    for row in Cluster.objects.values(
        "name",
        "ready",
        "nodes_total",
        "nodes_ready",
        "cpu_allocatable",
        "cpu_allocated",
        "memory_allocatable",
        "memory_allocated",
        "pods_allocatable",
        "pods_allocated",
    ):
        labels = labels_of({"member_cluster": row["name"]})
        values = {
            "cluster_ready_state": 1.0 if row["ready"] == ReadyState.TRUE else 0.0,
            "cluster_node_number": row["nodes_total"],
            "cluster_ready_node_number": row["nodes_ready"],
            "cluster_cpu_allocatable_number": row["cpu_allocatable"] / MILLI,
            "cluster_cpu_allocated_number": row["cpu_allocated"] / MILLI,
            "cluster_memory_allocatable_bytes": row["memory_allocatable"],
            "cluster_memory_allocated_bytes": row["memory_allocated"],
            "cluster_pod_allocatable_number": row["pods_allocatable"],
            "cluster_pod_allocated_number": row["pods_allocated"],
        }
        for name, value in values.items():
            gauges[name][labels] = float(value)
    return gauges


@dataclass
class Histogram:
    """One label set of a histogram: cumulative bucket counts in bound order, the sum and the count."""

    buckets: list[tuple[str, float]] = field(default_factory=list)
    sum: float = 0.0
    count: float = 0.0


def _tallies(metric: MetricDef, since: datetime | None = None) -> list[dict]:
    recording.flush()  # this process's own records show at once
    rows = Tally.objects.filter(name=metric.name)
    if since is not None:
        rows = rows.filter(window__gte=since)
    return list(rows.values("labels", "le").annotate(n=Sum("count"), s=Sum("total")))


class _LabelsOfKeys(dict[str, Labels]):
    """Each stored labels key parsed once: a histogram series has a row per bucket with the same key."""

    def __missing__(self, key: str) -> Labels:
        labels = self[key] = labels_of(labels_from_key(key))
        return labels


def counter_values(metric: MetricDef, since: datetime | None = None) -> Vector:
    totals: dict[Labels, float] = defaultdict(float)
    for row in _tallies(metric, since):
        totals[labels_of(labels_from_key(row["labels"]))] += row["n"]
    return dict(totals)


def histogram_values(metric: MetricDef, since: datetime | None = None) -> dict[Labels, Histogram]:
    per_bucket: dict[Labels, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    sums: dict[Labels, float] = defaultdict(float)
    parsed = _LabelsOfKeys()
    for row in _tallies(metric, since):
        labels = parsed[row["labels"]]
        per_bucket[labels][row["le"]] += row["n"]
        sums[labels] += row["s"]
    histograms = {}
    for labels, counts in per_bucket.items():
        running, buckets = 0.0, []
        for bound in [*(repr(b) for b in metric.buckets), "+Inf"]:
            running += counts.get(bound, 0.0)
            buckets.append((bound, running))
        histograms[labels] = Histogram(buckets=buckets, sum=sums[labels], count=running)
    return histograms


def _recorded(series: str) -> tuple[MetricDef, str]:
    """Which recorded metric a series name belongs to, and which part of it: total, count, sum, bucket."""
    if series in BY_NAME and BY_NAME[series].kind == COUNTER:
        return BY_NAME[series], "total"
    for part in ("count", "sum", "bucket"):
        base = series.removesuffix(f"_{part}")
        if base != series and base in BY_NAME and BY_NAME[base].kind == HISTOGRAM:
            return BY_NAME[base], part
    raise KeyError(f"{series} is not a series karmada-ui exposes")


def _series(series: str, since: datetime | None) -> Vector:
    metric, part = _recorded(series)
    if part == "total":
        return counter_values(metric, since)
    vector: Vector = {}
    for labels, histogram in histogram_values(metric, since).items():
        if part == "count":
            vector[labels] = histogram.count
        elif part == "sum":
            vector[labels] = histogram.sum
        else:
            for bound, value in histogram.buckets:
                vector[labels_of({**dict(labels), "le": bound})] = value
    return vector


class DatabaseSource:
    """The rule expressions' source of values: the same numbers a scrape of /metrics shows."""

    def __init__(self, now: datetime | None = None) -> None:
        self.now = now or timezone.now()
        self._gauges: dict[str, Vector] | None = None

    def instant(self, series: str) -> Vector:
        if series in {metric.name for metric in CLUSTER_GAUGES}:
            if self._gauges is None:
                self._gauges = cluster_gauges()
            return self._gauges[series]
        return _series(series, None)

    def increase(self, series: str, seconds: float) -> Vector:
        """Growth over the last `seconds`, from the minute rows that start inside the window."""
        return _series(series, self.now - timedelta(seconds=seconds))
