"""Drift events: each member copy found changed by someone else is kept with what differed, which field
managers set it (from managedFields), the diff, and whether the repair put it back or is held."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import connection
from django.utils import timezone

from scheduling.karmada.drift import differences, unified_diff
from scheduling.karmada.manifests import retain_member_fields
from scheduling.models import DriftEvent, Work


def _identity(manifest: dict[str, Any]) -> tuple[str, str, str]:
    meta = manifest.get("metadata") or {}
    return manifest["kind"], str(meta.get("name")), str(meta.get("namespace") or "")


def _managers(live: dict[str, Any], names: set[str]) -> list[dict[str, Any]]:
    entries = (live.get("metadata") or {}).get("managedFields") or []
    return [
        {"manager": e.get("manager", ""), "operation": e.get("operation", ""), "time": e.get("time", "")}
        for e in entries
        if e.get("manager") in names
    ]


def describe(work: Work, live: dict[str, Any] | None, cluster: str = "") -> dict[str, Any]:
    """What differs between the Work's manifest and the live copy (None: the copy is gone)."""
    if live is None:
        return {
            "changes": [{"path": "", "desired": None, "live": None, "absentInLive": True, "managers": []}],
            "managers": [],
            "diff": "",
        }
    desired = retain_member_fields(live, work.manifest)
    found = differences(desired, live)
    names = {manager for diff in found for manager in diff.managers}
    return {
        "changes": [diff.as_dict() for diff in found],
        "managers": _managers(live, names),
        "diff": unified_diff(desired, live, cluster or work.cluster_name),
    }


def held_reason(work: Work) -> str:
    """Why the repair of this copy waits, or "" when it goes ahead."""
    if work.suspended:
        return "dispatching is suspended"
    if work.applied_reason == "ConflictResolution":
        return "conflictResolution is Abort: the object is not ours to overwrite"
    return ""


def record_drift(work: Work, live: dict[str, Any] | None, now: datetime | None = None) -> DriftEvent | None:
    """Keep the drift found in a member copy; the open event of the same copy is updated, not repeated."""
    now = now or timezone.now()
    if live is None and work.applied_reason == "ConflictResolution":
        return None  # not ours to lose: an object of someone else's holds the name (the Work says so)
    found = describe(work, live)
    if not found["changes"]:
        return None
    reason = held_reason(work)
    state = DriftEvent.HELD if reason else DriftEvent.REPAIRING
    open_event = DriftEvent.objects.filter(work=work, put_back_at__isnull=True).first()
    if open_event is not None:
        if (open_event.changes, open_event.state) != (found["changes"], state):
            open_event.changes, open_event.managers, open_event.diff = (
                found["changes"],
                found["managers"] or open_event.managers,
                found["diff"],
            )
            open_event.state, open_event.held_reason = state, reason
            open_event.save(update_fields=["changes", "managers", "diff", "state", "held_reason"])
        return open_event
    kind, name, namespace = _identity(work.manifest)
    return DriftEvent.objects.create(
        binding_id=work.binding_id,
        work=work,
        cluster_name=work.cluster_name,
        object_kind=kind,
        object_namespace=namespace,
        object_name=name,
        detected_at=now,
        state=state,
        held_reason=reason,
        **found,
    )


def mark_put_back(work_ids: list[int], now: datetime | None = None, by: str = "karmada-ui") -> int:
    """The copies of these Works hold our manifest again: their open drift events are put back."""
    if not work_ids:
        return 0
    if connection.vendor == "postgresql":
        # Called after every batch of applies, nearly always matching nothing: one statement with the ids
        # as one array parameter (the ORM's update built and bound an IN list: ~1 ms a batch).
        table = connection.ops.quote_name(DriftEvent._meta.db_table)
        sql = (
            f"UPDATE {table} SET put_back_at = %s, put_back_by = %s, state = %s, held_reason = '' "  # noqa: S608
            "WHERE work_id = ANY(%s::bigint[]) AND put_back_at IS NULL"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, [now or timezone.now(), by, DriftEvent.PUT_BACK, list(work_ids)])
            return cursor.rowcount
    return DriftEvent.objects.filter(work_id__in=work_ids, put_back_at__isnull=True).update(
        put_back_at=now or timezone.now(), put_back_by=by, state=DriftEvent.PUT_BACK, held_reason=""
    )
