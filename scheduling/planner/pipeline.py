"""The entry point: filter, score, estimate, select and assign, over every clusterAffinities term."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Any

from kubesyntax.resources import format_resource

from .assign import assign_replicas
from .errors import NO_CLUSTER_FIT, FitError, ScheduleFailure
from .estimator import MAX_INT32, estimate_cluster
from .filters import filter_cluster
from .messages import Reason, error_message, karmada_filter_message
from .model import Binding, ClusterSnapshot, Plan, PlanError, ReplicaRequirements, TargetCluster
from .placement import Placement
from .quota import QuotaExceededError, QuotaSnapshot, binding_usage, check_quota
from .spread import Candidate, candidate_key, select_clusters
from .workload_affinity import WorkloadPeer

LOCALITY_SCORE = 100
NO_OVERFLOW_TIER = 1000


def score_locality(name: str, previous: Collection[str]) -> int:
    """ClusterLocality: full score for a cluster the binding already uses, else 0 (ClusterAffinity adds 0)."""
    return LOCALITY_SCORE if name in previous else 0


def overflow_order(cluster: ClusterSnapshot, placement: Placement, observed: str) -> int:
    """0 for the observed term's own group, i for its i-th overflow group, 1000 otherwise."""
    if placement.cluster_affinity is not None or not placement.cluster_affinities:
        return 0
    term = placement.term(observed)
    if term is None:
        return NO_OVERFLOW_TIER
    if term.affinity.matches(cluster):
        return 0
    for index, overflow in enumerate(term.overflow or ()):
        if overflow.affinity.matches(cluster):
            return index + 1
    return NO_OVERFLOW_TIER


def effective_binding(placement: Placement, binding: Binding) -> Binding:
    """Fold the placement's node claim into a workload's replica requirements (non-workloads have no pods)."""
    if placement.node_claim is None or not binding.is_workload:
        return binding
    requirements = binding.requirements or ReplicaRequirements()
    claim = placement.node_claim
    if requirements.node_claim is not None:
        claim = requirements.node_claim.merged(placement.node_claim)
    return replace(binding, requirements=replace(requirements, node_claim=claim))


def _fit_error(total: int, first_reasons: list[str]) -> FitError:
    if total == 0 or not first_reasons:
        return FitError(
            error_message("no_cluster_fit", total=total, reasons=error_message("no_cluster_exists"))
        )
    histogram: dict[str, int] = {}
    for message in first_reasons:
        histogram[message] = histogram.get(message, 0) + 1
    reasons = ", ".join(sorted(f"{count} {message}" for message, count in histogram.items()))
    return FitError(error_message("no_cluster_fit", total=total, reasons=reasons))


def schedule_once(
    clusters: Sequence[ClusterSnapshot],
    placement: Placement,
    binding: Binding,
    observed: str,
    trace: dict[str, Any],
    peers: Sequence[WorkloadPeer] = (),
) -> list[TargetCluster]:
    """One Karmada Schedule() call with ``observed`` as the active affinity term; raises ScheduleFailure."""
    previous = frozenset(target.name for target in binding.previous)
    held = {target.name: target.replicas for target in binding.previous}
    entries: dict[str, dict[str, Any]] = {}
    trace["clusters"] = entries
    feasible = []
    first_reasons = []
    for cluster in clusters:
        if cluster.deleting:
            entries[cluster.name] = _entry(cluster.name, "excluded", [_deleting()])
            continue
        reasons = filter_cluster(cluster, placement, binding, observed, previous, peers)
        if reasons:
            entries[cluster.name] = _entry(cluster.name, "excluded", [r.as_dict() for r in reasons])
            first_reasons.append(karmada_filter_message(reasons[0]))
        else:
            feasible.append(cluster)
    if not feasible:
        raise _fit_error(len(clusters), first_reasons)

    candidates = []
    estimate = binding.replicas != 0
    requirements = binding.requirements
    plain_affinity = placement.cluster_affinity is not None or not placement.cluster_affinities
    for cluster in feasible:
        name = cluster.name
        if estimate:
            allocatable, capacity = estimate_cluster(cluster, requirements, binding.replicas)
        else:
            allocatable, capacity = MAX_INT32, None
        score = score_locality(name, previous)
        available = allocatable + held.get(name, 0)
        order = 0 if plain_affinity else overflow_order(cluster, placement, observed)
        candidates.append(Candidate(name, score, available, allocatable, order, cluster, capacity))
        entries[name] = {
            "name": name,
            "outcome": "not_selected",
            "reasons": [],
            "replicas": 0,
            "weight": None,
            "score": score,
            "allocatable": allocatable if estimate else None,
            "available": available if estimate else None,
            "overflow_order": order,
            "capacity": capacity,
        }
    candidates.sort(key=candidate_key)
    trace["candidate_order"] = [c.name for c in candidates]
    selection: dict[str, Any] = {}
    trace["selection"] = selection
    selected = select_clusters(placement, candidates, binding.replicas, selection)
    for candidate in selected:
        entries[candidate.name]["outcome"] = "selected"
    if len(selected) < len(candidates):
        _explain_unselected(candidates, entries, selection)
    result = assign_replicas(selected, binding, placement, observed, trace)
    for target in result:
        entries[target.name]["outcome"] = "assigned"
        entries[target.name]["replicas"] = target.replicas
    return result


def _explain_unselected(
    candidates: list[Candidate], entries: dict[str, dict[str, Any]], selection: dict[str, Any]
) -> None:
    chosen_regions = selection.get("chosen_regions")
    reasons: dict[str, dict[str, Any]] = {}
    for candidate in candidates:
        entry = entries[candidate.name]
        if entry["outcome"] != "not_selected":
            continue
        outside = chosen_regions is not None and candidate.region not in chosen_regions
        key = candidate.region if outside else ""
        if key not in reasons:
            if key:
                reason = Reason("SpreadConstraint", "region_not_chosen", {"region": key})
            else:
                reason = Reason("SpreadConstraint", "spread_limit", {"limit": selection.get("limit", 0)})
            reasons[key] = reason.as_dict()
        entry["reasons"] = [dict(reasons[key])]


def _entry(name: str, outcome: str, reasons: list[dict[str, Any]]) -> dict[str, Any]:
    return {"name": name, "outcome": outcome, "reasons": reasons, "replicas": 0, "weight": None}


def _deleting() -> dict[str, Any]:
    return Reason("Deletion", "deleting").as_dict()


def plan(
    clusters: Sequence[ClusterSnapshot],
    placement: Placement,
    binding: Binding,
    *,
    peers: Sequence[WorkloadPeer] = (),
    quotas: Sequence[QuotaSnapshot] = (),
) -> Plan:
    """Schedule ``binding`` over ``clusters`` under ``placement`` exactly as Karmada's scheduler would.

    ``peers`` are the namespace's other ResourceBindings (for the workload affinity filters) and
    ``quotas`` its FederatedResourceQuotas with their usage: a result that would take the namespace
    over one is refused (QuotaExceeded) and the previous result kept, as Karmada's webhook does.
    """
    result = _plan(clusters, placement, effective_binding(placement, binding), peers)
    if not quotas or (result.error is not None and result.error.reason != NO_CLUSTER_FIT):
        return result
    return _enforce_quotas(result, binding, quotas)


def _enforce_quotas(result: Plan, binding: Binding, quotas: Sequence[QuotaSnapshot]) -> Plan:
    """Check the result to be written (a success, or NoClusterFit's empty list) against the quotas."""
    before = binding_usage(binding.requirements, binding.previous)
    after = binding_usage(binding.requirements, result.clusters)
    explanation = dict(result.explanation)
    try:
        trace = check_quota(quotas, binding.namespace, before, after)
    except QuotaExceededError as refusal:
        trace = refusal.trace
        trace["proposed"] = [target.as_dict() for target in result.clusters]
        explanation["quota"] = trace
        error = PlanError(refusal.reason, refusal.message)
        explanation["error"] = error.as_dict()
        explanation["result_kept"] = [target.as_dict() for target in binding.previous]
        return Plan(binding.previous, error, result.observed_affinity, result.strategy, explanation)
    trace["proposed"] = [target.as_dict() for target in result.clusters]
    explanation["quota"] = trace
    return Plan(result.clusters, result.error, result.observed_affinity, result.strategy, explanation)


def _plan(
    clusters: Sequence[ClusterSnapshot],
    placement: Placement,
    binding: Binding,
    peers: Sequence[WorkloadPeer],
) -> Plan:
    terms = placement.cluster_affinities
    attempts: list[dict[str, Any]] = []
    if placement.cluster_affinity is None and terms:
        start = 0
        if not binding.fresh:
            start = next((i for i, term in enumerate(terms) if term.name == binding.observed_affinity), 0)
        first: tuple[ScheduleFailure, dict[str, Any]] | None = None
        for term in terms[start:]:
            trace: dict[str, Any] = {}
            try:
                result = schedule_once(clusters, placement, binding, term.name, trace, peers)
            except ScheduleFailure as failure:
                attempts.append({"name": term.name, "error": failure.message, "reason": failure.reason})
                first = first or (failure, trace)
                continue
            attempts.append({"name": term.name, "error": None, "reason": None})
            return _success(result, placement, binding, term.name, trace, attempts)
        assert first is not None
        return _failure(first[0], placement, binding, binding.observed_affinity, first[1], attempts)
    trace = {}
    try:
        result = schedule_once(clusters, placement, binding, binding.observed_affinity, trace, peers)
    except ScheduleFailure as failure:
        return _failure(failure, placement, binding, binding.observed_affinity, trace, attempts)
    return _success(result, placement, binding, binding.observed_affinity, trace, attempts)


def _success(
    result: list[TargetCluster],
    placement: Placement,
    binding: Binding,
    observed: str,
    trace: dict[str, Any],
    attempts: list[dict[str, Any]],
) -> Plan:
    explanation = _explanation(placement, binding, trace, attempts, None, None)
    return Plan(tuple(result), None, observed, placement.strategy or "Unsupported", explanation)


def _failure(
    failure: ScheduleFailure,
    placement: Placement,
    binding: Binding,
    observed: str,
    trace: dict[str, Any],
    attempts: list[dict[str, Any]],
) -> Plan:
    error = PlanError(failure.reason, failure.message)
    kept = () if failure.reason == NO_CLUSTER_FIT else binding.previous
    explanation = _explanation(placement, binding, trace, attempts, error, kept)
    return Plan(kept, error, observed, placement.strategy or "Unsupported", explanation)


def _explanation(
    placement: Placement,
    binding: Binding,
    trace: dict[str, Any],
    attempts: list[dict[str, Any]],
    error: PlanError | None,
    kept: tuple[TargetCluster, ...] | None,
) -> dict[str, Any]:
    weights = trace.get("weights", {})
    clusters = [entry for _, entry in sorted(trace.get("clusters", {}).items())]
    for entry in clusters:
        entry["weight"] = weights.get(entry["name"])
    requirements = binding.requirements
    explanation: dict[str, Any] = {
        "strategy": placement.strategy or "Unsupported",
        "mode": "fresh" if binding.fresh else "steady",
        "division_method": placement.division_method,
        "workload": {
            "replicas": binding.replicas,
            "is_workload": binding.is_workload,
            "requests": {
                name: format_resource(name, amount)
                for name, amount in sorted((requirements.resource_request if requirements else {}).items())
            },
            "node_claim": bool(requirements and requirements.node_claim),
        },
        "clusters": clusters,
        "candidate_order": trace.get("candidate_order", []),
        "selection": trace.get("selection", {}),
        "divisions": trace.get("divisions", []),
        "error": None if error is None else error.as_dict(),
        "result_kept": None
        if kept is None or error is None or error.reason == NO_CLUSTER_FIT
        else [t.as_dict() for t in kept],
    }
    for key in ("phase", "tiers", "aggregated_prefix"):
        if key in trace:
            explanation[key] = trace[key]
    if attempts:
        explanation["affinity_terms"] = attempts
    return explanation
