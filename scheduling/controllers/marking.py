"""The dirty-binding queue: which bindings an event can affect, marking them, and taking a mark."""

from __future__ import annotations

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


def selecting(keys: Iterable[str]) -> set[int]:
    """Bindings whose placement selects on any of these keys."""
    keys = set(keys)
    if not keys:
        return set()
    return set(PlacementKey.objects.filter(key__in=keys).values_list("binding_id", flat=True).distinct())


def targeting(cluster: str) -> set[int]:
    """Bindings that hold (or are removing) a Work in this cluster."""
    return set(Work.objects.filter(cluster_name=cluster).values_list("binding_id", flat=True).distinct())


def overrides_select_on(keys: set[str]) -> bool:
    """Whether some OverridePolicy picks its target clusters by one of these keys (a few rows)."""
    if not keys:
        return False
    return any(
        selection.override_label_keys(spec) & keys
        for spec in OverridePolicy.objects.values_list("spec", flat=True)
    )


def affected_by_cluster_change(
    name: str, old: Mapping[str, Any] | None, new: Mapping[str, Any] | None
) -> set[int]:
    """The bindings a change to one cluster can affect.

    `old`/`new` hold the cluster's labels, taints, provider, region and zone (None: it did not exist /
    no longer exists).  Joining, leaving, taints and readiness change whether the cluster can take
    workloads at all, so every binding that could select it counts; a label or field change counts only
    for the placements (and the overrides of the bindings there) that select on what changed.
    """
    if (
        old is None
        or new is None
        or old.get("taints") != new.get("taints")
        or old.get("ready") != new.get("ready")
    ):
        labels = set((old or {}).get("labels") or {}) | set((new or {}).get("labels") or {})
        return selecting(selection.every_key_of(name, labels)) | targeting(name)
    keys = {
        selection.label_key(k)
        for k in selection.changed_label_keys(old.get("labels") or {}, new.get("labels") or {})
    }
    keys |= {selection.field_key(f) for f in selection.CLUSTER_FIELDS if old.get(f) != new.get(f)}
    if old.get("zones") != new.get("zones"):
        keys.add(selection.field_key("zone"))
    found = selecting(keys)
    if overrides_select_on(keys):
        found |= targeting(name)
    return found


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
