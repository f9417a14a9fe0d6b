"""What a cluster's pods request, by node: the one reduction a direct list and the watched inventory share."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from clusters.k8s import NodeInfo, PodInfo, Resources


@dataclass(frozen=True)
class PodTotals:
    """The requests of unfinished pods: summed per node they are bound to, and of those bound to none."""

    by_node: dict[str, Resources] = field(default_factory=dict)
    unbound: Resources = field(default_factory=Resources)

    @classmethod
    def of(cls, pods: Iterable[PodInfo]) -> PodTotals:
        return cls.of_requests((pod.node_name, pod.requests) for pod in pods)

    @classmethod
    def of_requests(cls, pods: Iterable[tuple[str, Resources]]) -> PodTotals:
        """From (node name, requests) pairs; an empty node name is a pod not yet bound (allocating)."""
        by_node: dict[str, Resources] = {}
        unbound = Resources()
        for node_name, requests in pods:
            if node_name:
                by_node[node_name] = by_node.get(node_name, Resources()) + requests
            else:
                unbound = unbound + requests
        return cls(by_node, unbound)

    @property
    def allocated(self) -> Resources:
        """Karmada's `allocated`: what the pods bound to a node request."""
        return sum(self.by_node.values(), Resources())

    def as_json(self) -> dict[str, Any]:
        return {
            "byNode": {name: _resources_json(r) for name, r in sorted(self.by_node.items())},
            "unbound": _resources_json(self.unbound),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PodTotals:
        return cls(
            {str(name): _resources(r) for name, r in (data.get("byNode") or {}).items()},
            _resources(data.get("unbound") or []),
        )


def nodes_json(nodes: Iterable[NodeInfo]) -> list[dict[str, Any]]:
    """Nodes as stored between the watcher and the health collection (what the status needs of each)."""
    return [
        {
            "name": node.name,
            "ready": node.ready,
            "labels": dict(node.labels),
            "taints": [dict(t) for t in node.taints],
            "allocatable": _resources_json(node.allocatable),
            "capacity": _resources_json(node.capacity),
            "podCIDRs": list(node.pod_cidrs),
            "unschedulable": node.unschedulable,
            "providerID": node.provider_id,
        }
        for node in sorted(nodes, key=lambda n: n.name)
    ]


def nodes_from_json(data: Iterable[dict[str, Any]]) -> list[NodeInfo]:
    return [
        NodeInfo(
            name=str(item["name"]),
            ready=bool(item["ready"]),
            labels=dict(item.get("labels") or {}),
            taints=tuple(dict(t) for t in item.get("taints") or []),
            allocatable=_resources(item.get("allocatable") or []),
            capacity=_resources(item.get("capacity") or []),
            pod_cidrs=tuple(item.get("podCIDRs") or ()),
            unschedulable=bool(item.get("unschedulable")),
            provider_id=str(item.get("providerID") or ""),
        )
        for item in data
    ]


def _resources_json(resources: Resources) -> list[int]:
    return [resources.cpu_milli, resources.memory_bytes, resources.pods]


def _resources(values: list[int]) -> Resources:
    cpu, memory, pods = [*values, 0, 0, 0][:3]
    return Resources(int(cpu), int(memory), int(pods))
