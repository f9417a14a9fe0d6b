"""What the editor plans against: the fleet as planner snapshots and the workloads as planner inputs."""

from __future__ import annotations

from typing import Any

from clusters.models import Cluster
from scheduling.editor.preview import WorkloadInput
from scheduling.karmada_yaml import Document, parse_cluster, parse_workload
from scheduling.models import ResourceBinding, ResourceTemplate
from scheduling.planner import ClusterSnapshot, InputError, TargetCluster


def _cluster_document(cluster: Cluster) -> dict[str, Any]:
    return {
        "metadata": {"name": cluster.name, "labels": cluster.labels or {}},
        "spec": {
            "provider": cluster.provider,
            "region": cluster.region,
            "zones": list(cluster.zones or []),
            "taints": list(cluster.taints or []),
        },
        "status": cluster.status or {},
    }


def fleet() -> list[ClusterSnapshot]:
    """Every joined cluster as the scheduler sees it, sorted by name."""
    return [parse_cluster(_cluster_document(cluster)) for cluster in Cluster.objects.order_by("name")]


def workload_input(template: ResourceTemplate) -> WorkloadInput | None:
    """A template's replicas, requirements and current placement; None when it has no replicas to divide."""
    try:
        workload = parse_workload(Document("template", 0, template.manifest))
    except InputError:
        return None
    binding = ResourceBinding.objects.filter(template=template).first()
    current = None
    if binding is not None and binding.clusters:
        current = tuple(TargetCluster(name, replicas) for name, replicas in binding.target_replicas().items())
    return WorkloadInput(
        replicas=workload.replicas,
        label=f"{template.namespace}/{template.name}" if template.namespace else template.name,
        uid=str(template.uid),
        api_version=workload.api_version,
        kind=workload.kind,
        namespace=workload.namespace,
        name=workload.name,
        requirements=workload.requirements,
        current=current,
    )
