"""The dirty-binding queue: which bindings an event can affect, marking them, and taking a mark."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from django.db import connection
from django.utils import timezone

from scheduling.karmada import selection
from scheduling.models import OverridePolicy, PlacementKey, ResourceBinding, Work


def index_placement(binding: ResourceBinding) -> None:
    """Store the keys the binding's placement selects on; called whenever the placement is written."""
    wanted = selection.placement_keys(binding.placement or {})
    held = set(PlacementKey.objects.filter(binding=binding).values_list("key", flat=True))
    if held == wanted:
        return
    PlacementKey.objects.filter(binding=binding, key__in=held - wanted).delete()
    PlacementKey.objects.bulk_create(
        [PlacementKey(binding=binding, key=key) for key in sorted(wanted - held)]
    )


def index_new_placements(bindings: Iterable[ResourceBinding]) -> None:
    """index_placement for bindings just created (no key stored yet), in one insert."""
    PlacementKey.objects.bulk_create(
        [
            PlacementKey(binding=binding, key=key)
            for binding in bindings
            for key in sorted(selection.placement_keys(binding.placement or {}))
        ]
    )


def targeting_any(clusters: Iterable[str]) -> set[int]:
    """Bindings that hold (or are removing) a Work in one of these clusters."""
    names = sorted(set(clusters))
    if not names:
        return set()
    works = Work.objects.filter(cluster_name__in=names)
    return set(works.values_list("binding_id", flat=True).distinct())


def override_keys() -> set[str]:
    """The keys some OverridePolicy picks its target clusters by (a few rows)."""
    keys: set[str] = set()
    for spec in OverridePolicy.objects.values_list("spec", flat=True):
        keys |= selection.override_label_keys(spec)
    return keys


State = Mapping[str, Any] | None
Change = tuple[str, State, State]


def _touched_keys(old: State, new: State) -> set[str] | None:
    """The index keys a change touches; None when it changes whether the cluster can take workloads at
    all (joined, removed, taints, readiness): then every placement is tested (a NotIn or DoesNotExist
    term selects clusters without the key), and the bindings holding a Work there count too."""
    if (
        old is None
        or new is None
        or old.get("taints") != new.get("taints")
        or old.get("ready") != new.get("ready")
    ):
        return None
    keys = {
        selection.label_key(k)
        for k in selection.changed_label_keys(old.get("labels") or {}, new.get("labels") or {})
    }
    keys |= {selection.field_key(f) for f in selection.CLUSTER_FIELDS if old.get(f) != new.get(f)}
    if old.get("zones") != new.get("zones"):
        keys.add(selection.field_key("zone"))
    return keys


def _placements(keys: set[str] | None) -> list[tuple[selection.ClusterAffinity, set[str], list[int]]]:
    """The bindings selecting on any of these keys (None: every binding), one entry per distinct
    placement and observed affinity: (the affinity a cluster event is tested with, the placement's
    keys, the binding ids)."""
    bindings = ResourceBinding.objects.all()
    if keys is not None:
        if not keys:
            return []
        bindings = bindings.filter(pk__in=PlacementKey.objects.filter(key__in=keys).values("binding_id"))
    rows = bindings.values_list(
        "pk", "placement", "generation", "scheduler_observed_generation", "scheduler_observed_affinity_name"
    )
    groups: dict[tuple[str, str | None], tuple[selection.ClusterAffinity, set[str], list[int]]] = {}
    for pk, placement, generation, observed_generation, observed_name in rows.iterator(chunk_size=2000):
        observed = observed_name if observed_generation == generation else None
        group = (json.dumps(placement or {}, sort_keys=True), observed)
        if group not in groups:
            affinity = selection.deciding_affinity(placement or {}, observed)
            groups[group] = (affinity, selection.placement_keys(placement or {}), [])
        groups[group][2].append(pk)
    return list(groups.values())


def affected_by_cluster_changes(changes: Iterable[Change]) -> set[int]:
    """The bindings some of these cluster changes can affect, found with one read of the placements.

    Each change is (name, old, new); `old`/`new` hold the cluster's labels, taints, provider, region,
    zones and readiness (None: it did not exist / no longer exists). As Karmada's scheduler enqueues
    the bindings affected by a cluster event, a binding counts when its placement selects on what
    changed (any placement for joining, leaving, taints and readiness) and its affinity — the observed
    clusterAffinities term, or any cluster while that is not observed yet — matches the cluster's old
    or new state, or it has no affinity. The bindings holding a Work there count too when the cluster
    joined, left, changed taints or readiness, or changed a key an OverridePolicy picks clusters by.
    """
    touched = [(name, old, new, _touched_keys(old, new)) for name, old, new in changes]
    if not touched:
        return set()
    narrowed = [keys for *_, keys in touched if keys is not None]
    if len(narrowed) < len(touched):
        placements = _placements(None)
    else:
        placements = _placements(set().union(*narrowed))
    overridden = override_keys() if narrowed else set()
    found: set[int] = set()
    targets: set[str] = set()
    for name, old, new, keys in touched:
        states = [selection.cluster_state(name, state) for state in (old, new) if state is not None]
        for affinity, placement_keys, ids in placements:
            if (keys is None or placement_keys & keys) and selection.selects(affinity, states):
                found.update(ids)
        if keys is None or overridden & keys:
            targets.add(name)
    return found | targeting_any(targets)


def affected_by_cluster_change(name: str, old: State, new: State) -> set[int]:
    """The bindings a change to one cluster can affect (affected_by_cluster_changes for one)."""
    return affected_by_cluster_changes([(name, old, new)])


def mark(binding_ids: Iterable[int], now: datetime | None = None) -> list[int]:
    """Mark bindings dirty; the ids that were not dirty already (each needs one task queued)."""
    ids = sorted(set(binding_ids))
    if not ids:
        return []
    fresh = list(
        ResourceBinding.objects.filter(pk__in=ids, dirty_since__isnull=True).values_list("pk", flat=True)
    )
    if fresh:
        ResourceBinding.objects.filter(pk__in=fresh, dirty_since__isnull=True).update(
            dirty_since=now or timezone.now()
        )
    return fresh


def take(binding_id: int) -> bool:
    """Clear the binding's mark as its work starts; False when no mark was set. An event after this
    point marks it again and queues another pass, so nothing that happens meanwhile is missed."""
    return bool(
        ResourceBinding.objects.filter(pk=binding_id, dirty_since__isnull=False).update(dirty_since=None)
    )


def take_many(binding_ids: Iterable[int]) -> list[int]:
    """take() for many bindings in one statement; the ids whose mark this call cleared. UPDATE … RETURNING
    clears and reports in one step, so two passes never both take the same mark."""
    ids = sorted({int(pk) for pk in binding_ids})
    if not ids:
        return []
    table = connection.ops.quote_name(ResourceBinding._meta.db_table)
    column = connection.ops.quote_name("dirty_since")
    marks = ", ".join(["%s"] * len(ids))
    # Only quoted identifiers and placeholders are interpolated; every id is a parameter.
    sql = f"UPDATE {table} SET {column} = NULL WHERE id IN ({marks}) AND {column} IS NOT NULL RETURNING id"  # noqa: S608
    with connection.cursor() as cursor:
        cursor.execute(sql, ids)
        return sorted(row[0] for row in cursor.fetchall())


def stale(older_than: datetime) -> list[int]:
    """Bindings marked before this time whose task never ran (a lost message, a dead worker)."""
    return list(
        ResourceBinding.objects.filter(dirty_since__lt=older_than).order_by("pk").values_list("pk", flat=True)
    )
