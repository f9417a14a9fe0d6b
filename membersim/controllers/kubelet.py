"""The simulated kubelets: they start the pods bound to their node (running, completed or failing as
the pod is annotated to) and keep each running pod's readiness in step with its node."""

from __future__ import annotations

import functools
import ipaddress
import itertools
import socket
import struct
import time
from collections.abc import Collection
from typing import Any

from membersim import meta
from membersim.controllers.conditions import condition
from membersim.controllers.containers import ContainerRuntime
from membersim.controllers.context import Context
from membersim.controllers.node_usage import NodeUsage
from membersim.logs import LogStore
from membersim.placement import NodeUse, node_is_ready, pod_requests
from membersim.pods import FINISHED, failure_of, is_ready, qos_class
from membersim.resources import NODE, POD, Resource


def allocate_ip(node: dict[str, Any], taken: Collection[str]) -> str:
    """A free address of the node's pod CIDR (none without one). The search starts past as many
    addresses as are taken, where the first free one usually is, so a full node costs no more."""
    cidr = (node.get("spec") or {}).get("podCIDR")
    if not cidr:
        return ""
    addresses = pod_addresses(cidr)
    if addresses is None:
        return _search(cidr, taken)
    start = min(len(taken), max(len(addresses) - 1, 0))
    for candidate in itertools.chain(itertools.islice(addresses, start, None), addresses[:start]):
        if candidate not in taken:
            return candidate
    return ""


@functools.lru_cache(maxsize=1024)
def pod_addresses(cidr: str) -> tuple[str, ...] | None:
    """The assignable pod addresses of a node's IPv4 CIDR of up to 4,096 addresses, in order, made once
    per CIDR: a node packed with more pods than addresses is searched end to end for every new pod."""
    network = ipaddress.ip_network(cidr)
    if network.version != 4 or network.num_addresses > 4096:
        return None
    base = int(network.network_address)
    return tuple(
        socket.inet_ntoa(struct.pack("!I", base + offset)) for offset in range(2, network.num_addresses - 1)
    )


def _search(cidr: str, taken: Collection[str]) -> str:
    """allocate_ip for a large CIDR, address by address."""
    network = ipaddress.ip_network(cidr)
    if network.version != 4:
        return ""
    base, size = int(network.network_address), network.num_addresses
    start = min(len(taken) + 2, size - 2)
    for offset in itertools.chain(range(start, size - 1), range(2, start)):
        candidate = socket.inet_ntoa(struct.pack("!I", base + offset))
        if candidate not in taken:
            return candidate
    return ""


class Kubelet:
    def __init__(self, context: Context, usage: NodeUsage, logs: LogStore) -> None:
        self.context = context
        self.usage = usage
        self.runtime = ContainerRuntime(context, logs)
        self._stopped: list[dict[str, Any]] = []  # deleted pods whose kubelet has yet to say so
        context.store.observe(self._observe)

    def _observe(
        self, resource: Resource, namespace: str, name: str, old: dict | None, new: dict | None
    ) -> None:
        if resource is POD and old is not None and new is None:
            self.runtime.stop(old)
            if (old.get("status") or {}).get("containerStatuses"):
                self._stopped.append(old)

    def run(self) -> bool:
        """Start pods bound by name, and keep each running pod's readiness in step with its node."""
        context = self.context
        changed = False
        stopped, self._stopped = self._stopped, []
        for pod in stopped:
            for status in pod["status"]["containerStatuses"]:
                if "running" in (status.get("state") or {}):
                    context.record(
                        pod,
                        "Normal",
                        "Killing",
                        f"Stopping container {status['name']}",
                        "kubelet",
                        host=pod["spec"].get("nodeName", ""),
                    )
        nodes = {n["metadata"]["name"]: n for n in context.store.iter(NODE)}
        usage: dict[str, NodeUse] | None = None
        now = time.time()
        for pod in context.visit(POD):
            node_name = (pod.get("spec") or {}).get("nodeName")
            status = pod.get("status") or {}
            if not node_name or node_name not in nodes or status.get("phase") in FINISHED:
                continue
            node = nodes[node_name]
            if not status.get("startTime"):
                usage = usage if usage is not None else self.usage.copy(with_ips=False)
                context.store.put(POD, self.started(pod, node, usage.setdefault(node_name, NodeUse())))
                changed = True
                continue
            if failure_of(pod) == "CrashLoopBackOff":
                restarted = self.runtime.crash_loop(pod, now)
                if restarted is not None:
                    pod = {**pod, "status": {**status, "containerStatuses": restarted}}
                    status = pod["status"]
                    context.store.put(POD, pod)
                    changed = True
            ready = node_is_ready(node) and failure_of(pod) is None
            if is_ready(pod) == ready:
                continue
            conditions = status.get("conditions") or []
            text = "True" if ready else "False"
            reason = "" if ready else "NodeNotReady"
            new_conditions = [
                condition(conditions, c["type"], text, reason)
                if c.get("type") in ("Ready", "ContainersReady")
                else c
                for c in conditions
            ]
            containers = [{**c, "ready": ready} for c in status.get("containerStatuses") or []]
            context.store.put(
                POD,
                {**pod, "status": {**status, "conditions": new_conditions, "containerStatuses": containers}},
            )
            changed = True
        return changed

    def started(self, pod: dict[str, Any], node: dict[str, Any], use: NodeUse) -> dict[str, Any]:
        """The pod as its kubelet reports it once the containers run (or, for a Job, have finished)."""
        when = meta.now()
        spec = pod["spec"]
        node_ip = next(
            (a["address"] for a in node["status"].get("addresses") or [] if a.get("type") == "InternalIP"), ""
        )
        taken = self.usage.node_ips(node["metadata"]["name"])
        pod_ip = node_ip if spec.get("hostNetwork") else allocate_ip(node, taken)
        job_pod = any(ref.get("kind") == "Job" for ref in pod["metadata"].get("ownerReferences") or [])
        failure = failure_of(pod)
        ready = node_is_ready(node) and not job_pod and failure is None
        previous = (pod.get("status") or {}).get("conditions")
        bound = {**pod, "spec": {**spec, "nodeName": node["metadata"]["name"]}}
        statuses = [
            {**self.runtime.start(bound, container, failure, job_pod, when), "ready": ready}
            for container in spec.get("containers") or []
        ]
        ready_status = "True" if ready else "False"
        reason = "PodCompleted" if job_pod else ("" if ready else "ContainersNotReady")
        if failure == "Error":
            reason = "PodFailed"
        conditions = [
            condition(previous, "PodReadyToStartContainers", "False" if job_pod else "True"),
            condition(previous, "Initialized", "True", reason if job_pod else ""),
            condition(previous, "Ready", ready_status, reason),
            condition(previous, "ContainersReady", ready_status, reason),
            condition(previous, "PodScheduled", "True"),
        ]
        phase = "Succeeded" if job_pod else "Running"
        if failure == "Error":
            phase = "Failed"
        elif failure in ("ImagePullBackOff", "ErrImagePull"):
            phase = "Pending"
        status = {
            "phase": phase,
            "conditions": conditions,
            "hostIP": node_ip,
            "hostIPs": [{"ip": node_ip}] if node_ip else [],
            "podIP": pod_ip,
            "podIPs": [{"ip": pod_ip}] if pod_ip else [],
            "startTime": when,
            "containerStatuses": statuses,
            "qosClass": (pod.get("status") or {}).get("qosClass") or qos_class(spec),
        }
        if phase in FINISHED:
            use.cpu_m -= pod_requests(pod).cpu_m
            use.memory -= pod_requests(pod).memory
            use.pods -= 1
        return {**pod, "status": meta.shared_part(status)}
