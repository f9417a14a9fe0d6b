"""metrics.k8s.io NodeMetrics and PodMetrics, derived from pod requests times the cluster's load factor."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from membersim import meta
from membersim.placement import node_allocatable
from membersim.quantity import format_kibibytes, format_nanocores
from membersim.resources import NODE
from membersim.usage import (
    NODE_BASE_CPU_M,
    NODE_BASE_MEMORY,
    container_usage,
    running,
)

if TYPE_CHECKING:
    from membersim.cluster import Cluster


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
        per_node = cluster.running_usage.per_node(cluster.store, cluster.load)
    items = []
    for node in nodes:
        name = node["metadata"]["name"]
        cpu_alloc, memory_alloc, _ = node_allocatable(node)
        cpu, memory = per_node.get(name, (0, 0))
        cpu = min(cpu + NODE_BASE_CPU_M * 1_000_000, cpu_alloc * 1_000_000)
        memory = min(memory + NODE_BASE_MEMORY, memory_alloc)
        item = _envelope("NodeMetrics", name, None)
        item["metadata"]["labels"] = dict(node["metadata"].get("labels") or {})
        item["usage"] = {"cpu": format_nanocores(cpu), "memory": format_kibibytes(memory)}
        items.append(item)
    return items


def pod_metrics(cluster: Cluster, namespace: str | None) -> list[dict[str, Any]]:
    with cluster.store.lock:
        pods = [
            p for p in running(cluster.store) if namespace is None or p["metadata"]["namespace"] == namespace
        ]
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
