"""One simulated member cluster: its store, its nodes and namespaces, its fault state and its controller."""

from __future__ import annotations

import copy
import ipaddress
import secrets
import threading
from dataclasses import dataclass
from typing import Any

from membersim import meta
from membersim.controllers.manager import ControllerManager
from membersim.events import EventRecorder
from membersim.logs import LogStore
from membersim.quantity import format_cpu, format_memory, to_bytes, to_millicores
from membersim.resources import NAMESPACE, NODE, SERVICE, Resource
from membersim.spec import ClusterSpec
from membersim.store import Store
from membersim.usage import RunningUsage

SYSTEM_NAMESPACES = ("default", "kube-system", "kube-public", "kube-node-lease")
NODE_NETWORK_START = int(ipaddress.IPv4Address("192.168.0.0"))


@dataclass
class Fault:
    """What the cluster does to requests right now."""

    mode: str = "up"  # "up", "down" (hang), "refuse" (connections refused or reset), "errors" (5xx)
    delay: float = 0.0
    error_code: int = 503

    def describe(self) -> dict[str, Any]:
        return {"mode": self.mode, "delay": self.delay, "errorCode": self.error_code}


class Cluster:
    """State of one cluster. Every read or write of the store happens under ``store.lock``."""

    def __init__(self, spec: ClusterSpec) -> None:
        self.spec = spec
        self.name = spec.name
        self.token = spec.token or secrets.token_urlsafe(24)
        self.viewer_token = secrets.token_urlsafe(24)
        self.store = Store()
        self.load = float(spec.load)
        self.fault = Fault()
        self.fault_changed = threading.Condition()
        self.applied: dict[tuple[Resource, str, str, str], dict[str, Any]] = {}
        self._node_index = 0
        self.events = EventRecorder(self.store)
        self.logs = LogStore()
        self.running_usage = RunningUsage(self.store)
        self.controller = ControllerManager(self.store, self.events, self.logs)
        # Per-node constants, computed once: a 100-node cluster should start in milliseconds.
        self._pod_net = ipaddress.ip_network(spec.pod_cidr)
        self._node_cpu = format_cpu(to_millicores(spec.node_cpu))
        self._node_memory = format_memory(to_bytes(spec.node_memory))
        self._build()

    # ------------------------------------------------------------ building

    def _build(self) -> None:
        created = self.created = meta.now()
        self.service_cidr_uid = meta.new_uid()
        for name in SYSTEM_NAMESPACES:
            self.store.put(NAMESPACE, self._namespace(name, created), log=False)
        for index in range(1, self.spec.nodes + 1):
            self.store.put(NODE, self.make_node(index, created), log=False)
        self._node_index = self.spec.nodes
        service_ip = str(next(ipaddress.ip_network(self.spec.service_cidr).hosts()))
        kubernetes = {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {
                "name": "kubernetes",
                "namespace": "default",
                "uid": meta.new_uid(),
                "creationTimestamp": created,
                "labels": {"component": "apiserver", "provider": "kubernetes"},
            },
            "spec": {
                "type": "ClusterIP",
                "clusterIP": service_ip,
                "clusterIPs": [service_ip],
                "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": 6443}],
                "sessionAffinity": "None",
                "ipFamilies": ["IPv4"],
                "ipFamilyPolicy": "SingleStack",
                "internalTrafficPolicy": "Cluster",
            },
            "status": {"loadBalancer": {}},
        }
        self.store.put(SERVICE, kubernetes, log=False)

    def _namespace(self, name: str, created: str) -> dict[str, Any]:
        return {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {
                "name": name,
                "uid": meta.new_uid(),
                "creationTimestamp": created,
                "labels": {"kubernetes.io/metadata.name": name},
            },
            "spec": {"finalizers": ["kubernetes"]},
            "status": {"phase": "Active"},
        }

    def node_name(self, index: int) -> str:
        return f"{self.name}-node-{index}"

    def make_node(self, index: int, created: str) -> dict[str, Any]:
        """Node number ``index`` (1-based) as the spec describes it, Ready."""
        spec = self.spec
        name = self.node_name(index)
        labels = {
            "beta.kubernetes.io/arch": "amd64",
            "beta.kubernetes.io/os": "linux",
            "kubernetes.io/arch": "amd64",
            "kubernetes.io/hostname": name,
            "kubernetes.io/os": "linux",
        }
        if spec.region:
            labels["topology.kubernetes.io/region"] = spec.region
        if spec.zones:
            labels["topology.kubernetes.io/zone"] = spec.zones[(index - 1) % len(spec.zones)]
        if index <= spec.ssd_nodes:
            labels["disk-type"] = "ssd"
        taints = []
        if index <= spec.control_plane_nodes:
            labels["node-role.kubernetes.io/control-plane"] = ""
            taints.append({"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"})
        labels.update(spec.labels)
        pod_net = self._pod_net
        slot = 2 ** (pod_net.max_prefixlen - spec.node_cidr_mask)
        pod_cidr = ""
        if index <= 2 ** (spec.node_cidr_mask - pod_net.prefixlen):
            pod_cidr = str(
                ipaddress.ip_network((int(pod_net.network_address) + (index - 1) * slot, spec.node_cidr_mask))
            )
        internal_ip = str(ipaddress.IPv4Address(NODE_NETWORK_START + index + 9))
        cpu, memory = self._node_cpu, self._node_memory
        capacity = {
            "cpu": cpu,
            "memory": memory,
            "pods": str(spec.node_pods),
            "ephemeral-storage": "100Gi",
            "hugepages-1Gi": "0",
            "hugepages-2Mi": "0",
        }
        node_spec: dict[str, Any] = {"podCIDR": pod_cidr, "podCIDRs": [pod_cidr]} if pod_cidr else {}
        if spec.provider:
            node_spec["providerID"] = f"{spec.provider}://{spec.region or spec.name}/{name}"
        if taints:
            node_spec["taints"] = taints
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": name,
                "uid": meta.new_uid(),
                "creationTimestamp": created,
                "labels": labels,
                "annotations": {
                    "node.alpha.kubernetes.io/ttl": "0",
                    "volumes.kubernetes.io/controller-managed-attach-detach": "true",
                },
            },
            "spec": node_spec,
            "status": {
                "capacity": capacity,
                "allocatable": dict(capacity),
                "conditions": self.node_conditions(True, created),
                "addresses": [
                    {"type": "InternalIP", "address": internal_ip},
                    {"type": "Hostname", "address": name},
                ],
                "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
                "nodeInfo": {
                    "architecture": "amd64",
                    "bootID": meta.new_uid(),
                    "containerRuntimeVersion": "containerd://1.7.22",
                    "kernelVersion": "6.1.0-27-amd64",
                    "kubeProxyVersion": f"v{spec.version}",
                    "kubeletVersion": f"v{spec.version}",
                    "machineID": meta.new_uid().replace("-", ""),
                    "operatingSystem": "linux",
                    "osImage": "Debian GNU/Linux 12 (bookworm)",
                    "systemUUID": meta.new_uid(),
                },
            },
        }

    @staticmethod
    def node_conditions(ready: bool, when: str) -> list[dict[str, Any]]:
        pressure = [
            ("MemoryPressure", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
            ("DiskPressure", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
            ("PIDPressure", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        ]
        conditions = [
            {
                "type": t,
                "status": "False",
                "reason": r,
                "message": m,
                "lastHeartbeatTime": when,
                "lastTransitionTime": when,
            }
            for t, r, m in pressure
        ]
        if ready:
            conditions.append(
                {
                    "type": "Ready",
                    "status": "True",
                    "reason": "KubeletReady",
                    "message": "kubelet is posting ready status",
                    "lastHeartbeatTime": when,
                    "lastTransitionTime": when,
                }
            )
        else:
            conditions.append(
                {
                    "type": "Ready",
                    "status": "Unknown",
                    "reason": "NodeStatusUnknown",
                    "message": "Kubelet stopped posting node status.",
                    "lastHeartbeatTime": when,
                    "lastTransitionTime": when,
                }
            )
        return conditions

    # ------------------------------------------------------------ node faults

    def set_node_ready(self, node_name: str, ready: bool) -> None:
        """What the node lifecycle controller does when a kubelet stops (or resumes) reporting."""
        with self.store.lock:
            node = self.store.get(NODE, "", node_name)
            if node is None:
                raise KeyError(node_name)
            updated = copy.deepcopy(node)
            updated["status"]["conditions"] = self.node_conditions(ready, meta.now())
            taints = [
                t
                for t in updated["spec"].get("taints") or []
                if t.get("key") != "node.kubernetes.io/unreachable"
            ]
            if not ready:
                # NoExecute evicts the node's pods once their toleration (300 s by default) runs out.
                for effect in ("NoSchedule", "NoExecute"):
                    taints.append(
                        {"key": "node.kubernetes.io/unreachable", "effect": effect, "timeAdded": meta.now()}
                    )
            if taints:
                updated["spec"]["taints"] = taints
            else:
                updated["spec"].pop("taints", None)
            self.store.put(NODE, updated)
            self.events.record(
                updated,
                "Normal" if ready else "Warning",
                "NodeReady" if ready else "NodeNotReady",
                f"Node {node_name} status is now: {'NodeReady' if ready else 'NodeNotReady'}",
                "node-controller",
            )
            self.controller.reconcile()

    def add_node(self) -> dict[str, Any]:
        """One more node shaped like the others (used by tests and the demo to grow a cluster)."""
        with self.store.lock:
            self._node_index += 1
            node = self.make_node(self._node_index, meta.now())
            stored = self.store.put(NODE, node)
            self.controller.reconcile()
            return stored
