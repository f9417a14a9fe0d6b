"""metrics.k8s.io NodeMetrics and PodMetrics, derived from pod requests times the cluster's load factor."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from membersim import meta
from membersim.placement import container_requests, node_allocatable
from membersim.pods import is_active
from membersim.quantity import format_kibibytes, format_nanocores
from membersim.resources import NODE, POD

if TYPE_CHECKING:
    from membersim.cluster import Cluster

NODE_BASE_CPU_M = 100  # system daemons on an idle node
NODE_BASE_MEMORY = 512 * 2**20
CONTAINER_BASE_CPU_M = 1
CONTAINER_BASE_MEMORY = 4 * 2**20


def container_usage(container: dict[str, Any], load: float) -> tuple[int, int]:
    """(nanocores, bytes) one running container uses."""
    requests = container_requests(container)
    nanocores = int((requests.cpu_m * load + CONTAINER_BASE_CPU_M) * 1_000_000)
    memory = int(requests.memory * load + CONTAINER_BASE_MEMORY)
    return nanocores, memory


def _running(cluster: Cluster) -> list[dict[str, Any]]:
    return [
        p
        for p in cluster.store.iter(POD)
        if (p.get("spec") or {}).get("nodeName")
        and is_active(p)
        and (p.get("status") or {}).get("phase") == "Running"
    ]


def _envelope(kind: str, name: str, namespace: str | None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "creationTimestamp": meta.now(), "labels": {}}
    if namespace is not None:
        metadata["namespace"] = namespace
    return {
        "kind": kind,
        "apiVersion": "metrics.k8s.io/v1beta1",
        "metadata": metadata,
        "timestamp": meta.now(),
        "window": "20.039s",
    }


def node_metrics(cluster: Cluster) -> list[dict[str, Any]]:
    """One NodeMetrics per node, capped at the node's allocatable as real usage is."""
    with cluster.store.lock:
        nodes = cluster.store.list(NODE)
        pods = _running(cluster)
        load = cluster.load
    per_node: dict[str, list[int]] = {}
    for pod in pods:
        totals = per_node.setdefault(pod["spec"]["nodeName"], [0, 0])
        for container in pod["spec"].get("containers") or []:
            cpu, memory = container_usage(container, load)
            totals[0] += cpu
            totals[1] += memory
    items = []
    for node in nodes:
        name = node["metadata"]["name"]
        cpu_alloc, memory_alloc, _ = node_allocatable(node)
        cpu, memory = per_node.get(name, [0, 0])
        cpu = min(cpu + NODE_BASE_CPU_M * 1_000_000, cpu_alloc * 1_000_000)
        memory = min(memory + NODE_BASE_MEMORY, memory_alloc)
        item = _envelope("NodeMetrics", name, None)
        item["metadata"]["labels"] = dict(node["metadata"].get("labels") or {})
        item["usage"] = {"cpu": format_nanocores(cpu), "memory": format_kibibytes(memory)}
        items.append(item)
    return items


def pod_metrics(cluster: Cluster, namespace: str | None) -> list[dict[str, Any]]:
    with cluster.store.lock:
        pods = [p for p in _running(cluster) if namespace is None or p["metadata"]["namespace"] == namespace]
        load = cluster.load
    items = []
    for pod in sorted(pods, key=lambda p: (p["metadata"]["namespace"], p["metadata"]["name"])):
        item = _envelope("PodMetrics", pod["metadata"]["name"], pod["metadata"]["namespace"])
        item["metadata"]["labels"] = dict(pod["metadata"].get("labels") or {})
        containers = []
        for container in pod["spec"].get("containers") or []:
            cpu, memory = container_usage(container, load)
            containers.append(
                {
                    "name": container["name"],
                    "usage": {"cpu": format_nanocores(cpu), "memory": format_kibibytes(memory)},
                }
            )
        item["containers"] = containers
        items.append(item)
    return items
