"""Dispatch: make member clusters hold what Works say (apply, release or delete), many clusters at once."""

from __future__ import annotations

import queue
import threading
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Iterator
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
from scheduling.controllers import applied_writes, drift_events, locks, propagation
from scheduling.karmada import names
from scheduling.karmada.manifests import released_copy, retain_member_fields
from scheduling.models import ResourceBinding, Work

# Calls to member clusters overlap; Karmada's execution controller runs concurrent work syncs likewise.
PARALLEL_CALLS = 8
# At most this many calls to one cluster at once in a process, so a slow cluster cannot take them all.
PER_CLUSTER_CALLS = 4
_gates: dict[str, threading.BoundedSemaphore] = {}
_gates_lock = threading.Lock()
GATE_WAIT = 0.05  # seconds between looks at gates other chunks of this process may release
# Outcomes are written back as their calls complete, in batches of about this many, or fewer once the
# oldest has waited RECORD_EVERY seconds: each batch is a transaction of a few statements whatever its
# size (a seeding chunk's calls took seconds, so its batches were of the 0.2 s they waited, ~10 Works).
RECORD_BATCH = 100
RECORD_EVERY = 0.5
AGGREGATE_EVERY = 0.5  # seconds: bindings whose Works are all recorded are aggregated at most this often


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


def _written_before(work: Work) -> bool:
    """The Work was applied once: its copy is most likely there (read first, not created first)."""
    return work.applied_at is not None


def _apply(work: Work, conn: ClusterConnection) -> Outcome:
    """Create or update the member copy; an unmanaged existing object is taken only with Overwrite."""
    overwrite = work.binding.conflict_resolution == "Overwrite"

    def may_update(live: dict[str, Any]) -> bool:
        labels = (live.get("metadata") or {}).get("labels") or {}
        return labels.get(names.MANAGED_LABEL) == "true" or overwrite

    outcome = objects.apply_object(
        conn, work.manifest, may_update=may_update, merge=retain_member_fields, exists=_written_before(work)
    )
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


# Connections decrypted in this process, by everything they were made from (new credentials or a new
# endpoint make another key): a chunk's clusters are mostly the ones the last chunks called, and their
# Fernet decryption, with the read of whole cluster rows, cost 79 us per Work at 100 clusters.
_decrypted: OrderedDict[tuple[str, str, bool, str], ClusterConnection] = OrderedDict()
_decrypted_lock = threading.Lock()
DECRYPTED_KEPT = 4096
CONNECTION_COLUMNS = ("name", "api_endpoint", "insecure_skip_tls_verify", "credentials")


def _connection(cluster: Cluster) -> ClusterConnection:
    key = (cluster.name, cluster.api_endpoint, cluster.insecure_skip_tls_verify, cluster.credentials)
    with _decrypted_lock:
        conn = _decrypted.get(key)
        if conn is not None:
            _decrypted.move_to_end(key)
            return conn
    conn = cluster.connection()
    with _decrypted_lock:
        _decrypted[key] = conn
        while len(_decrypted) > DECRYPTED_KEPT:
            _decrypted.popitem(last=False)
    return conn


def _connections(works: list[Work]) -> dict[str, tuple[ClusterConnection | None, str]]:
    found: dict[str, tuple[ClusterConnection | None, str]] = {}
    names = {w.cluster_name for w in works}
    for cluster in Cluster.objects.filter(name__in=names).only(*CONNECTION_COLUMNS):
        try:
            found[cluster.name] = (_connection(cluster), "")
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
    # the chunk's metric increments (one series per member cluster) in one write at its end
    with locks.holding(locks.WORK, work_ids) as held, recording.together():
        result = _apply_held(held, now)
    result.skipped = sorted(set(work_ids) - set(held))
    return result


def _cluster_gate(name: str) -> threading.BoundedSemaphore:
    with _gates_lock:
        gate = _gates.get(name)
        if gate is None:
            gate = _gates[name] = threading.BoundedSemaphore(PER_CLUSTER_CALLS)
        return gate


def _held_works(work_ids: list[int]) -> list[Work]:
    """The Works with their bindings as a member call reads them: only conflict_resolution, one read for
    the chunk (a whole binding row carries every cluster's status: read with each of its Works, that
    was most of a chunk's read at 100 clusters). A Work whose binding went meanwhile goes with it."""
    works = list(Work.objects.filter(pk__in=work_ids).order_by("pk"))
    bindings = ResourceBinding.objects.only("conflict_resolution").in_bulk({w.binding_id for w in works})
    for work in works:
        if work.binding_id in bindings:
            work.binding = bindings[work.binding_id]
    return [w for w in works if w.binding_id in bindings]


def _apply_held(work_ids: list[int], now: datetime) -> DispatchResult:
    works = _held_works(work_ids)
    conns = _connections(works)
    result = DispatchResult()
    left = Counter(w.binding_id for w in works)  # per binding, its Works of this chunk not yet recorded
    complete: set[int] = set()
    aggregated = time.monotonic()
    for batch in _outcomes(works, conns):
        _write(batch, now, result)
        for work, _ in batch:
            left[work.binding_id] -= 1
        # a binding's status is aggregated once, after the last of its Works in the chunk is recorded:
        # at the end of the chunk, or on the way when the chunk takes long (a slow cluster)
        complete |= {work.binding_id for work, _ in batch if not left[work.binding_id]}
        if complete and time.monotonic() - aggregated >= AGGREGATE_EVERY:
            _aggregate(complete, now)
            complete, aggregated = set(), time.monotonic()
    _aggregate(complete, now)
    return result


def _aggregate(binding_ids: set[int], now: datetime) -> None:
    """The member copies' status just read back goes into their bindings and templates, each write its
    own commit: no Work row lock is held by then (the propagation takes a binding's lock, then its
    Works'), nor a second binding's (statements marking many bindings lock them in their own order)."""
    if binding_ids:
        propagation.aggregate_bindings(binding_ids, now)


class _Turns:
    """The Works of a chunk waiting by cluster: each call thread takes the next one whose cluster has a
    free call (the clusters taking turns), so no thread ever waits on a busy cluster's gate."""

    def __init__(self, works: list[Work], gated: set[str]) -> None:
        self.waiting: dict[str, deque[Work]] = {}
        for work in works:
            self.waiting.setdefault(work.cluster_name, deque()).append(work)
        self.turns = deque(self.waiting)
        self.gated = gated
        self.changed = threading.Condition()
        self.stopped = False

    def take(self) -> tuple[Work, threading.BoundedSemaphore | None] | None:
        """The next Work and the gate it holds (released with `release`); None once none is left."""
        with self.changed:
            while self.turns and not self.stopped:
                for _ in range(len(self.turns)):
                    name = self.turns[0]
                    gate = _cluster_gate(name) if name in self.gated else None
                    if gate is not None and not gate.acquire(blocking=False):
                        self.turns.rotate(-1)  # its share of calls is running: the next cluster's turn
                        continue
                    work = self.waiting[name].popleft()
                    if self.waiting[name]:
                        self.turns.rotate(-1)
                    else:
                        self.turns.popleft()
                    return work, gate
                self.changed.wait(GATE_WAIT)  # every cluster left is at its share: until a call ends
            return None

    def release(self, gate: threading.BoundedSemaphore | None) -> None:
        if gate is not None:
            gate.release()
        with self.changed:
            self.changed.notify_all()

    def stop(self) -> None:
        with self.changed:
            self.stopped = True
            self.changed.notify_all()


def _outcomes(
    works: list[Work], conns: dict[str, tuple[ClusterConnection | None, str]]
) -> Iterator[list[tuple[Work, Outcome]]]:
    """Run the member calls, at most PARALLEL_CALLS at once and PER_CLUSTER_CALLS per cluster in this
    process (the clusters taking turns), and yield their outcomes in small batches as they complete:
    a slow cluster holds a few of the calls, never the others' Works nor the writing of their outcomes."""
    turns = _Turns(works, set(conns))
    done: queue.SimpleQueue[tuple[Work, Outcome | BaseException]] = queue.SimpleQueue()

    def call(work: Work) -> Outcome:
        if work.cluster_name not in conns:
            problem = "" if work.deleting else f"cluster {work.cluster_name} is not registered"
            return _act(work, None, problem)
        return _act(work, *conns[work.cluster_name])

    def run() -> None:  # one call thread: takes Works until none is left
        while (taken := turns.take()) is not None:
            work, gate = taken
            try:
                done.put((work, call(work)))
            except BaseException as exc:  # handed to the chunk's thread, which raises it
                done.put((work, exc))
            finally:
                turns.release(gate)

    threads = max(1, min(PARALLEL_CALLS, len(works)))
    ready: list[tuple[Work, Outcome]] = []
    oldest = 0.0
    received = 0
    with ThreadPoolExecutor(max_workers=threads) as pool:
        for _ in range(threads):
            pool.submit(run)
        try:
            while received < len(works):
                try:
                    work, outcome = done.get(timeout=RECORD_EVERY)
                except queue.Empty:
                    pass
                else:
                    received += 1
                    if isinstance(outcome, BaseException):
                        raise outcome
                    if not ready:
                        oldest = time.monotonic()
                    ready.append((work, outcome))
                last = received == len(works)
                if ready and (
                    last or len(ready) >= RECORD_BATCH or time.monotonic() - oldest >= RECORD_EVERY
                ):
                    yield ready
                    ready = []
        finally:
            turns.stop()  # on an error, the calls not started are not made


def _write(batch: list[tuple[Work, Outcome]], now: datetime, result: DispatchResult) -> None:
    """Record a batch of outcomes in one transaction, in a few statements."""
    with transaction.atomic():
        # row locks in id order first, as the propagation takes them: the two cannot deadlock
        list(
            Work.objects.select_for_update()
            .filter(pk__in=[w.pk for w, _ in batch])
            .order_by("pk")
            .values_list("pk")
        )
        for work, outcome in batch:
            result.actions[work.pk] = outcome.action
        _record(batch, now, result)
        written = [w.pk for w, o in batch if o.action in ("created", "updated", "unchanged")]
        drift_events.mark_put_back(written, now)  # a drifted copy written again holds our manifest


def _record(batch: list[tuple[Work, Outcome]], now: datetime, result: DispatchResult) -> None:
    for work, outcome in batch:
        if outcome.seconds is not None:  # Karmada's metric, with the member cluster as a label
            ok = outcome.action not in ("refused", "failed")
            recording.observe(
                "work_sync_workload_duration_seconds",
                outcome.seconds,
                {"result": "success" if ok else "error", "member_cluster": work.cluster_name},
            )
    gone = [w for w, o in batch if o.action in ("deleted", "released")]
    if gone:
        Work.objects.filter(pk__in=[w.pk for w in gone], deleting=True).delete()
        result.emptied_bindings.update(w.binding_id for w in gone)
    failures: dict[tuple[str, str], list[Work]] = {}
    for work, outcome in batch:
        if outcome.action in ("refused", "failed"):
            failures.setdefault((outcome.reason, outcome.message), []).append(work)
    for (reason, message), failed in failures.items():
        Work.objects.filter(pk__in=[w.pk for w in failed]).update(
            applied=False,
            applied_hash="",
            applied_reason=reason,
            applied_message=message,
            updated_at=timezone.now(),
        )
        for work in failed:
            if (work.applied_reason, work.applied_message) != (reason, message):  # a new failure
                events.record(work, "Warning", reason, f"{work.cluster_name}: {message}")
    applied = [
        (w, o.live)
        for w, o in batch
        if o.action not in ("deleted", "released", "refused", "failed") and o.live is not None
    ]
    if applied:
        written = applied_writes.record_applied(applied, now)
        result.requeue.update(w.pk for w, _ in applied if w.pk not in written)


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
            applied = objects.apply_object(
                conn, work.manifest, merge=retain_member_fields, exists=_written_before(work)
            )
            outcome = Outcome(applied.action, applied.object)
        except KubeError as exc:
            outcome = Outcome("failed", reason="AppliedFailed", message=exc.message)
    with transaction.atomic():
        _record([(work, outcome)], now, DispatchResult())
    return outcome
