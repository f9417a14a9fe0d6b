"""The one adapter from the Cluster model to Karmada's Cluster object and to the planner's ClusterSnapshot."""

from __future__ import annotations

import copy
from typing import Any

from clusters.models import Cluster
from scheduling.karmada_yaml import parse_cluster
from scheduling.planner import ClusterSnapshot

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
