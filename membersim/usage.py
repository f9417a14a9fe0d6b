"""What running containers use, derived from their requests and the load factor, and its sums per node."""

from __future__ import annotations

from collections import Counter
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
    return shape_usage((requests.cpu_m, requests.memory), load)


def shape_usage(shape: tuple[int, int], load: float) -> tuple[int, int]:
    """(nanocores, bytes) a running container of these (millicores, bytes) requests uses."""
    cpu_m, memory = shape
    return int((cpu_m * load + CONTAINER_BASE_CPU_M) * 1_000_000), int(memory * load + CONTAINER_BASE_MEMORY)


class RunningUsage:
    """(nanocores, bytes) the running pods of each node use. The running containers of each node are
    kept counted by request shape as pods are written (the store tells every write, seen by watchers or
    not), so a read sums a few shapes a node, not every pod: a health collector reads node metrics of
    every cluster every few seconds, and summing a cluster's thousand pods again after each pod write
    was a fifth of a simulated member's time while a fleet was seeded. The sums are kept until a pod is
    written or the load factor changes."""

    def __init__(self, store: Store) -> None:
        self._shapes: dict[str, Counter[tuple[int, int]]] = {}
        self._key: tuple[int, float] | None = None
        self._per_node: dict[str, tuple[int, int]] = {}
        with store.lock:
            for pod in running(store):
                self._count(pod, 1)
            store.observe(self._written)

    def _written(self, resource: Any, namespace: str, name: str, old: Any, new: Any) -> None:
        if resource is not POD:
            return
        for pod, sign in ((old, -1), (new, 1)):
            if pod is not None and _is_running(pod):
                self._count(pod, sign)

    def _count(self, pod: dict[str, Any], sign: int) -> None:
        node = pod["spec"]["nodeName"]
        shapes = self._shapes.setdefault(node, Counter())
        for container in pod["spec"].get("containers") or []:
            requests = container_requests(container)
            shape = (requests.cpu_m, requests.memory)
            shapes[shape] += sign
            if not shapes[shape]:
                del shapes[shape]
        if not shapes:
            del self._shapes[node]

    def per_node(self, store: Store, load: float) -> dict[str, tuple[int, int]]:
        """The sums by node name; call with the store lock held."""
        key = (store.writes(POD), load)
        if key != self._key:
            self._per_node = _usage_by_node(self._shapes, load)
            self._key = key
        return self._per_node


def _usage_by_node(shapes: dict[str, Counter[tuple[int, int]]], load: float) -> dict[str, tuple[int, int]]:
    per_node: dict[str, tuple[int, int]] = {}
    for node, counted in shapes.items():
        cpu = memory = 0
        for shape, count in counted.items():
            nanocores, used = shape_usage(shape, load)
            cpu += count * nanocores
            memory += count * used
        per_node[node] = (cpu, memory)
    return per_node


def _is_running(pod: dict[str, Any]) -> bool:
    """Bound to a node and running: what `running` lists."""
    return bool(
        (pod.get("spec") or {}).get("nodeName")
        and is_active(pod)
        and (pod.get("status") or {}).get("phase") == "Running"
    )


def running(store: Store) -> list[dict[str, Any]]:
    """The pods bound to a node and running; call with the store lock held."""
    return [p for p in store.iter(POD) if _is_running(p)]
