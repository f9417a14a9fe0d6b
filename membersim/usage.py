"""What running containers use, derived from their requests and the load factor, and its sums per node."""

from __future__ import annotations

from typing import Any

from membersim.placement import container_requests
from membersim.pods import is_active
from membersim.resources import POD
from membersim.store import Store

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


class RunningUsage:
    """(nanocores, bytes) the running pods of each node use, summed again only after a pod was written
    or the load factor changed: a health collector reads node metrics of every cluster every few
    seconds, and a quiet cluster's thousand pods would otherwise be summed at each read."""

    def __init__(self) -> None:
        self._key: tuple[int, float] | None = None
        self._per_node: dict[str, tuple[int, int]] = {}

    def per_node(self, store: Store, load: float) -> dict[str, tuple[int, int]]:
        """The sums by node name; call with the store lock held."""
        key = (store.writes(POD), load)
        if key != self._key:
            self._per_node = _usage_by_node(running(store), load)
            self._key = key
        return self._per_node


def _usage_by_node(pods: list[dict[str, Any]], load: float) -> dict[str, tuple[int, int]]:
    per_node: dict[str, list[int]] = {}
    for pod in pods:
        totals = per_node.setdefault(pod["spec"]["nodeName"], [0, 0])
        for container in pod["spec"].get("containers") or []:
            cpu, memory = container_usage(container, load)
            totals[0] += cpu
            totals[1] += memory
    return {name: (cpu, memory) for name, (cpu, memory) in per_node.items()}


def running(store: Store) -> list[dict[str, Any]]:
    """The pods bound to a node and running; call with the store lock held."""
    return [
        p
        for p in store.iter(POD)
        if (p.get("spec") or {}).get("nodeName")
        and is_active(p)
        and (p.get("status") or {}).get("phase") == "Running"
    ]
