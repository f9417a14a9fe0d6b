"""Dispatch: make member clusters hold what Works say (apply, release or delete), many clusters at once."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from clusters.k8s import ClusterConnection, KubeError, NotFound, objects
from clusters.models import Cluster
from metrics import recording
from scheduling import events
from scheduling.controllers import drift_events, locks, propagation
from scheduling.karmada import names
from scheduling.karmada.interpreter import interpret_health, reflect_status
from scheduling.karmada.manifests import released_copy, retain_member_fields
from scheduling.models import UNHEALTHY, Work

# Calls to member clusters overlap; Karmada's execution controller runs concurrent work syncs likewise.
PARALLEL_CALLS = 8
# At most this many calls to one cluster at once in a process, so a slow cluster cannot take them all.
PER_CLUSTER_CALLS = 4
_gates: dict[str, threading.BoundedSemaphore] = {}
_gates_lock = threading.Lock()


@dataclass
class Outcome:
    """What one Work's member call came to; written back to the database by the calling thread."""

    action: str  # created, updated, unchanged, refused, failed, deleted, released, suspended
    live: dict[str, Any] | None = None
    reason: str = ""
    message: str = ""
    seconds: float | None = None  # how long an apply took, for work_sync_workload_duration_seconds


@dataclass
class DispatchResult:
    """Per work id, the action taken; the bindings whose Works were removed (to finish deletions)."""

    actions: dict[int, str] = field(default_factory=dict)
    emptied_bindings: set[int] = field(default_factory=set)
    # Works whose desired state moved on during the call: apply them again
    requeue: set[int] = field(default_factory=set)
    # Works another worker held (was applying) when this call began
    skipped: list[int] = field(default_factory=list)


def _conflict_message(manifest: dict[str, Any]) -> str:
    meta = manifest["metadata"]
    where = f"{meta.get('namespace')}/" if meta.get("namespace") else ""
    return (
        f"{manifest['kind']} {where}{meta['name']} already exists in the member cluster and is not managed "
        "by Karmada; set conflictResolution: Overwrite to take it over"
    )


def _apply(work: Work, conn: ClusterConnection) -> Outcome:
    """Create or update the member copy; an unmanaged existing object is taken only with Overwrite."""
    overwrite = work.binding.conflict_resolution == "Overwrite"

    def may_update(live: dict[str, Any]) -> bool:
        labels = (live.get("metadata") or {}).get("labels") or {}
        return labels.get(names.MANAGED_LABEL) == "true" or overwrite

    outcome = objects.apply_object(conn, work.manifest, may_update=may_update, merge=retain_member_fields)
    if outcome.action == "refused":
        return Outcome("refused", outcome.object, "ConflictResolution", _conflict_message(work.manifest))
    return Outcome(outcome.action, outcome.object)


def _remove(work: Work, conn: ClusterConnection) -> Outcome:
    """Delete our member copy, or strip Karmada's metadata from it when it is preserved."""
    manifest = work.manifest
    meta = manifest.get("metadata") or {}
    identity = (manifest["apiVersion"], manifest["kind"], meta["name"], meta.get("namespace", ""))
    try:
        live = objects.get_object(conn, *identity)
    except NotFound:
        return Outcome("released" if work.preserve_on_delete else "deleted")
    labels = (live.get("metadata") or {}).get("labels") or {}
    if work.preserve_on_delete:
        if labels.get(names.WORK_PERMANENT_ID) == str(work.permanent_id):
            objects.replace_object(conn, released_copy(live))
        return Outcome("released")
    if labels.get(names.MANAGED_LABEL) == "true":
        objects.delete_object(conn, *identity)
    return Outcome("deleted")


def _act(work: Work, conn: ClusterConnection | None, problem: str) -> Outcome:
    """The member call for one Work; runs in a pool thread, touches no database."""
    if work.deleting and conn is None and not problem:
        return Outcome("deleted")  # the cluster is no longer registered: nothing left to remove
    if work.suspended and not work.deleting:
        return Outcome("suspended")
    if conn is None:
        return Outcome("failed", reason="ClusterNotFound", message=problem)
    if work.deleting:
        try:
            return _remove(work, conn)
        except KubeError as exc:
            return Outcome("failed", reason="DeleteFailed", message=exc.message)
    started = time.monotonic()
    try:
        outcome = _apply(work, conn)
    except KubeError as exc:
        outcome = Outcome("failed", reason="AppliedFailed", message=exc.message)
    outcome.seconds = time.monotonic() - started
    return outcome


def _connections(works: list[Work]) -> dict[str, tuple[ClusterConnection | None, str]]:
    found: dict[str, tuple[ClusterConnection | None, str]] = {}
    for cluster in Cluster.objects.filter(name__in={w.cluster_name for w in works}):
        try:
            found[cluster.name] = (cluster.connection(), "")
        except Exception as exc:  # unreadable credentials must not stop the other clusters
            found[cluster.name] = (None, f"credentials of {cluster.name} cannot be read: {exc}")
    return found


def apply_works(work_ids: list[int], now: datetime | None = None) -> DispatchResult:
    """Apply, release or delete each Work in its member cluster, calls in parallel; record the outcomes.

    Each Work is held by one worker at a time (locks.WORK): one that another worker is applying right
    now is left to it (`skipped`); if that worker's manifest was an older one, its conditional write
    fails and the Work is queued again (`requeue`), so no Work is applied twice at once and none is lost.
    """
    now = now or timezone.now()
    with locks.holding(locks.WORK, work_ids) as held:
        result = _apply_held(held, now)
    result.skipped = sorted(set(work_ids) - set(held))
    return result


def _cluster_gate(name: str) -> threading.BoundedSemaphore:
    with _gates_lock:
        gate = _gates.get(name)
        if gate is None:
            gate = _gates[name] = threading.BoundedSemaphore(PER_CLUSTER_CALLS)
        return gate


def _apply_held(work_ids: list[int], now: datetime) -> DispatchResult:
    works = list(Work.objects.select_related("binding").filter(pk__in=work_ids))
    conns = _connections(works)

    def call(work: Work) -> Outcome:
        if work.cluster_name not in conns:
            if work.deleting:
                return _act(work, None, "")
            return _act(work, None, f"cluster {work.cluster_name} is not registered")
        with _cluster_gate(work.cluster_name):  # a slow cluster takes at most its share of the calls
            return _act(work, *conns[work.cluster_name])

    if len(works) > 1:
        with ThreadPoolExecutor(max_workers=min(PARALLEL_CALLS, len(works))) as pool:
            outcomes = list(pool.map(call, works))
    else:
        outcomes = [call(work) for work in works]
    result = DispatchResult()
    with transaction.atomic():  # one commit for the whole chunk
        for work, outcome in zip(works, outcomes, strict=True):
            result.actions[work.pk] = outcome.action
            _record(work, outcome, now, result)
        written = [
            w.pk
            for w, o in zip(works, outcomes, strict=True)
            if o.action in ("created", "updated", "unchanged")
        ]
        drift_events.mark_put_back(written, now)  # a drifted copy written again holds our manifest
        # the member copies' status just read back goes into their bindings and templates at once
        propagation.aggregate_bindings({w.binding_id for w in works}, now)
    return result


def _record(work: Work, outcome: Outcome, now: datetime, result: DispatchResult) -> None:
    if outcome.seconds is not None:  # Karmada's metric, with the member cluster as a label
        ok = outcome.action not in ("refused", "failed")
        recording.observe(
            "work_sync_workload_duration_seconds",
            outcome.seconds,
            {"result": "success" if ok else "error", "member_cluster": work.cluster_name},
        )
    if outcome.action in ("deleted", "released"):
        Work.objects.filter(pk=work.pk, deleting=True).delete()
        result.emptied_bindings.add(work.binding_id)
    elif outcome.action in ("refused", "failed"):
        changed = (work.applied_reason, work.applied_message) != (outcome.reason, outcome.message)
        Work.objects.filter(pk=work.pk).update(
            applied=False,
            applied_hash="",
            applied_reason=outcome.reason,
            applied_message=outcome.message,
            updated_at=timezone.now(),
        )
        if changed:
            events.record(work, "Warning", outcome.reason, f"{work.cluster_name}: {outcome.message}")
    elif outcome.live is not None:
        health = interpret_health(outcome.live)
        # Conditional: a Work whose desired state moved on meanwhile stays out of sync and is applied again.
        written = Work.objects.filter(pk=work.pk, desired_hash=work.desired_hash).update(
            applied=True,
            applied_hash=work.desired_hash,
            applied_reason="AppliedSuccessful",
            applied_message="Manifest has been successfully applied",
            applied_at=now,
            updated_at=timezone.now(),
            status=reflect_status(outcome.live),
            health=health,
            status_at=now,
            unhealthy_since=(work.unhealthy_since or now) if health == UNHEALTHY else None,
        )
        if not written:
            result.requeue.add(work.pk)


def apply_now(work_id: int, now: datetime | None = None) -> Outcome:
    """An operator's re-apply of one copy: written even while dispatching is suspended, and over an
    object that is not ours (which it then is); the outcome recorded as any apply's."""
    now = now or timezone.now()
    work = Work.objects.select_related("binding").get(pk=work_id)
    conn, problem = _connections([work]).get(
        work.cluster_name, (None, f"cluster {work.cluster_name} is not registered")
    )
    if conn is None:
        outcome = Outcome("failed", reason="ClusterNotFound", message=problem)
    else:
        try:
            applied = objects.apply_object(conn, work.manifest, merge=retain_member_fields)
            outcome = Outcome(applied.action, applied.object)
        except KubeError as exc:
            outcome = Outcome("failed", reason="AppliedFailed", message=exc.message)
    with transaction.atomic():
        _record(work, outcome, now, DispatchResult())
    return outcome
