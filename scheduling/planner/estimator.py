"""How many more replicas fit in a cluster: Karmada's general estimator and our node-level one."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from kubesyntax.taints import Toleration, first_untolerated

from .model import ClusterSnapshot, Node, ReplicaRequirements, ResourceSummary, request_key
from .placement import NodeClaim
from .resource_models import ResourceModel, estimate_by_models

MAX_INT32 = 2**31 - 1
_ZERO = Fraction(0)


def estimate_general(
    summary: ResourceSummary | None,
    requirements: ReplicaRequirements | None,
    models: tuple[ResourceModel, ...] = (),
) -> int:
    """Karmada's general estimator over ``status.resourceSummary`` (spec §2.3).

    With allocatable modelings reported and the cluster's resource models usable, the modelled
    nodes replace the summary's free resources (CustomizedClusterResourceModeling, on by default).
    """
    if summary is None:
        return 0
    best = summary.free_pods
    if best <= 0:
        return 0
    if requirements is not None and summary.allocatable_modelings:
        by_models = estimate_by_models(models, summary.allocatable_modelings, requirements.resource_request)
        if by_models is not None:
            return min(best, by_models, MAX_INT32)
    if requirements is not None:
        free = summary.free_units
        for name, (whole, milli) in requirements.request_units.items():
            if name not in free:
                return 0
            free_whole, free_milli = free[name]
            if free_whole <= 0:
                return 0
            bound = free_milli // milli if name == "cpu" else free_whole // whole
            if bound < best:
                best = bound
    return min(best, MAX_INT32)


def node_matches_claim(node: Node, claim: NodeClaim | None) -> bool:
    """The node carries the selected labels, satisfies a required affinity term and tolerates its taints."""
    tolerations: tuple[Toleration, ...] = ()
    if claim is not None:
        for key, value in claim.node_selector:
            if node.labels.get(key) != value:
                return False
        if claim.hard_node_affinity is not None and not any(
            term.matches(node.name, node.labels) for term in claim.hard_node_affinity
        ):
            return False
        tolerations = claim.tolerations
    return first_untolerated(node.taints, tolerations) is None


def node_room(
    node: Node, request: dict[str, Fraction], key: tuple[tuple[str, int, int], ...] | None = None
) -> int:
    """Whole replicas that still fit on one node (pods and every positive request); `key` is the
    request's request_key when the caller made it already."""
    key = request_key(request) if key is None else key
    room = node.rooms.get(key)
    if room is None:
        room = node.rooms[key] = _node_room(node, request)
    return room


def _node_room(node: Node, request: dict[str, Fraction]) -> int:
    bounds = []
    if "pods" in node.allocatable:
        bounds.append(math.floor(node.allocatable["pods"] - node.allocated.get("pods", _ZERO)))
    for name, amount in request.items():
        if amount <= 0:
            continue
        if name not in node.allocatable:
            return 0
        bounds.append(math.floor((node.allocatable[name] - node.allocated.get(name, _ZERO)) / amount))
    if not bounds:
        return MAX_INT32
    return max(0, min(bounds))


def estimate_nodes(nodes: tuple[Node, ...], requirements: ReplicaRequirements | None) -> tuple[int, int]:
    """Node-level estimate: the sum of per-node fits over ready, schedulable, matching nodes.

    Returns (replicas, number of nodes that qualify).
    """
    claim = requirements.node_claim if requirements is not None else None
    request = requirements.resource_request if requirements is not None else {}
    key = requirements.room_key if requirements is not None else ()
    total = 0
    eligible = 0
    for node in nodes:
        if not node.ready or node.unschedulable or not node_matches_claim(node, claim):
            continue
        eligible += 1
        total += node_room(node, request, key)
    return min(total, MAX_INT32), eligible


def estimate_cluster(
    cluster: ClusterSnapshot, requirements: ReplicaRequirements | None, replicas: int
) -> tuple[int, dict[str, Any]]:
    """AllocatableReplicas: the tighter of the estimators, MaxInt32 replaced by ``replicas``."""
    general = estimate_general(cluster.resource_summary, requirements, cluster.resource_models)
    detail: dict[str, Any] = {"general": general}
    result = general
    if cluster.nodes is not None:
        by_nodes, eligible = estimate_nodes(cluster.nodes, requirements)
        detail.update({"nodes": by_nodes, "eligible_nodes": eligible, "total_nodes": len(cluster.nodes)})
        result = min(result, by_nodes)
    if result == MAX_INT32:
        result = replicas
    return result, detail
