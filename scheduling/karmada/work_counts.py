"""A binding's stored summary: target clusters applied, healthy and failed, and replicas ready of desired."""

from __future__ import annotations

from dataclasses import astuple, dataclass, fields
from typing import Any

HEALTHY, UNHEALTHY = "Healthy", "Unhealthy"


@dataclass(frozen=True)
class WorkCounts:
    """What a workload row shows for its binding, counted over spec.clusters from status.aggregatedStatus.

    ``clusters`` is the number of target clusters; ``applied``, ``healthy``, ``unhealthy`` and ``failed``
    (not applied, with the reason reported) count those targets; ``desired`` and ``ready`` sum their
    replicas (desired is 0 for a binding without replicas).
    """

    clusters: int = 0
    applied: int = 0
    healthy: int = 0
    unhealthy: int = 0
    failed: int = 0
    desired: int = 0
    ready: int = 0

    @property
    def unknown(self) -> int:
        """Targets whose health is neither Healthy nor Unhealthy (not reported yet, or no Work)."""
        return self.clusters - self.healthy - self.unhealthy

    def as_dict(self) -> dict[str, int]:
        return {**dict(zip(FIELD_NAMES, astuple(self), strict=True)), "unknown": self.unknown}


FIELD_NAMES = tuple(f.name for f in fields(WorkCounts))


def count_works(
    clusters: list[dict[str, Any]], replicas: int, aggregated_status: list[dict[str, Any]]
) -> WorkCounts:
    """The counts of one binding from its spec.clusters, spec.replicas and status.aggregatedStatus."""
    reported = {entry.get("clusterName"): entry for entry in aggregated_status or []}
    applied = healthy = unhealthy = failed = desired = ready = 0
    for target in clusters or []:
        if replicas:
            desired += int(target.get("replicas") or 0)
        entry = reported.get(target.get("name"))
        if entry is None:
            continue
        ready += int(((entry.get("status") or {}).get("readyReplicas")) or 0)
        health = entry.get("health") or "Unknown"
        healthy += health == HEALTHY
        unhealthy += health == UNHEALTHY
        if entry.get("applied"):
            applied += 1
        elif entry.get("appliedMessage"):
            failed += 1
    return WorkCounts(len(clusters or []), applied, healthy, unhealthy, failed, desired, ready)
