"""The planner's inputs from the database, built one way for the scheduler, the previews and the drills:
clusters as Karmada Cluster objects and ClusterSnapshots, a binding as the planner's Binding and Placement."""

from __future__ import annotations

import copy
from typing import Any

from clusters.models import Cluster
from scheduling.karmada.documents import parse_cluster
from scheduling.karmada.interpreter import requirements_from_json
from scheduling.models import ResourceBinding
from scheduling.planner import (
    Binding,
    ClusterSnapshot,
    EvictionTask,
    InputError,
    Placement,
    TargetCluster,
    division_method_from_annotations,
)

CLUSTER_API = "cluster.karmada.io/v1alpha1"


def _conditions(cluster: Cluster, status: dict[str, Any]) -> list[dict[str, Any]]:
    """status.conditions with Ready taken from the health state machine's column, the source of truth."""
    conditions = [
        c for c in status.get("conditions") or [] if isinstance(c, dict) and c.get("type") != "Ready"
    ]
    ready: dict[str, Any] = {"type": "Ready", "status": str(cluster.ready)}
    if cluster.ready_reason:
        ready["reason"] = cluster.ready_reason
    if cluster.ready_message:
        ready["message"] = cluster.ready_message
    if cluster.ready_since:
        ready["lastTransitionTime"] = cluster.ready_since.strftime("%Y-%m-%dT%H:%M:%SZ")
    return [ready, *conditions]


def cluster_document(cluster: Cluster) -> dict[str, Any]:
    """A cluster.karmada.io/v1alpha1 Cluster: spec from the columns, status as collected. No credentials."""
    spec: dict[str, Any] = {"apiEndpoint": cluster.api_endpoint, "syncMode": cluster.sync_mode}
    for key in ("provider", "region", "zone"):
        if getattr(cluster, key):
            spec[key] = getattr(cluster, key)
    if cluster.zones:
        spec["zones"] = list(cluster.zones)
    if cluster.taints:
        spec["taints"] = copy.deepcopy(cluster.taints)
    if cluster.insecure_skip_tls_verify:
        spec["insecureSkipTLSVerification"] = True
    metadata: dict[str, Any] = {"name": cluster.name}
    if cluster.labels:
        metadata["labels"] = dict(sorted(cluster.labels.items()))
    status = copy.deepcopy(cluster.status or {})
    status["conditions"] = _conditions(cluster, status)
    return {
        "apiVersion": CLUSTER_API,
        "kind": "Cluster",
        "metadata": metadata,
        "spec": spec,
        "status": status,
    }


def cluster_snapshot(cluster: Cluster) -> ClusterSnapshot:
    """What the planner knows about one member cluster: labels, topology, taints, status, nodes."""
    return parse_cluster(cluster_document(cluster))


def cluster_identity(cluster: Cluster) -> ClusterSnapshot:
    """Only what cluster affinities match on (name, labels, provider, region, zones); no status parsed.

    Enough for override rules' targetCluster, and cheap enough to build per Work.
    """
    return ClusterSnapshot(
        name=cluster.name,
        labels=dict(cluster.labels),
        provider=cluster.provider,
        region=cluster.region,
        zones=tuple(cluster.zones),
    )


def load_snapshots() -> list[ClusterSnapshot]:
    """Every cluster as the planner sees it; a cluster whose stored status is malformed is left out."""
    snapshots = []
    for cluster in Cluster.objects.all():
        try:
            snapshots.append(cluster_snapshot(cluster))
        except InputError:
            continue
    return snapshots


def planner_binding(binding: ResourceBinding) -> Binding:
    template = binding.template
    fresh = bool(
        binding.reschedule_triggered_at
        and binding.last_scheduled_time
        and binding.reschedule_triggered_at > binding.last_scheduled_time
    )
    return Binding(
        replicas=binding.replicas,
        requirements=requirements_from_json(binding.replica_requirements),
        previous=tuple(TargetCluster(c["name"], int(c.get("replicas") or 0)) for c in binding.clusters),
        observed_affinity=binding.scheduler_observed_affinity_name,
        uid=str(template.uid),
        api_version=template.api_version,
        kind=template.kind,
        namespace=template.namespace,
        name=template.name,
        eviction_tasks=tuple(
            EvictionTask(
                from_cluster=t["fromCluster"],
                replicas=t.get("replicas"),
                purge_mode=t.get("purgeMode", ""),
                reason=t.get("reason", ""),
                producer=t.get("producer", ""),
            )
            for t in binding.graceful_eviction_tasks
        ),
        fresh=fresh,
    )


def planner_placement(binding: ResourceBinding) -> Placement:
    annotations = binding.policy.annotations if binding.policy else {}
    return Placement.from_dict(binding.placement, division_method_from_annotations(annotations))
