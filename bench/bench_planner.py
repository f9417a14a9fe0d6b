"""Planner throughput and latency at 10, 100 and 1,000 clusters, beside the targets.

Each plan is timed twice: wall clock and process CPU time.  The ratio to the target uses the CPU
median, which stays meaningful on a shared, busy machine; the wall-clock figures are printed too.
"""

from __future__ import annotations

import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scheduling.planner import (
    Binding,
    ClusterSnapshot,
    Placement,
    ReplicaRequirements,
    ResourceSummary,
    plan,
)

# Median targets per plan, in milliseconds (clusters -> target); 10 clusters shares the 100 target.
TARGETS_MS = {10: 1.0, 100: 1.0, 1000: 10.0}
SECONDS_PER_CASE = 1.5

STATIC = {
    "replicaScheduling": {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {
            "staticWeightList": [
                {"targetCluster": {"labelSelector": {"matchLabels": {"tier": "gold"}}}, "weight": 3},
                {"targetCluster": {"labelSelector": {"matchLabels": {"tier": "silver"}}}, "weight": 2},
                {"targetCluster": {"labelSelector": {"matchLabels": {"tier": "bronze"}}}, "weight": 1},
            ]
        },
    },
    "clusterAffinity": {"labelSelector": {"matchLabels": {"env": "prod"}}},
}


def dynamic_region_spread(count: int) -> dict:
    return {
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {"dynamicWeight": "AvailableReplicas"},
        },
        "clusterAffinity": {"labelSelector": {"matchLabels": {"env": "prod"}}},
        "spreadConstraints": [
            {"spreadByField": "region", "minGroups": 2, "maxGroups": 3},
            {"spreadByField": "cluster", "minGroups": 2, "maxGroups": max(2, count // 4)},
        ],
    }


def make_clusters(count: int) -> list[ClusterSnapshot]:
    tiers = ("gold", "silver", "bronze")
    clusters = []
    for i in range(count):
        cpu = 16 + (i * 7) % 48
        clusters.append(
            ClusterSnapshot(
                name=f"member-{i:04d}",
                labels={"env": "prod", "tier": tiers[i % 3]},
                provider="example-cloud",
                region=f"region-{i % 10}",
                zones=(f"zone-{i % 10}-a",),
                resource_summary=ResourceSummary(
                    allocatable={
                        "cpu": Fraction(cpu),
                        "memory": Fraction(cpu * 4 * 2**30),
                        "pods": Fraction(110),
                    },
                    allocated={
                        "cpu": Fraction(i % 8),
                        "memory": Fraction((i % 8) * 2**30),
                        "pods": Fraction(i % 30),
                    },
                ),
            )
        )
    return clusters


def measure(clusters, placement, binding) -> tuple[list[float], list[float]]:
    """(wall ms, CPU ms) per plan, for about SECONDS_PER_CASE."""
    wall, cpu = [], []
    deadline = time.perf_counter() + SECONDS_PER_CASE
    while time.perf_counter() < deadline or len(wall) < 20:
        start, start_cpu = time.perf_counter_ns(), time.process_time_ns()
        result = plan(clusters, placement, binding)
        cpu.append((time.process_time_ns() - start_cpu) / 1e6)
        wall.append((time.perf_counter_ns() - start) / 1e6)
        if result.error is not None:
            raise SystemExit(f"benchmark plan failed: {result.error.message}")
    return sorted(wall), sorted(cpu)


def p99(values: list[float]) -> float:
    return values[min(len(values) - 1, int(len(values) * 0.99))]


def main() -> int:
    requirements = ReplicaRequirements(resource_request={"cpu": Fraction(1, 2), "memory": Fraction(2**30)})
    print(
        f"{'scenario':<33}{'clusters':>9}{'plans/s':>9}{'cpu median':>12}{'cpu p99':>9}"
        f"{'wall median':>13}{'wall p99':>10}{'target':>8}{'ratio':>7}"
    )
    worst = 0.0
    for count in (10, 100, 1000):
        clusters = make_clusters(count)
        cases = [
            ("static weights", Placement.from_dict(STATIC), Binding(replicas=3 * count, uid="bench")),
            (
                "dynamic weights + region spread",
                Placement.from_dict(dynamic_region_spread(count)),
                Binding(replicas=2 * count, requirements=requirements, uid="bench"),
            ),
        ]
        for label, placement, binding in cases:
            wall, cpu = measure(clusters, placement, binding)
            median = statistics.median(cpu)
            target = TARGETS_MS[count]
            ratio = median / target
            worst = max(worst, ratio)
            print(
                f"{label:<33}{count:>9}{1000 / statistics.mean(wall):>9.0f}{median:>12.3f}{p99(cpu):>9.3f}"
                f"{statistics.median(wall):>13.3f}{p99(wall):>10.3f}{target:>8.1f}{ratio:>7.2f}"
            )
    print("times in ms per plan; ratio = CPU median / target median")
    print(f"worst ratio: {worst:.2f} ({'within' if worst <= 1 else 'OVER'} target)")
    return 0 if worst <= 1 else 1


if __name__ == "__main__":
    raise SystemExit(main())
