"""Replica assignment over the selected clusters: Duplicated, static weight, dynamic weight, Aggregated."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .dispenser import divide
from .errors import SchedulerError, UnschedulableError
from .messages import error_message
from .model import Binding, TargetCluster
from .placement import (
    STRATEGY_AGGREGATED,
    STRATEGY_DUPLICATED,
    STRATEGY_DYNAMIC_WEIGHT,
    STRATEGY_STATIC_WEIGHT,
    Placement,
)
from .spread import Candidate


def overflow_enabled(placement: Placement, observed: str) -> bool:
    """Overflow tiers apply when the observed clusterAffinities term declares overflowAffinities."""
    if placement.cluster_affinity is not None or placement.cluster_affinities is None or not observed:
        return False
    term = placement.term(observed)
    return term is not None and term.overflow is not None


def assign_replicas(
    selected: list[Candidate],
    binding: Binding,
    placement: Placement,
    observed: str = "",
    trace: dict[str, Any] | None = None,
) -> list[TargetCluster]:
    """Karmada AssignReplicas: a non-workload goes everywhere with no count; zero entries are dropped."""
    if not selected:
        raise SchedulerError(error_message("no_clusters_selected"))
    if not binding.is_workload:
        return [TargetCluster(c.name, 0) for c in selected]
    if not overflow_enabled(placement, observed):
        return assign_to_clusters(selected, binding, placement, trace)
    tiers: dict[int, list[Candidate]] = {}
    for candidate in selected:
        tiers.setdefault(candidate.overflow_order, []).append(candidate)
    remaining = binding.replicas
    result: list[TargetCluster] = []
    for order in sorted(tiers):
        members = tiers[order]
        share = min(remaining, sum(c.available for c in members))
        if trace is not None:
            trace.setdefault("tiers", []).append(
                {"tier": order, "clusters": [c.name for c in members], "replicas": share}
            )
        result.extend(assign_to_clusters(members, replace(binding, replicas=share), placement, trace))
        remaining -= share
        if remaining <= 0:
            break
    if remaining > 0:
        raise UnschedulableError(error_message("overflow_not_enough"))
    return result


def assign_to_clusters(
    candidates: list[Candidate], binding: Binding, placement: Placement, trace: dict[str, Any] | None = None
) -> list[TargetCluster]:
    """Run the placement's strategy and drop clusters that received nothing."""
    return [target for target in assign_raw(candidates, binding, placement, trace) if target.replicas > 0]


def assign_raw(
    candidates: list[Candidate], binding: Binding, placement: Placement, trace: dict[str, Any] | None = None
) -> list[TargetCluster]:
    """Run the placement's strategy; zero-replica entries are kept (Karmada's assign functions)."""
    strategy = placement.strategy
    if strategy == STRATEGY_DUPLICATED:
        result = [TargetCluster(c.name, binding.replicas) for c in candidates]
    elif strategy == STRATEGY_STATIC_WEIGHT:
        result = assign_static(candidates, binding, placement, trace)
    elif strategy in (STRATEGY_DYNAMIC_WEIGHT, STRATEGY_AGGREGATED):
        result = assign_dynamic(candidates, binding, placement, trace)
    else:
        rs = placement.replica_scheduling
        raise SchedulerError(
            error_message(
                "unsupported_strategy",
                type=placement.scheduling_type,
                preference=rs.division_preference if rs else "",
            )
        )
    return result


def static_weights(candidates: list[Candidate], placement: Placement) -> list[tuple[str, int]]:
    """Each cluster's weight: the largest matching rule; unmatched clusters dropped; all 1 if none match."""
    rs = placement.replica_scheduling
    if rs is None or rs.static_weights is None:
        return [(c.name, 1) for c in candidates]
    weights = []
    for candidate in candidates:
        weight = 0
        for rule in rs.static_weights:
            if (
                candidate.cluster is not None
                and rule.weight > weight
                and rule.target.matches(candidate.cluster)
            ):
                weight = rule.weight
        if weight > 0:
            weights.append((candidate.name, weight))
    if not weights:
        return [(c.name, 1) for c in candidates]
    return weights


def _divisions(trace: dict[str, Any] | None) -> list[dict[str, Any]] | None:
    return None if trace is None else trace.setdefault("divisions", [])


def assign_static(
    candidates: list[Candidate], binding: Binding, placement: Placement, trace: dict[str, Any] | None = None
) -> list[TargetCluster]:
    """Static weight: divide all replicas by weight from scratch; history and capacity are ignored."""
    weights = static_weights(candidates, placement)
    if trace is not None:
        trace.setdefault("weights", {}).update(dict(weights))
    seats = divide(binding.replicas, weights, binding.uid, None, placement.division_method, _divisions(trace))
    return [TargetCluster(name, count) for name, count in seats.items()]


def _by_weight(entries: list[tuple[str, int]]) -> list[tuple[str, int]]:
    return sorted(entries, key=lambda entry: -entry[1])


def assign_dynamic(
    candidates: list[Candidate], binding: Binding, placement: Placement, trace: dict[str, Any] | None = None
) -> list[TargetCluster]:
    """Dynamic weight and Aggregated, in steady (keep, scale up, scale down) or fresh mode."""
    names = {c.name for c in candidates}
    scheduled = [target for target in binding.previous if target.name in names]
    assigned = sum(target.replicas for target in scheduled)
    if binding.fresh:
        held = {target.name: target.replicas for target in scheduled}
        weights = _by_weight([(c.name, c.allocatable + held.get(c.name, 0)) for c in candidates])
        target, scheduled, phase = binding.replicas, [], "fresh"
    elif assigned > binding.replicas:
        weights = _by_weight([(t.name, t.replicas) for t in scheduled])
        target, scheduled, phase = binding.replicas, [], "scale-down"
    elif assigned < binding.replicas:
        weights = _by_weight([(c.name, c.allocatable) for c in candidates])
        target, phase = binding.replicas - assigned, "scale-up"
    else:
        if trace is not None:
            trace["phase"] = "unchanged"
        return scheduled
    if trace is not None:
        trace["phase"] = phase
        trace.setdefault("weights", {}).update(dict(weights))
    return divide_dynamic(target, weights, scheduled, binding, placement, trace)


def divide_dynamic(
    target: int,
    weights: list[tuple[str, int]],
    scheduled: list[TargetCluster],
    binding: Binding,
    placement: Placement,
    trace: dict[str, Any] | None = None,
) -> list[TargetCluster]:
    """Karmada dynamicDivideReplicas: capacity check, Aggregated prefix, divide, merge with ``scheduled``."""
    available = sum(weight for _, weight in weights)
    if available < target:
        raise UnschedulableError(error_message("not_enough_replicas", available=available))
    if placement.strategy == STRATEGY_AGGREGATED:
        prior = {t.name for t in scheduled if t.replicas > 0}
        if prior:
            weights = [w for w in weights if w[0] in prior] + [w for w in weights if w[0] not in prior]
        total = 0
        for index, (_, weight) in enumerate(weights):
            total += weight
            if total >= target:
                weights = weights[: index + 1]
                break
        if trace is not None:
            trace["aggregated_prefix"] = [name for name, _ in weights]
    seats = divide(target, weights, binding.uid, None, placement.division_method, _divisions(trace))
    fresh = [TargetCluster(name, count) for name, count in seats.items()]
    return merge(scheduled, fresh)


def merge(old: list[TargetCluster], new: list[TargetCluster]) -> list[TargetCluster]:
    """Karmada MergeTargetClusters: add old replicas to new entries, then append old-only entries."""
    if not old:
        return new
    if not new:
        return old
    held = {target.name: target.replicas for target in old}
    merged = [TargetCluster(t.name, t.replicas + held.pop(t.name, 0)) for t in new]
    merged.extend(TargetCluster(t.name, t.replicas) for t in old if t.name in held)
    return merged
