"""One cluster's nodes and unfinished pods by list+watch, keeping only what the resource summary needs."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from clusters import k8s
from clusters.k8s import ClusterConnection, KubeError, NodeInfo, Resources
from clusters.k8s.reads import pod_requests
from clusters.k8s.reflector import ListWatch
from clusters.k8s.watch import WatchEvent, list_each
from clusters.k8s.watch_streams import shared_mux
from clusters.resource_summary import PodTotals

log = logging.getLogger(__name__)

KINDS = {"nodes": ("v1", "Node"), "pods": ("v1", "Pod")}
# The server ends each watch after this long and the reflector opens the next, so even a server that
# sends no bookmarks is heard from this often.
WATCH_SECONDS = 60
# A cache not heard from (event, bookmark, listing or a watch ended by the server) for this long is
# stale even if no error said so; longer than a watch and its reconnect.
SILENT_FOR = 90.0
# The inventories' streams are read by a mux of their own, not the one the member watcher's Work
# reflectors share: that one's thread waits while the watcher's backlog is full, and an inventory that
# waited with it went silent, so every health probe listed the cluster's pods itself (at 100 clusters x
# 1,000 pods a core), which slowed the watcher further.
MUX, MUX_OPENERS = "inventory", 8

PodEntry = tuple[str, Resources]  # (node name, requests)
FINISHED = ("Succeeded", "Failed")
# distinct request shapes remembered per cluster (a fleet's pods come from few pod templates)
REQUEST_SHAPES = 4096


def requests_shape(spec: dict[str, Any]) -> Any:
    """What a pod's requests are computed from (containers' and init containers' requests, the init
    containers' restartPolicy, the overhead), as a hashable key; TypeError when a value is not hashable."""

    def items(value: Any) -> Any:
        return tuple(sorted(value.items())) if isinstance(value, dict) else value

    def containers(entries: Any, policy: bool) -> Any:
        return tuple(
            (c.get("restartPolicy") if policy else None, items((c.get("resources") or {}).get("requests")))
            for c in entries or []
        )

    shape = (
        containers(spec.get("containers"), False),
        containers(spec.get("initContainers"), True),
        items(spec.get("overhead")),
    )
    hash(shape)  # a list or mapping among the values raises TypeError here, not as a dict key
    return shape


class Inventory:
    """The caches of one cluster: nodes by name, unfinished pods by (namespace, name) as the node they are
    bound to and their requests. Reflector threads write it, the watcher's loop reads snapshots."""

    def __init__(self, cluster: str) -> None:
        self.cluster = cluster
        self._lock = threading.Lock()
        self._nodes: dict[str, NodeInfo] = {}
        self._pods: dict[tuple[str, str], PodEntry] = {}
        self._synced: set[str] = set()
        self._heard: dict[str, float] = {}
        # Pods of one workload request the same and sit on few nodes: one object each, not one a pod.
        self._shared: dict[Any, Any] = {}
        # requests by requests_shape: a pod's status events and a resync's unchanged pods parse no quantity
        self._requests: dict[Any, Resources] = {}
        # the pods' requests summed as they change, per node (and how many pods each) and of the unbound:
        # a snapshot copies them, where summing every pod took a core at 100 clusters x 1,000 pods being
        # seeded (each cluster's snapshot written every WRITE_EVERY seconds)
        self._by_node: dict[str, Resources] = {}
        self._on_node: dict[str, int] = {}
        self._unbound = Resources()
        self.generation = 0

    def _share(self, value: Any) -> Any:
        return self._shared.setdefault(value, value)

    def pod_entry(self, obj: dict[str, Any]) -> PodEntry | None:
        """What the cache keeps of a pod (as k8s.pod_from reads it); None when it has finished (it no
        longer counts)."""
        if str((obj.get("status") or {}).get("phase") or "") in FINISHED:
            return None
        spec = obj.get("spec") or {}
        try:
            shape = requests_shape(spec)
        except (TypeError, AttributeError):  # malformed: computed as it is, not remembered
            shape = None
        requests = self._requests.get(shape) if shape is not None else None
        if requests is None:
            requests = pod_requests(spec)
            if shape is not None:
                if len(self._requests) >= REQUEST_SHAPES:
                    self._requests.clear()
                self._requests[shape] = requests
        return (self._share(str(spec.get("nodeName") or "")), self._share(requests))

    def replace(self, kind: str, objects: dict[Any, Any]) -> None:
        """A full listing: the cache of `kind` becomes exactly it, and is synced; a listing that finds
        the cache as it was (a quiet cluster's resync) is no change, so nothing is written again."""
        with self._lock:
            changed = objects != (self._nodes if kind == "nodes" else self._pods)
            if kind == "nodes":
                self._nodes = objects
            else:
                self._pods = objects
                self._recount()
            self._synced.add(kind)
            self._heard[kind] = time.monotonic()
            if changed:
                self.generation += 1

    def apply(self, kind: str, event_type: str, obj: dict[str, Any]) -> None:
        """One watch event (ADDED, MODIFIED or DELETED) of `kind`."""
        metadata = obj.get("metadata") or {}
        if kind == "nodes":
            key: Any = str(metadata.get("name") or "")
            value: Any = None if event_type == "DELETED" else k8s.node_from(obj)
        else:
            key = (str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))
            value = None if event_type == "DELETED" else self.pod_entry(obj)
        with self._lock:
            target: dict[Any, Any] = self._nodes if kind == "nodes" else self._pods
            before = target.get(key)
            if value is None:
                changed = target.pop(key, None) is not None
            else:
                changed = before != value
                target[key] = value
            if changed and kind == "pods":
                self._count(before, -1)
                self._count(value, 1)
            self._heard[kind] = time.monotonic()
            if changed:
                self.generation += 1

    def _recount(self) -> None:
        """The sums from every pod (a listing replaced them)."""
        self._by_node, self._on_node, self._unbound = {}, {}, Resources()
        for entry in self._pods.values():
            self._count(entry, 1)

    def _count(self, entry: PodEntry | None, sign: int) -> None:
        """Add (sign 1) or take away (-1) one pod's requests; a node left without pods drops out."""
        if entry is None:
            return
        node, requests = entry
        if not node:
            self._unbound = self._unbound + requests if sign > 0 else self._unbound - requests
            return
        pods = self._on_node.get(node, 0) + sign
        if pods <= 0:
            self._on_node.pop(node, None)
            self._by_node.pop(node, None)
            return
        self._on_node[node] = pods
        total = self._by_node.get(node, Resources())
        self._by_node[node] = total + requests if sign > 0 else total - requests

    def heard(self, kind: str) -> None:
        with self._lock:
            self._heard[kind] = time.monotonic()

    def lost(self, kind: str) -> None:
        """The watch of `kind` broke: the cache may miss events until the next listing."""
        with self._lock:
            self._synced.discard(kind)

    def fresh(self, silent_for: float = SILENT_FOR) -> bool:
        """Both caches synced and heard from within `silent_for` seconds."""
        now = time.monotonic()
        with self._lock:
            return all(
                kind in self._synced and now - self._heard.get(kind, 0.0) < silent_for for kind in KINDS
            )

    def snapshot(self) -> tuple[int, list[NodeInfo], PodTotals]:
        """(generation, nodes, pod totals) as of one moment."""
        with self._lock:
            return self.generation, list(self._nodes.values()), PodTotals(dict(self._by_node), self._unbound)


class InventoryReflector(ListWatch):
    """List one kind into an Inventory, then watch from the list's resourceVersion; 410 Gone, a broken
    watch or the resync period lists again (a broken one marks the cache lost until then)."""

    retried = (Exception,)  # a reflector that died would leave its cache synced and frozen

    def __init__(
        self,
        conn: ClusterConnection,
        kind: str,
        inventory: Inventory,
        resync: float,
        watch_seconds: int = WATCH_SECONDS,
    ) -> None:
        api_version, kind_name = KINDS[kind]
        super().__init__(
            f"inventory-{conn.name}-{kind}",
            conn,
            api_version,
            kind_name,
            resync,
            watch_seconds,
            mux=shared_mux(MUX, MUX_OPENERS),
        )
        self.kind, self.inventory = kind, inventory

    def _failed(self, exc: BaseException, backoff: float, version: str) -> str:
        self.inventory.lost(self.kind)
        if not self.stopping.is_set():
            if isinstance(exc, KubeError):
                log.info("inventory %s %s: %s; again in %.1fs", self.conn.name, self.kind, exc, backoff)
            else:
                log.exception("inventory %s %s failed; again in %.1fs", self.conn.name, self.kind, backoff)
        return ""

    def _list(self) -> str:
        objects: dict[Any, Any] = {}
        if self.kind == "nodes":

            def keep(item: dict[str, Any]) -> None:
                node = k8s.node_from(item)
                objects[node.name] = node
        else:

            def keep(item: dict[str, Any]) -> None:
                entry = self.inventory.pod_entry(item)
                if entry is not None:
                    metadata = item.get("metadata") or {}
                    objects[(str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))] = entry

        version = list_each(self.conn, self.api_version, self.kind_name, keep)
        self.inventory.replace(self.kind, objects)
        return version

    def _event(self, event: WatchEvent) -> None:
        self.inventory.apply(self.kind, event.type, event.object)

    def _bookmark(self) -> None:
        self.inventory.heard(self.kind)

    def _closed(self) -> None:
        self.inventory.heard(self.kind)  # the server ended the watch: it is there
