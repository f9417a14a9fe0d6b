"""Celery tasks: take ids, call one service, enqueue the next step after commit. All idempotent.

Bulk work (the re-plan of every binding after a policy change, the periodic safety net) runs on the
bulk lanes of the queues (karmada_ui.celery.BULK_LANES), its tasks called with `bulk=True` so that each
step queues the next on the bulk lane too; event-driven work stays ahead of it on the plain queues.
"""

from __future__ import annotations

from celery import shared_task
from django.db import transaction

from core import priorities
from scheduling.controllers import (
    detector,
    detector_bulk,
    dispatch,
    marking,
    propagation,
    rebalancing,
    reconcile_digests,
    rollouts,
    scheduler,
)
from scheduling.controllers import reconcile as reconciling

# Works are applied in chunks: one task, many member calls in parallel.
CHUNK = 100
# An event's few Works (one binding's across its clusters, a repair) are spread over this many tasks
# instead, so that the worker processes share its member calls (a new workload's 100 Works went to one
# process, whose calls took the time of a whole chunk); bulk and larger applies keep whole chunks.
SPREAD = 4
# Dirty bindings are scheduled in batches: one task reads the clusters once for all of them.
DIRTY_BATCH = 100
# A schedule batch is propagated in tasks of this many bindings: the clusters and override policies are
# read once per task, and the first Works are applied while the next bindings are still planned (by
# other worker processes too).
SYNC_BATCH = 10
# Bulk tasks are smaller: event-driven work waits for a worker process to end the task it runs, so a
# bulk task's length is that wait (a sync of 10 bindings across 100 clusters held a process for
# seconds while a re-plan of every binding was under way).
BULK_DIRTY_BATCH = 25
# An event's batch starts small, then goes on in full tasks: the first member writes begin while the
# rest is still planned and rendered (a seeding's first 100 Works waited on a schedule of 100 bindings,
# then on four renders of 1,000 Works each).
HEAD_DIRTY_BATCH = SYNC_BATCH
HEAD_SYNC_BATCH = 1
# An event marking more bindings than this at once is worked as bulk (see mark_bindings).
FANOUT = DIRTY_BATCH
BULK_SYNC_BATCH = 2
ONCE = {"acks_late": True, "reject_on_worker_lost": True, "soft_time_limit": 300, "time_limit": 330}


def after_commit(task, *args, bulk: bool = False, priority: int | None = None) -> None:
    """Enqueue a task once the current transaction commits (at once outside one); bulk work on the
    bulk lane of the task's queue, the task told so (what it queues goes there too). `priority` as in
    core.priorities (0 first; none: the lane's own)."""
    options = {} if priority is None else {"priority": priority}
    kwargs = {"bulk": True} if bulk else {}  # routed by karmada_ui.celery.route_task
    transaction.on_commit(lambda: task.apply_async(args, kwargs, **options))


@shared_task(name="scheduling.tasks.detect_template", **ONCE)
def detect_template(template_id: int) -> None:
    binding = detector.detect_template(template_id)
    if binding is not None:
        after_commit(schedule_binding, binding.pk)


@shared_task(name="scheduling.tasks.detect_templates", **ONCE)
def detect_templates(template_ids: list[int]) -> None:
    """detect_template for the templates of one apply, the policies read once; their bindings are then
    scheduled and propagated in batches."""
    found = detector_bulk.detect_many(template_ids, detector.load_candidates())
    queue_detected([binding.pk for binding in found if binding is not None])


def batches(ids: list[int], size: int, head: int | None = None) -> list[list[int]]:
    """`ids` in slices of `size`, the first of `head` when given."""
    first = head or size
    return (
        [ids[:first], *(ids[start : start + size] for start in range(first, len(ids), size))] if ids else []
    )


def queue_detected(binding_ids: list[int], bulk: bool = False) -> None:
    size, head = (BULK_DIRTY_BATCH, None) if bulk else (DIRTY_BATCH, HEAD_DIRTY_BATCH)
    for part in batches(binding_ids, size, head):
        after_commit(schedule_detected, part, bulk=bulk)


@shared_task(name="scheduling.tasks.schedule_detected", **ONCE)
def schedule_detected(binding_ids: list[int], bulk: bool = False) -> None:
    """schedule_binding for a batch of detected bindings (the clusters read once), then their sync
    whether or not the placement changed: a new template revision changes the Works alone."""
    written = scheduler.schedule_bindings(binding_ids)
    queue_sync(binding_ids, bulk, replanned=written)


@shared_task(name="scheduling.tasks.detect_all", **ONCE)
def detect_all() -> None:
    """The detector over every template (a policy changed); every binding re-planned, in bulk."""
    queue_detected(reconciling.detect_all(), bulk=True)


def mark_bindings(binding_ids) -> list[int]:
    """Mark bindings dirty and queue one pass for each that was not queued already (the dedupe).

    An event that marks more than one pass's worth (a cluster's readiness or taints changing under a
    fleet of Duplicated workloads marks every binding) is a re-plan of the fleet: its passes go on the
    bulk lane, so that a workload applied meanwhile is not scheduled behind all of them (a cluster
    flapping NotReady under 1,000 bindings queued ten 100-binding passes and their hundred syncs ahead
    of a new workload: 26 s before its schedule began, 10 s more before its Works were written)."""
    fresh = marking.mark(binding_ids)
    queue_dirty(fresh, bulk=len(fresh) > FANOUT)
    return fresh


def queue_sync(binding_ids: list[int], bulk: bool = False, replanned: list[int] | None = None) -> None:
    """Queue the propagation of bindings in tasks of SYNC_BATCH after a first of HEAD_SYNC_BATCH (in bulk,
    all of BULK_SYNC_BATCH). `replanned`: those a schedule pass has just written, when it was one (see
    sync_bindings)."""
    size, head = (BULK_SYNC_BATCH, None) if bulk else (SYNC_BATCH, HEAD_SYNC_BATCH)
    # renders wait behind the member writes of those already rendered (core.priorities)
    priority = priorities.BULK_SYNC if bulk else priorities.SYNC
    written = None if replanned is None else set(replanned)
    for part in batches(binding_ids, size, head):
        args = (part,) if written is None else (part, sorted(written.intersection(part)))
        after_commit(sync_bindings, *args, bulk=bulk, priority=priority)


def queue_dirty(binding_ids: list[int], bulk: bool = False) -> None:
    for part in batches(binding_ids, BULK_DIRTY_BATCH if bulk else DIRTY_BATCH):
        after_commit(schedule_dirty_batch, part, bulk=bulk)


@shared_task(name="scheduling.tasks.schedule_dirty_batch", **ONCE)
def schedule_dirty_batch(binding_ids: list[int], bulk: bool = False) -> None:
    """One pass over dirty bindings: schedule each whose trigger holds, then propagate and aggregate it.
    A mark already taken by another pass means that pass saw this event: nothing left to do for it."""
    done = scheduler.dirty_pass(binding_ids)
    # none for those whose sync would do nothing (the check the sync makes first, made once here): those
    # it did not write, and those whose write only reordered their clusters (the sync and the aggregation
    # read them as a set, as their digests do)
    idle = propagation.idle(done.taken)
    queue_sync([pk for pk in done.taken if pk not in idle], bulk, replanned=done.written)


@shared_task(name="scheduling.tasks.schedule_dirty", **ONCE)
def schedule_dirty(binding_id: int) -> None:
    """schedule_dirty_batch for one binding (messages queued by an earlier release)."""
    schedule_dirty_batch([binding_id])


@shared_task(name="scheduling.tasks.schedule_binding", **ONCE)
def schedule_binding(binding_id: int, force: str = "") -> None:
    scheduler.schedule_binding(binding_id, force=force)
    after_commit(sync_binding, binding_id)


def enqueue_works(work_ids: list[int], bulk: bool = False) -> None:
    """Queue applies in chunks (a binding's Works across its clusters go together: one task, calls in
    parallel, a bounded share of them per cluster); an event's few Works in SPREAD smaller ones."""
    size = CHUNK if bulk or len(work_ids) > CHUNK else max(1, -(-len(work_ids) // SPREAD))
    for start in range(0, len(work_ids), size):
        after_commit(apply_works, work_ids[start : start + size], bulk=bulk)


@shared_task(name="scheduling.tasks.sync_binding", **ONCE)
def sync_binding(binding_id: int) -> None:
    """sync_bindings for one binding (a page's or an API's change)."""
    sync_bindings([binding_id])


@shared_task(name="scheduling.tasks.sync_bindings", **ONCE)
def sync_bindings(binding_ids: list[int], replanned: list[int] | None = None, bulk: bool = False) -> None:
    """Propagate a batch of bindings (a schedule pass's): their Works written, then applied in chunks.
    `replanned`: those of them the schedule pass that queued this wrote (None: not known, every one may
    have been); a binding it did not write kept its clusters and their order."""
    synced = propagation.sync_bindings(binding_ids)
    pending = synced.pending
    enqueue_works([work_id for binding_id in binding_ids for work_id in pending.get(binding_id, [])], bulk)
    # nothing to apply: aggregate now (e.g. a cluster left the targets); a binding whose render key held
    # changed no Work, but a re-plan may have reordered its clusters, which its status follows: those
    # whose aggregation moved since it last ran
    idle = {binding_id for binding_id, works in pending.items() if not works}
    rendered = idle - synced.unchanged
    # (the check digests every Work's status of each binding it is asked about: most of the cost of a
    # re-plan's syncs that change nothing, when asked about bindings whose plan did not move)
    reordered = idle & synced.unchanged & (set(replanned) if replanned is not None else idle)
    moved = reconcile_digests.unsettled(reconcile_digests.AGGREGATE, sorted(reordered))
    propagation.aggregate_bindings(rendered | set(moved))
    for binding_id in rollouts.active_binding_ids(binding_ids=binding_ids):
        after_commit(advance_rollout, binding_id)  # a rollout started, or its members' status moved


@shared_task(name="scheduling.tasks.apply_works", **ONCE)
def apply_works(work_ids: list[int], bulk: bool = False) -> None:
    """Member calls; failures are recorded on the Works and the periodic reconcile tries them again."""
    result = dispatch.apply_works(work_ids)
    enqueue_works(sorted(result.requeue), bulk)  # their desired state moved on while they were applied
    for binding_id in sorted(result.emptied_bindings):
        after_commit(sync_binding, binding_id)  # a deleted template finishes once its Works are gone
    for binding_id in rollouts.active_binding_ids(work_ids=work_ids):
        after_commit(advance_rollout, binding_id)  # new member status may let the next wave go


@shared_task(name="scheduling.tasks.schedule_bindings", **ONCE)
def schedule_bindings(binding_ids: list[int], bulk: bool = False) -> None:
    """The reconcile's schedule triggers in one task; bindings whose result changed are synced after."""
    changed = scheduler.schedule_bindings(binding_ids)
    queue_sync(changed, bulk)


@shared_task(name="scheduling.tasks.failover", **ONCE)
def failover() -> None:
    """The time-driven controllers, every few seconds; what they changed is queued by object."""
    mark_bindings(reconciling.failover_pass())


@shared_task(name="scheduling.tasks.reconcile", **ONCE)
def reconcile() -> None:
    """The slow level-triggered safety net: re-drive whatever a lost task, a dead worker or a missed
    watch event left behind (the watcher and the dirty-binding queue do the work as it happens), in
    bulk; what its failover pass changed is marked as the failover task's is (event-driven)."""
    plan = reconciling.reconcile()
    mark_bindings(plan.dirty)
    queue_dirty(plan.redrive, bulk=True)
    if plan.schedule:
        after_commit(schedule_bindings, plan.schedule, bulk=True)
    enqueue_works(plan.apply, bulk=True)
    after_commit(advance_rollouts)  # the pass collected every member's status


@shared_task(name="scheduling.tasks.expire_rebalancers", **ONCE)
def expire_rebalancers() -> None:
    """WorkloadRebalancers past their ttlSecondsAfterFinished go."""
    rebalancing.expire_rebalancers()


@shared_task(name="scheduling.tasks.advance_rollout", **ONCE)
def advance_rollout(binding_id: int) -> None:
    """Move one staged rollout on; clusters it releases get the new revision through their Works."""
    if rollouts.advance_rollout(binding_id):
        after_commit(sync_binding, binding_id)


@shared_task(name="scheduling.tasks.advance_rollouts", **ONCE)
def advance_rollouts() -> None:
    """The periodic pass over every rollout in progress (soak times end without any new status)."""
    for binding_id in rollouts.active_binding_ids():
        if rollouts.advance_rollout(binding_id):
            after_commit(sync_binding, binding_id)
