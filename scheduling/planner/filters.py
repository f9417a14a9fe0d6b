"""Karmada's filter plugins, each returning the reason a cluster fails it (or None)."""

from __future__ import annotations

from collections.abc import Sequence

from kubesyntax.taints import first_untolerated

from .messages import Reason
from .model import Binding, ClusterSnapshot
from .placement import Placement
from .workload_affinity import WorkloadPeer, filter_workload_affinity, filter_workload_anti_affinity

FILTERS = (
    "APIEnablement",
    "TaintToleration",
    "ClusterAffinity",
    "SpreadConstraint",
    "ClusterEviction",
    "WorkloadAntiAffinity",
    "WorkloadAffinity",
)


def filter_api_enablement(
    cluster: ClusterSnapshot, binding: Binding, previous: frozenset[str]
) -> Reason | None:
    """The template's group/version and kind are enabled, or the cluster already holds the workload."""
    if cluster.name in previous or cluster.api_enablements is None:
        return None
    if (binding.api_version, binding.kind) in cluster.api_enablements:
        return None
    code = "api_disabled" if cluster.api_enablements_complete else "api_unknown"
    return Reason("APIEnablement", code, {"api": f"{binding.api_version}/{binding.kind}"})


def filter_taints(cluster: ClusterSnapshot, placement: Placement, previous: frozenset[str]) -> Reason | None:
    """Every NoSchedule/NoExecute taint is tolerated, or the cluster already holds the workload."""
    if cluster.name in previous:
        return None
    taint = first_untolerated(cluster.effective_taints, placement.cluster_tolerations)
    if taint is None:
        return None
    return Reason("TaintToleration", "taint_not_tolerated", {"taint": str(taint)})


def filter_affinity(
    cluster: ClusterSnapshot, placement: Placement, binding: Binding, observed: str
) -> Reason | None:
    """ClusterAffinity, or the observed clusterAffinities term (plus its overflow groups for workloads)."""
    affinity = placement.cluster_affinity
    if affinity is not None:
        return None if affinity.matches(cluster) else affinity.mismatch(cluster)
    term = placement.term(observed) if placement.cluster_affinities is not None else None
    if term is None:
        return None
    if term.affinity.matches(cluster):
        return None
    reason = term.affinity.mismatch(cluster)
    if binding.is_workload and any(overflow.affinity.matches(cluster) for overflow in term.overflow or ()):
        return None
    return reason


def filter_spread_fields(cluster: ClusterSnapshot, placement: Placement) -> Reason | None:
    """A provider/region/zone spread constraint needs that field set on the cluster."""
    for constraint in placement.spread_constraints:
        field = constraint.spread_by_field
        if (
            (field == "provider" and not cluster.provider)
            or (field == "region" and not cluster.region)
            or (field == "zone" and not cluster.zones)
        ):
            name = "zones" if field == "zone" else field
            return Reason("SpreadConstraint", "spread_field_missing", {"field": name})
    return None


def filter_eviction(cluster: ClusterSnapshot, binding: Binding) -> Reason | None:
    """The cluster is not the source of a graceful eviction task."""
    if any(task.from_cluster == cluster.name for task in binding.eviction_tasks):
        return Reason("ClusterEviction", "evicting")
    return None


def filter_cluster(
    cluster: ClusterSnapshot,
    placement: Placement,
    binding: Binding,
    observed: str,
    previous: frozenset[str] | None = None,
    peers: Sequence[WorkloadPeer] = (),
) -> list[Reason]:
    """Every filter's reason against this cluster, in plugin order; empty when it fits.

    ``previous`` is the set of clusters in the previous result (computed when not given); ``peers``
    the other ResourceBindings the workload affinity filters compare with.
    """
    if previous is None:
        previous = frozenset(target.name for target in binding.previous)
    reasons = []
    if cluster.name not in previous:
        if cluster.api_enablements is not None:
            reason = filter_api_enablement(cluster, binding, previous)
            if reason is not None:
                reasons.append(reason)
        if cluster.taints or cluster.ready != "True":
            reason = filter_taints(cluster, placement, previous)
            if reason is not None:
                reasons.append(reason)
    reason = filter_affinity(cluster, placement, binding, observed)
    if reason is not None:
        reasons.append(reason)
    if placement.spread_constraints:
        reason = filter_spread_fields(cluster, placement)
        if reason is not None:
            reasons.append(reason)
    if binding.eviction_tasks:
        reason = filter_eviction(cluster, binding)
        if reason is not None:
            reasons.append(reason)
    if peers and binding.anti_affinity_group:
        reason = filter_workload_anti_affinity(
            cluster.name,
            binding.namespace,
            binding.binding_name,
            binding.anti_affinity_group,
            previous,
            peers,
        )
        if reason is not None:
            reasons.append(reason)
    if peers and binding.affinity_group:
        reason = filter_workload_affinity(
            cluster.name, binding.namespace, binding.binding_name, binding.affinity_group, previous, peers
        )
        if reason is not None:
            reasons.append(reason)
    return reasons
