"""The inventories of a set of clusters, written for the health collection, and read back only while fresh."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.utils import timezone

from clusters.inventory import KINDS, Inventory, InventoryReflector
from clusters.k8s import ClusterConnection, NodeInfo
from clusters.models import Cluster, ClusterInventory
from clusters.resource_summary import PodTotals, nodes_from_json, nodes_json

log = logging.getLogger(__name__)

# The watcher confirms every fresh inventory this often; the collection trusts one confirmed within
# CONFIRMED_WITHIN seconds (many confirmations missed: the watcher is gone, list directly). A watcher
# busy with a seeding's events confirmed 12 s apart at worst (bench_scale, 2026-12-04); with 10 s here
# every probe then listed nodes and pods itself (100 clusters: half a core), more load again. An
# inventory the watcher knows is stale (a cache unsynced or silent) is unconfirmed at once.
WRITE_EVERY = 2.0
CONFIRMED_WITHIN = 30.0


class InventoryWatch:
    """Reflectors of nodes and pods for each cluster given, and the writes of what they hold."""

    def __init__(self, resync: float = 300.0, watch_seconds: int | None = None) -> None:
        self.resync, self.watch_seconds = resync, watch_seconds
        self.inventories: dict[str, tuple[Inventory, ClusterConnection, list[InventoryReflector]]] = {}
        self._written: dict[str, int] = {}  # cluster -> generation last written
        self._confirmed: set[str] = set()

    def refresh(self, connections: dict[str, ClusterConnection]) -> None:
        """Watch exactly these clusters: start the new ones, stop the gone ones and those whose
        connection changed (the new connection starts over)."""
        for name, (_, conn, reflectors) in list(self.inventories.items()):
            if connections.get(name) != conn:
                for reflector in reflectors:
                    reflector.stop()
                del self.inventories[name]
                self._written.pop(name, None)
        for name in sorted(set(connections) - set(self.inventories)):
            inventory = Inventory(name)
            extra = {} if self.watch_seconds is None else {"watch_seconds": self.watch_seconds}
            reflectors = [
                InventoryReflector(connections[name], kind, inventory, self.resync, **extra) for kind in KINDS
            ]
            self.inventories[name] = (inventory, connections[name], reflectors)
            for reflector in reflectors:
                reflector.start()

    def stop(self) -> None:
        for _, _, reflectors in self.inventories.values():
            for reflector in reflectors:
                reflector.stop()

    def write(self, now: datetime | None = None) -> int:
        """Store the inventories that changed and confirm every fresh one, in few statements; unconfirm
        those that went stale so the collection lists directly at once. How many were confirmed."""
        now = now or timezone.now()
        ids = dict(Cluster.objects.filter(name__in=list(self.inventories)).values_list("name", "id"))
        fresh: list[str] = []
        stale: list[str] = []
        for name, (inventory, _, _) in self.inventories.items():
            if name not in ids:
                continue
            (fresh if inventory.fresh() else stale).append(name)
        confirm, rows, generations = [], [], {}
        for name in fresh:
            inventory = self.inventories[name][0]
            if self._written.get(name) == inventory.generation:
                confirm.append(ids[name])
                continue
            generations[name], nodes, pods = inventory.snapshot()
            rows.append(
                ClusterInventory(
                    cluster_id=ids[name],
                    nodes=nodes_json(nodes),
                    pods=pods.as_json(),
                    changed_at=now,
                    confirmed_at=now,
                )
            )
        if rows:  # every changed inventory in one statement (a seeding fleet changes them all at once)
            ClusterInventory.objects.bulk_create(
                rows,
                update_conflicts=True,
                unique_fields=["cluster"],
                update_fields=["nodes", "pods", "changed_at", "confirmed_at"],
            )
            self._written.update(generations)
        if confirm and ClusterInventory.objects.filter(cluster_id__in=confirm).update(
            confirmed_at=now
        ) != len(confirm):
            self._written.clear()  # a row went missing (the cluster joined again): write them all anew
        gone_stale = [ids[name] for name in stale if name in self._confirmed]
        if gone_stale:
            ClusterInventory.objects.filter(cluster_id__in=gone_stale).update(confirmed_at=None)
        self._confirmed = set(fresh)
        return len(fresh)


def fresh_inventory(cluster: Cluster, now: datetime) -> tuple[list[NodeInfo], PodTotals] | None:
    """The cluster's nodes and pod totals from the watcher, if it confirmed them lately; else None."""
    try:
        inventory = cluster.inventory
    except ClusterInventory.DoesNotExist:
        return None
    confirmed = inventory.confirmed_at
    if confirmed is None or abs((now - confirmed).total_seconds()) > CONFIRMED_WITHIN:
        return None
    return nodes_from_json(inventory.nodes), PodTotals.from_json(inventory.pods)


def watched_cluster_names(now: datetime) -> set[str]:
    """Clusters a running watcher confirmed within CONFIRMED_WITHIN seconds: it lists their copies every
    resync and judges every event, so the reconcile need not read them back as well."""
    since = now - timedelta(seconds=CONFIRMED_WITHIN)
    return set(
        ClusterInventory.objects.filter(
            confirmed_at__gte=since, confirmed_at__lte=now + timedelta(seconds=5)
        ).values_list("cluster__name", flat=True)
    )
