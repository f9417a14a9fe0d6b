"""The estimated running cost of a split, from optional per-cluster prices carried as cluster labels.

A cluster may carry ``cost.karmada-ui.io/cpu-hour`` (the price of one CPU core for an hour) and
``cost.karmada-ui.io/memory-gib-hour`` (one GiB of memory for an hour), as plain decimal numbers in
whatever currency the fleet is billed in.  A replica costs its requests times those prices; a cluster
without either label has no price and is left out of the totals (and named as such).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from .model import ClusterSnapshot, ReplicaRequirements

CPU_HOUR_LABEL = "cost.karmada-ui.io/cpu-hour"
MEMORY_GIB_HOUR_LABEL = "cost.karmada-ui.io/memory-gib-hour"
HOURS_PER_MONTH = 730
_GIB = 2**30
_PRICE = re.compile(r"^\d{1,9}(\.\d{1,9})?$")


@dataclass(frozen=True)
class ClusterPrice:
    """What one CPU core and one GiB of memory cost per hour on a cluster (None: no price set)."""

    cpu_hour: Fraction | None = None
    memory_gib_hour: Fraction | None = None

    @property
    def priced(self) -> bool:
        return self.cpu_hour is not None or self.memory_gib_hour is not None


def parse_price(text: str | None) -> Fraction | None:
    """A label value such as ``0.031`` as an exact number; None when absent or not a plain decimal."""
    if text is None or not _PRICE.match(text):
        return None
    return Fraction(Decimal(text))


def cluster_price(cluster: ClusterSnapshot) -> ClusterPrice:
    """The cluster's prices from its labels; a malformed value counts as no price."""
    return ClusterPrice(
        cpu_hour=parse_price(cluster.labels.get(CPU_HOUR_LABEL)),
        memory_gib_hour=parse_price(cluster.labels.get(MEMORY_GIB_HOUR_LABEL)),
    )


def replica_hourly_cost(price: ClusterPrice, requirements: ReplicaRequirements | None) -> Fraction | None:
    """One replica's cost per hour on a priced cluster; None when the workload requests nothing priced."""
    request = requirements.resource_request if requirements is not None else {}
    cost = Fraction(0)
    counted = False
    if price.cpu_hour is not None and request.get("cpu"):
        cost += request["cpu"] * price.cpu_hour
        counted = True
    if price.memory_gib_hour is not None and request.get("memory"):
        cost += request["memory"] / _GIB * price.memory_gib_hour
        counted = True
    return cost if counted else None


def split_cost(
    clusters: Sequence[ClusterSnapshot],
    requirements: ReplicaRequirements | None,
    proposed: Mapping[str, int],
    current: Mapping[str, int] | None = None,
) -> dict[str, Any] | None:
    """The hourly cost of the proposed split per cluster and in total, beside the current split's.

    None when no cluster of the fleet carries a price.  Amounts are floats rounded to 6 places;
    ``unpriced`` names clusters that hold replicas but have no price (or whose price the workload's
    requests do not touch), so a total is never silently partial.
    """
    prices = {cluster.name: cluster_price(cluster) for cluster in clusters}
    if not any(price.priced for price in prices.values()):
        return None
    rows = []
    totals = {"proposed": Fraction(0), "current": Fraction(0)}
    unpriced: set[str] = set()
    names = sorted({*proposed, *(current or {})})
    for name in names:
        price = prices.get(name, ClusterPrice())
        per_replica = replica_hourly_cost(price, requirements) if price.priced else None
        row: dict[str, Any] = {
            "cluster": name,
            "replicas": proposed.get(name, 0),
            "per_replica_hour": _amount(per_replica),
            "hour": None,
            "current_hour": None,
        }
        if per_replica is None:
            if proposed.get(name) or (current or {}).get(name):
                unpriced.add(name)
        else:
            hourly = per_replica * proposed.get(name, 0)
            row["hour"] = _amount(hourly)
            totals["proposed"] += hourly
            if current is not None:
                now = per_replica * current.get(name, 0)
                row["current_hour"] = _amount(now)
                totals["current"] += now
        rows.append(row)
    result: dict[str, Any] = {
        "clusters": rows,
        "hour": _amount(totals["proposed"]),
        "month": _amount(totals["proposed"] * HOURS_PER_MONTH),
        "unpriced": sorted(unpriced),
        "current_hour": None,
        "difference_hour": None,
        "difference_month": None,
    }
    if current is not None:
        difference = totals["proposed"] - totals["current"]
        result.update(
            current_hour=_amount(totals["current"]),
            difference_hour=_amount(difference),
            difference_month=_amount(difference * HOURS_PER_MONTH),
        )
    return result


def _amount(value: Fraction | None) -> float | None:
    return None if value is None else round(float(value), 6)
