"""The replica set controller: as many active pods as spec.replicas, the least useful deleted first."""

from __future__ import annotations

from typing import Any

from membersim import meta
from membersim.controllers.context import Context
from membersim.pods import is_active, is_ready
from membersim.resources import POD, REPLICASET

COMPONENT = "replicaset-controller"


def doomed_first(pod: dict[str, Any]) -> tuple[int, int, str]:
    """Unbound before bound, unready before ready, newest before oldest, as the controller ranks them."""
    bound = 1 if (pod.get("spec") or {}).get("nodeName") else 0
    return (bound, 1 if is_ready(pod) else 0, "~" + pod["metadata"].get("creationTimestamp", ""))


class ReplicaSetController:
    def __init__(self, context: Context) -> None:
        self.context = context

    def run(self) -> bool:
        changed = False
        for replica_set in self.context.visit(REPLICASET):
            changed |= self.sync(replica_set)
        return changed

    def sync(self, replica_set: dict[str, Any]) -> bool:
        context = self.context
        desired = replica_set["spec"].get("replicas", 1)
        pods = [p for p in context.owned(POD, replica_set) if is_active(p)]
        if len(pods) < desired:
            prefix = f"{replica_set['metadata']['name']}-"
            template = replica_set["spec"].get("template") or {}
            for _ in range(desired - len(pods)):
                context.create_pod(replica_set, template, prefix + meta.suffix(), {}, COMPONENT)
            return True
        if len(pods) > desired:
            for pod in sorted(pods, key=doomed_first)[: len(pods) - desired]:
                context.delete(POD, pod, replica_set, COMPONENT)
            return True
        return False
