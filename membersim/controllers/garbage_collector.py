"""The pod garbage collector: pods bound to a node that no longer exists are deleted."""

from __future__ import annotations

from membersim.controllers.context import Context
from membersim.resources import NODE, POD

COMPONENT = "pod-garbage-collector"


class PodGarbageCollector:
    def __init__(self, context: Context) -> None:
        self.context = context

    def run(self) -> bool:
        context = self.context
        changed = False
        nodes = {n["metadata"]["name"] for n in context.store.iter(NODE)}
        for pod in context.visit(POD):
            node_name = (pod.get("spec") or {}).get("nodeName")
            if node_name and node_name not in nodes:
                context.delete(POD, pod, None, COMPONENT)
                changed = True
        return changed
