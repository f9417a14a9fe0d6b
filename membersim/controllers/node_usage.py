"""What the active pods bound to each node take from it, kept on every pod write, and the pods that
wait for a node: placing a pod never sums every pod in the cluster."""

from __future__ import annotations

from collections.abc import Collection

from membersim.placement import NodeUse, pod_requests
from membersim.pods import is_active
from membersim.resources import POD, Resource
from membersim.store import Store


class NodeUsage:
    """Follows the store's pod writes; read it (and the pods waiting for a node) under the store lock."""

    def __init__(self, store: Store) -> None:
        self._usage: dict[str, NodeUse] = {}
        self._node_ips: dict[str, dict[str, int]] = {}
        self.unbound: set[tuple[str, str]] = set()
        store.observe(self._observe)

    def _observe(
        self, resource: Resource, namespace: str, name: str, old: dict | None, new: dict | None
    ) -> None:
        if resource is not POD:
            return
        self._count_pod(old, -1)
        self._count_pod(new, 1)
        key = (namespace, name)
        if new is not None and not (new.get("spec") or {}).get("nodeName"):
            self.unbound.add(key)
        else:
            self.unbound.discard(key)

    def _count_pod(self, pod: dict | None, sign: int) -> None:
        """Add (or take away) an active bound pod's requests and IP to its node's use."""
        if pod is None or not is_active(pod):
            return
        node_name = (pod.get("spec") or {}).get("nodeName")
        if not node_name:
            return
        use = self._usage.setdefault(node_name, NodeUse())
        requests = pod_requests(pod)
        use.cpu_m += sign * requests.cpu_m
        use.memory += sign * requests.memory
        use.pods += sign
        ip = (pod.get("status") or {}).get("podIP")
        if ip:
            ips = self._node_ips.setdefault(node_name, {})
            ips[ip] = ips.get(ip, 0) + sign
            if ips[ip] <= 0:
                del ips[ip]
        if use.pods <= 0:
            del self._usage[node_name]
            self._node_ips.pop(node_name, None)

    def copy(self, *, with_ips: bool = True) -> dict[str, NodeUse]:
        """Requests (and IPs) of the active pods bound to each node (a copy the caller may change)."""
        return {
            node_name: NodeUse(
                use.cpu_m, use.memory, use.pods, set(self._node_ips.get(node_name, ())) if with_ips else set()
            )
            for node_name, use in self._usage.items()
        }

    def node_ips(self, node_name: str) -> Collection[str]:
        """The pod IPs in use on a node, live: a pod stored with a new IP is in it at once."""
        return self._node_ips.get(node_name, {}).keys()
