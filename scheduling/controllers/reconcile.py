"""The periodic safety net (detection, schedule triggers, works, member copies) and the failover pass."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from clusters.inventory_watch import watched_cluster_names
from clusters.k8s import KubeError
from clusters.models import Cluster
from scheduling.controllers import (
    detector,
    failover,
    marking,
    propagation,
    reconcile_digests,
    rescheduling,
)
from scheduling.controllers.planner_inputs import load_snapshots
from scheduling.controllers.scheduler import queue_order
from scheduling.karmada.triggers import EVERY_RECONCILE, binding_trigger
from scheduling.models import ResourceBinding, ResourceTemplate, Work

log = logging.getLogger(__name__)

# bindings synced together by the pass
SYNC_BATCH = 100


def lost_mark_age() -> timedelta:
    """A dirty mark, or a Work out of sync, older than this has lost its task (a dead worker, a lost
    message): queue it again."""
    return timedelta(seconds=settings.SCHEDULING_LOST_MARK_AFTER)


@dataclass
class ReconcilePlan:
    """What the pass found to do through the queues: bindings to schedule, works to apply."""

    schedule: list[int] = field(default_factory=list)
    apply: list[int] = field(default_factory=list)
    dirty: list[int] = field(default_factory=list)  # bindings the pass changed: mark and queue them
    redrive: list[int] = field(default_factory=list)  # marked long ago, their task lost: queue again
    unreachable: list[str] = field(default_factory=list)


def detect_all() -> list[int]:
    """Run the detector over every template; the ids of the bindings that exist afterwards, in queue order."""
    candidates = detector.load_candidates()
    bindings = []
    for template_id in ResourceTemplate.objects.filter(deleting_since__isnull=True).values_list(
        "pk", flat=True
    ):
        binding = detector.detect_template(template_id, candidates)
        if binding is not None:
            bindings.append(binding.pk)
    return queue_order(bindings)


def failover_pass(now: datetime | None = None) -> list[int]:
    """The time-driven controllers (taint policies, NoExecute evictions, application failover, eviction
    release, load moves), run often; the bindings they changed, to be marked dirty."""
    now = now or timezone.now()
    failover.apply_taint_policies(now)  # taint changes mark their bindings (cluster_events)
    changed = failover.run_taint_manager(now)
    changed += failover.run_application_failover(now)
    changed += failover.release_evictions(now)
    changed += rescheduling.rebalance_by_load(now)
    return changed


# the binding columns binding_trigger reads
TRIGGER_FIELDS = (
    "pk",
    "scheduler_name",
    "policy_id",
    "suspension",
    "placement",
    "applied_placement",
    "scheduler_observed_affinity_name",
    "replicas",
    "replica_requirements",
    "clusters",
    "reschedule_triggered_at",
    "last_scheduled_time",
    "template__deleting_since",
)


def reconcile(now: datetime | None = None, full: bool = False) -> ReconcilePlan:
    """One level-triggered pass; scheduling and member writes are left to the queues (see the plan).

    Detection, sync and aggregation run only for the bindings whose inputs moved since each step last
    settled them (reconcile_digests: every binding's inputs digested in SQL and compared with the digest
    stored then), and for templates without a binding; for every binding when `full` is asked or
    without PostgreSQL.
    """
    now = now or timezone.now()
    plan = ReconcilePlan()
    plan.redrive = marking.stale(now - lost_mark_age())
    moved = reconcile_digests.moved() if reconcile_digests.supported() and not full else None
    redetected = detect_moved(moved)
    plan.dirty += failover_pass(now)
    plan.schedule = schedule_triggers()
    plan.apply += sync_moved(moved, redetected, now - lost_mark_age())
    for template in ResourceTemplate.objects.filter(deleting_since__isnull=False, binding__isnull=True):
        template.delete()
    # A watcher lists the copies of the clusters it confirms every resync and judges their events: the
    # read-back is for the others (no watcher, one stopped or behind, a broken watch).
    watched = watched_cluster_names(now)
    for cluster in Cluster.objects.exclude(name__in=watched):
        try:
            plan.apply += propagation.sync_cluster_objects(cluster, now)
        except KubeError as exc:
            plan.unreachable.append(cluster.name)
            log.info("reconcile: %s skipped: %s", cluster.name, exc)
    aggregate_moved(moved, now)
    plan.schedule = queue_order(plan.schedule)
    plan.apply = sorted(set(plan.apply))
    return plan


def detect_moved(moved: reconcile_digests.Moved | None) -> set[int]:
    """Detect the templates without a binding and those whose binding's detection inputs moved (every
    template without digests); the bindings the detector changed or created."""
    if moved is None:
        return set(detect_all())
    candidates = detector.load_candidates()
    live = ResourceTemplate.objects.filter(deleting_since__isnull=True)
    template_ids = set(live.filter(binding__isnull=True).values_list("pk", flat=True))
    template_ids |= set(live.filter(pk__in=list(moved.templates.values())).values_list("pk", flat=True))
    settled: dict[int, str] = {}
    changed: set[int] = set()
    for template_id in sorted(template_ids):
        binding, was_settled = detector.detect_settled(template_id, candidates)
        if binding is None:
            continue
        if was_settled and binding.pk in moved.detect:
            settled[binding.pk] = moved.detect[binding.pk]
        elif not was_settled:
            changed.add(binding.pk)
    reconcile_digests.store(reconcile_digests.DETECT, settled)
    return changed


def schedule_triggers() -> list[int]:
    """The bindings a schedule trigger fires for, read SYNC_BATCH rows at a time."""
    # "Every reconcile" (Duplicated, non-workloads) fires on the events that mark the binding, not here.
    deleting = {s.name for s in load_snapshots() if s.deleting}
    rows = ResourceBinding.objects.select_related("template").only(*TRIGGER_FIELDS).order_by("pk")
    found = []
    for binding in rows.iterator(chunk_size=SYNC_BATCH * 5):
        if binding.template.deleting_since is None:
            trigger = binding_trigger(binding, deleting)
            if trigger is not None and trigger != EVERY_RECONCILE:
                found.append(binding.pk)
    return found


def pending_works(written_before: datetime) -> list[int]:
    """Every Work a member call must act on (to remove, or out of sync and not suspended, as a sync
    returns them) that was last written before `written_before`: one written since has its apply on its
    way (a seeding's Works, queued by the sync that wrote them), and queueing it again would only make
    the member call twice; one whose apply task was lost is older by then."""
    rows = Work.objects.filter(propagation.PENDING)
    rows = rows.filter(updated_at__lt=written_before).order_by("pk")
    return list(rows.values_list("pk", flat=True).iterator(chunk_size=2000))


def sync_moved(
    moved: reconcile_digests.Moved | None, redetected: set[int], written_before: datetime
) -> list[int]:
    """Sync the bindings whose sync inputs moved (and those detection just changed), in batches as the
    sync task does: inputs read once a batch (3.5x less CPU at 1,250 bindings); the Works to act on."""
    if moved is None:
        ids = list(ResourceBinding.objects.order_by("pk").values_list("pk", flat=True))
    else:
        ids = sorted(set(moved.sync) | redetected)
    pending: list[int] = []
    for start in range(0, len(ids), SYNC_BATCH):
        # each synced binding is recorded settled by the sync (inputs as it read them, outputs as it
        # left them), with the shared digest this pass read
        synced = propagation.sync_bindings(ids[start : start + SYNC_BATCH], moved.shared if moved else None)
        pending += [work_id for works in synced.pending.values() for work_id in works]
    if moved is not None:  # the bindings left out have theirs too
        pending += pending_works(written_before)
    return pending


def aggregate_moved(moved: reconcile_digests.Moved | None, now: datetime) -> None:
    """aggregate_status for the bindings whose Works, spec or stored status moved (every binding without
    digests), as aggregate_bindings does them: in batches, their Works as aggregate_status reads them
    (never their manifests), each recorded settled with its status as written."""
    if moved is None:
        ids = list(ResourceBinding.objects.order_by("pk").values_list("pk", flat=True))
    else:
        ids = sorted(moved.aggregate)
    propagation.aggregate_bindings(ids, now)
