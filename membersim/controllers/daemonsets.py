"""The daemon set controller: one pod of the current revision on every node it selects and tolerates."""

from __future__ import annotations

from typing import Any

from membersim import meta
from membersim.controllers.context import Context
from membersim.placement import matches_node_selection, untolerated_taint
from membersim.pods import is_active
from membersim.resources import DAEMONSET, NODE, POD

COMPONENT = "daemonset-controller"
# What the daemon set controller adds to every daemon pod, so node trouble does not evict it.
DAEMON_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
]


def daemon_probe(ds: dict[str, Any]) -> dict[str, Any]:
    """A pod shaped like the daemon set's, with the tolerations the controller adds."""
    template = ds["spec"].get("template") or {}
    spec = template.get("spec") or {}
    return {"spec": {**spec, "tolerations": [*(spec.get("tolerations") or []), *DAEMON_TOLERATIONS]}}


def daemon_node(pod: dict[str, Any]) -> str:
    """The node a daemon pod is pinned to (by its metadata.name affinity), or where it is bound."""
    terms = (
        (((pod.get("spec") or {}).get("affinity") or {}).get("nodeAffinity") or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution"
        )
        or {}
    ).get("nodeSelectorTerms") or []
    for term in terms:
        for field in term.get("matchFields") or []:
            if field.get("key") == "metadata.name" and field.get("values"):
                return field["values"][0]
    return (pod.get("spec") or {}).get("nodeName", "")


def eligible_nodes(ds: dict[str, Any], nodes: list[dict[str, Any]]) -> list[str]:
    """The nodes the daemon set selects and whose taints its pods tolerate."""
    probe = daemon_probe(ds)
    return [
        n["metadata"]["name"]
        for n in nodes
        if matches_node_selection(probe, n) and untolerated_taint(probe, n) is None
    ]


def pinned_affinity(node_name: str) -> dict[str, Any]:
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}


class DaemonSetController:
    def __init__(self, context: Context) -> None:
        self.context = context

    def run(self) -> bool:
        changed = False
        nodes = list(self.context.store.iter(NODE))
        for ds in self.context.visit(DAEMONSET):
            changed |= self.sync(ds, nodes)
        return changed

    def sync(self, ds: dict[str, Any], nodes: list[dict[str, Any]]) -> bool:
        context = self.context
        changed = False
        template = ds["spec"].get("template") or {}
        revision = meta.template_hash(template)
        probe = daemon_probe(ds)
        by_node: dict[str, dict[str, Any]] = {}
        for pod in context.owned(POD, ds):
            target = daemon_node(pod)
            stale = (pod["metadata"].get("labels") or {}).get("controller-revision-hash") != revision
            if stale or target in by_node or not is_active(pod):
                context.delete(POD, pod, ds, COMPONENT)
                changed = True
            else:
                by_node[target] = pod
        for node in nodes:
            node_name = node["metadata"]["name"]
            eligible = matches_node_selection(probe, node)
            should_create = eligible and untolerated_taint(probe, node) is None
            if node_name in by_node and not eligible:
                context.delete(POD, by_node[node_name], ds, COMPONENT)
                changed = True
            elif node_name not in by_node and should_create:
                extra = {"affinity": pinned_affinity(node_name), "tolerations": probe["spec"]["tolerations"]}
                labels = {
                    "controller-revision-hash": revision,
                    "pod-template-generation": str(ds["metadata"].get("generation", 1)),
                }
                name = f"{ds['metadata']['name']}-{meta.suffix()}"
                context.create_pod(ds, template, name, labels, COMPONENT, extra)
                changed = True
        return changed
