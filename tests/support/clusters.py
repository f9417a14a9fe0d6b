"""Factories for Cluster rows with no member behind them: a cluster, a fleet, a schedulable status."""

from __future__ import annotations

from typing import Any

from clusters.models import Cluster, ReadyState


def make_cluster(
    name: str = "member",
    *,
    labels: dict[str, str] | None = None,
    ready: str = ReadyState.TRUE,
    api_endpoint: str = "",
    **fields: Any,
) -> Cluster:
    """A saved Cluster row, Ready unless told otherwise; any other model field by keyword."""
    return Cluster.objects.create(
        name=name,
        api_endpoint=api_endpoint or f"https://{name}.example:6443",
        labels=dict(labels or {}),
        ready=ready,
        **fields,
    )


def schedulable_status(cpu: str = "16", memory: str = "64Gi", pods: int = 110) -> dict[str, Any]:
    """A Ready cluster's status with this much allocatable, as the scheduler reads it."""
    return {
        "conditions": [{"type": "Ready", "status": "True"}],
        "resourceSummary": {"allocatable": {"cpu": cpu, "memory": memory, "pods": str(pods)}},
    }


def fleet_names(n: int, prefix: str = "cluster") -> list[str]:
    """`prefix-01` … `prefix-NN`, numbered wide enough that their order by name is their order by number."""
    width = max(2, len(str(n)))
    return [f"{prefix}-{index:0{width}d}" for index in range(1, n + 1)]


def make_fleet(
    n: int = 3, *, prefix: str = "cluster", labels: dict[str, str] | None = None, **fields: Any
) -> list[Cluster]:
    """`n` clusters named by `fleet_names`, all with the same labels and fields, in name order."""
    return [make_cluster(name, labels=labels, **fields) for name in fleet_names(n, prefix)]
