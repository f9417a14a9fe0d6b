"""The default scheduler: each pod waiting for a node goes to the least-allocated node that fits, in
creation order; a pod that fits nowhere stays Pending with the scheduler's reasons."""

from __future__ import annotations

from membersim.controllers.conditions import condition
from membersim.controllers.context import Context
from membersim.controllers.kubelet import Kubelet
from membersim.controllers.node_usage import NodeUsage
from membersim.placement import choose_node, pod_requests
from membersim.pods import is_active
from membersim.resources import NODE, POD

COMPONENT = "default-scheduler"


class Scheduler:
    def __init__(self, context: Context, usage: NodeUsage, kubelet: Kubelet) -> None:
        self.context = context
        self.usage = usage
        self.kubelet = kubelet

    def run(self) -> bool:
        context = self.context
        store = context.store
        pending = []
        for namespace, name in self.usage.unbound:
            pod = store.get(POD, namespace, name)
            if pod is not None and is_active(pod):
                pending.append(pod)
        if not pending:
            return False
        pending.sort(
            key=lambda p: (
                p["metadata"].get("creationTimestamp", ""),
                p["metadata"]["namespace"],
                p["metadata"]["name"],
            )
        )
        nodes = sorted(store.iter(NODE), key=lambda n: n["metadata"]["name"])
        usage = self.usage.copy(with_ips=False)
        changed = False
        for pod in pending:
            node_name, message = choose_node(pod, nodes, usage)
            status = dict(pod.get("status") or {})
            if node_name is None:
                old = next(
                    (c for c in status.get("conditions") or [] if c.get("type") == "PodScheduled"), None
                )
                if old and old.get("status") == "False" and old.get("message") == message:
                    continue
                status["conditions"] = [
                    condition(status.get("conditions"), "PodScheduled", "False", "Unschedulable", message)
                ]
                status["phase"] = "Pending"
                store.put(POD, {**pod, "status": status})
                context.record(pod, "Warning", "FailedScheduling", message, COMPONENT)
                changed = True
                continue
            node = next(n for n in nodes if n["metadata"]["name"] == node_name)
            requests = pod_requests(pod)
            use = usage[node_name]
            use.cpu_m += requests.cpu_m
            use.memory += requests.memory
            use.pods += 1
            bound = {**pod, "spec": {**pod["spec"], "nodeName": node_name}}
            where = f"{pod['metadata']['namespace']}/{pod['metadata']['name']}"
            context.record(
                pod, "Normal", "Scheduled", f"Successfully assigned {where} to {node_name}", COMPONENT
            )
            store.put(POD, self.kubelet.started(bound, node, use))
            changed = True
        return changed
