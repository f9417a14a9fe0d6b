"""schedule_binding: build the planner's inputs from the database, call it, write the result as §2.8 says."""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any

from django.db import connection, transaction
from django.db.models import Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from core import audit
from core.models import AuditEntry
from metrics import recording
from scheduling import events
from scheduling.controllers import marking
from scheduling.controllers.planner_inputs import (
    binding_peers,
    binding_quotas,
    load_snapshots,
    plan_key,
    planner_binding,
    planner_placement,
)
from scheduling.controllers.values_sql import insert_rows, update_rows
from scheduling.karmada.triggers import EVERY_RECONCILE, REPLICAS_CHANGED, binding_trigger
from scheduling.models import COUNT_COLUMNS, RESOURCE_BINDING, Event, FederatedResourceQuota, ResourceBinding
from scheduling.planner import (
    NO_CLUSTER_FIT,
    ClusterSnapshot,
    InputError,
    Plan,
    QuotaSnapshot,
    describe,
    plan,
)


def set_condition(
    binding: ResourceBinding, type_: str, status: bool, reason: str, message: str, now: datetime
) -> None:
    """Replace one status condition, keeping lastTransitionTime when the status did not change."""
    text = "True" if status else "False"
    old = binding.condition(type_)
    since = (
        old["lastTransitionTime"] if old and old.get("status") == text else now.strftime("%Y-%m-%dT%H:%M:%SZ")
    )
    condition = {
        "type": type_,
        "status": text,
        "reason": reason,
        "message": message,
        "lastTransitionTime": since,
    }
    binding.conditions = [c for c in binding.conditions if c.get("type") != type_] + [condition]


def _summary(result: Plan) -> str:
    if result.error is not None:
        return result.error.message
    if not result.clusters:
        return "scheduled to no cluster"
    return "scheduled to " + ", ".join(f"{t.name}: {t.replicas}" for t in result.clusters)


def unchanged(binding: ResourceBinding, result: Plan) -> bool:
    """Writing this plan would change nothing: the same clusters, observed term and Scheduled condition."""
    condition = binding.condition("Scheduled") or {}
    if result.error is None:
        wanted = ("True", "Success")
    else:
        wanted = ("False", result.error.reason)
        if condition.get("message") != result.error.message:
            return False
    same_clusters = [t.as_dict() for t in result.clusters] == binding.clusters
    same_term = result.observed_affinity == binding.scheduler_observed_affinity_name
    return same_clusters and same_term and (condition.get("status"), condition.get("reason")) == wanted


def queue_order(binding_ids: list[int]) -> list[int]:
    """Binding ids in the order the scheduling queue takes them: highest schedulePriority first, then the
    one created first (Karmada's active queue: priority, then enqueue time)."""
    if len(binding_ids) < 2:
        return list(binding_ids)
    rows = (
        ResourceBinding.objects.filter(pk__in=binding_ids)
        .annotate(queue_priority=Coalesce("schedule_priority", Value(0)))
        .order_by("-queue_priority", "pk")
        .values_list("pk", flat=True)
    )
    ordered = list(rows)
    known = set(ordered)
    return ordered + [pk for pk in binding_ids if pk not in known]


def schedule_binding(binding_id: int, now: datetime | None = None, force: str = "") -> Plan | None:
    """Schedule one binding if a Karmada trigger holds (or `force` names one); the plan, or None."""
    return _schedule(binding_id, now or timezone.now(), force)[0]


def schedule_bindings(binding_ids: list[int], now: datetime | None = None) -> list[int]:
    """Schedule each binding whose trigger holds; the ids of those whose binding was written."""
    now = now or timezone.now()
    bindings = {b.pk: b for b in pass_rows(binding_ids)}
    shared = Shared.load(list(bindings.values()))
    with recording.together():
        return schedule_pass([bindings[pk] for pk in queue_order(binding_ids) if pk in bindings], now, shared)


# What an unlocked plan never reads, among them the largest columns of a binding, its template and its policy
# (a status entry per member cluster, the manifest, the policy's spec once per binding); the locked write
# reads its row in full.
NOT_PLANNED = ("aggregated_status", "required_by", "template__manifest", "template__status", "policy__spec")


def pass_rows(binding_ids: list[int]) -> list[ResourceBinding]:
    """The bindings of a pass, with their templates and policies, as the unlocked plans read them; on
    PostgreSQL each with its row version (`xmin` and `ctid`, moved by every write), so the locked write
    re-reads only the rows written since."""
    rows = ResourceBinding.objects.select_related("template", "policy").defer(*NOT_PLANNED)
    if connection.vendor == "postgresql":
        rows = rows.extra(select={"row_version": _ROW_VERSION.format(table=_TABLE)})  # noqa: S610 - fixed
    return list(rows.filter(pk__in=binding_ids))


_TABLE = ResourceBinding._meta.db_table
# A row version's identity: the writing transaction and the tuple's place (a row written twice in one
# transaction keeps its xmin but moves)
_ROW_VERSION = "{table}.xmin::text || ':' || {table}.ctid::text"


def _locked_rows(binding_ids: list[int], read: dict[int, ResourceBinding]) -> dict[int, ResourceBinding]:
    """The bindings locked (in id order, so two passes never wait on each other in a cycle), as the pass
    read them when their row versions show no write since, read again under the lock otherwise."""
    locked = ResourceBinding.objects.select_for_update(of=("self",)).select_related("template", "policy")
    locked = locked.defer(*NOT_PLANNED).order_by("pk")
    if not all(hasattr(read.get(pk), "row_version") for pk in binding_ids):  # only PostgreSQL's rows have one
        return {b.pk: b for b in locked.filter(pk__in=binding_ids)}
    with connection.cursor() as cursor:
        # Only the model's own table name is interpolated; the ids are a parameter.
        cursor.execute(
            f"SELECT id, {_ROW_VERSION.format(table=_TABLE)} FROM {_TABLE} "  # noqa: S608
            "WHERE id = ANY(%s) ORDER BY id FOR UPDATE",
            [binding_ids],
        )
        versions = dict(cursor.fetchall())
    kept = {pk: read[pk] for pk in binding_ids if versions.get(pk) == read[pk].row_version}
    stale = [pk for pk in versions if pk not in kept]
    return kept | ({b.pk: b for b in locked.filter(pk__in=stale)} if stale else {})


@dataclass
class Shared:
    """What a pass over many bindings reads once instead of per binding: the clusters as the planner sees
    them, and which namespaces hold a FederatedResourceQuota. The marks are taken before these are read,
    so a cluster that changes later marks its bindings again and another pass sees the change.

    It also keeps the pass's unlocked plans by what they depend on: bindings with the same placement and
    the same planner inputs over the same clusters (a policy's Duplicated workloads) are planned once."""

    snapshots: list[ClusterSnapshot]
    quota_namespaces: set[str]
    plans: dict[tuple[Any, ...], Plan] = field(default_factory=dict)

    @cached_property
    def deleting(self) -> set[str]:
        """The clusters being removed, as the triggers read them."""
        return {s.name for s in self.snapshots if s.deleting}

    @classmethod
    def load(cls, bindings: list[ResourceBinding]) -> Shared:
        namespaces = {b.namespace for b in bindings if b.kind == RESOURCE_BINDING and b.namespace}
        with_quotas = FederatedResourceQuota.objects.filter(namespace__in=namespaces)
        return cls(load_snapshots(), set(with_quotas.values_list("namespace", flat=True)))

    def quotas(self, binding: ResourceBinding) -> list[QuotaSnapshot]:
        # usage is read per binding: a binding scheduled earlier in the pass changes the next one's room
        return binding_quotas(binding) if binding.namespace in self.quota_namespaces else []

    def plan(self, binding: ResourceBinding) -> Plan:
        """The binding's plan over the pass's clusters, shared with every binding of the pass whose plan
        cannot differ from it (planner_inputs.plan_key); InputError when its spec does not parse."""
        peers = binding_peers(binding)
        quotas = self.quotas(binding)
        key = plan_key(binding) if not peers and not quotas else None
        if key is not None and key in self.plans:
            return self.plans[key]
        placement, inputs = planner_placement(binding), planner_binding(binding)
        result = plan(self.snapshots, placement, inputs, peers=peers, quotas=quotas)
        if key is not None:
            self.plans[key] = result
        return result

    def reads_others(self, binding: ResourceBinding) -> bool:
        """Its plan reads other bindings: workload affinity peers, or its namespace's quota usage."""
        return binding.kind == RESOURCE_BINDING and bool(
            (binding.namespace and (binding.affinity_group or binding.anti_affinity_group))
            or binding.namespace in self.quota_namespaces
        )

    def unlocked_plan(self, binding: ResourceBinding) -> Plan | None:
        """plan(), None when the binding's spec does not parse."""
        try:
            return self.plan(binding)
        except InputError:
            return None


@dataclass
class DirtyPass:
    """What one pass over dirty bindings did: the marks it took (each binding needs its sync) and the
    bindings among them it wrote (a new plan: their clusters, or their order, may have moved)."""

    taken: list[int]
    written: list[int]


def dirty_pass(binding_ids: list[int], now: datetime | None = None) -> DirtyPass:
    """One pass over dirty bindings: take their marks in one statement, then schedule each taken one (in
    queue order) with the clusters read once. A mark another pass took already means that pass saw the
    event."""
    taken = marking.take_many(binding_ids)
    if not taken:
        return DirtyPass([], [])
    now = now or timezone.now()
    bindings = sorted(pass_rows(taken), key=lambda b: (-(b.schedule_priority or 0), b.pk))
    shared = Shared.load(bindings)
    with recording.together():  # one metrics write for the pass, not two per binding
        written = schedule_pass(bindings, now, shared)
    return DirtyPass(taken, sorted(written))


def schedule_pass(bindings: list[ResourceBinding], now: datetime, shared: Shared) -> list[int]:
    """Schedule each of a pass's bindings (in the order given) whose trigger holds; the ids written.

    Each is planned without a lock first; those whose plan changes something are then written together:
    locked in one statement (in id order, so two passes never wait on each other in a cycle), planned
    again under the lock from the pass's shared plans, and written in one statement. A re-plan that
    changes every binding of a fleet (a cluster's available replicas reorder every Duplicated
    binding's clusters) costs a pass a few statements, not three round trips and a full-row write a
    binding."""
    changing = [binding.pk for binding in bindings if _settled(binding, shared)[0]]
    read = {binding.pk: binding for binding in bindings}
    return list(_write_plans(changing, read, now, shared)) if changing else []


def _settled(binding: ResourceBinding, shared: Shared) -> tuple[bool, Plan | None]:
    """Whether the binding needs its locked write: not when no trigger holds, nor when an every-reconcile
    re-plan (made without a lock, and counted here) would change nothing, the plan then given too.

    A binding never scheduled has no Scheduled condition, so no plan can leave it unchanged: the
    unlocked plan would only be made again under the lock (a new workload's path)."""
    trigger = binding_trigger(binding, shared.deleting)
    if trigger is None:
        return False, None
    if trigger == EVERY_RECONCILE and binding.condition("Scheduled") is not None:
        started = time.monotonic()
        result = shared.unlocked_plan(binding)
        if result is not None and unchanged(binding, result):
            _count_attempt(trigger, result.ok, started)
            return False, result
    return True, None


# What a scheduled binding's write sets (the stored counts too when its targets change)
PLAN_FIELDS = (
    "clusters",
    "applied_placement",
    "last_scheduled_time",
    "scheduler_observed_generation",
    "scheduler_observed_affinity_name",
    "conditions",
    "updated_at",
)


@transaction.atomic
def _write_plans(
    binding_ids: list[int],
    read: dict[int, ResourceBinding],
    now: datetime,
    shared: Shared | None = None,
    force: str = "",
) -> dict[int, Plan | None]:
    """The locked half of scheduling, for the bindings whose unlocked plan changed something (or whose
    schedule `force` names a trigger for): every row locked at once, each trigger and plan taken again
    under the lock (in the order given), the rows written together; each id written with its plan (None:
    its spec does not parse, the SchedulerError written). A binding whose plan reads other bindings (its
    workload affinity peers, its namespace's quota usage) is planned after what came before it is
    written. Without `shared` (one binding's schedule) the clusters are read under the lock."""
    rows = _locked_rows(binding_ids, read)
    if shared is None:
        shared = Shared.load(list(rows.values()))
    deleting = shared.deleting
    written: dict[int, Plan | None] = {}
    pending = _PlanWrites(now)
    for pk in binding_ids:
        binding = rows.get(pk)
        trigger = (force or binding_trigger(binding, deleting)) if binding is not None else None
        if binding is None or trigger is None:
            continue
        if shared.reads_others(binding):
            pending.flush()
        started = time.monotonic()
        try:
            result = shared.plan(binding)
        except InputError as exc:
            set_condition(binding, "Scheduled", False, "SchedulerError", f"{exc.path}: {exc.message}", now)
            pending.add(binding, counted=False)
            written[pk] = None
            _count_attempt(trigger, False, started)
            continue
        written[pk] = result
        before = binding.target_replicas()
        previous_error = (binding.condition("Scheduled") or {}).get("reason")
        _set_plan(binding, result, now)
        after = binding.target_replicas()
        pending.add(binding, counted=before != after)
        changed = before != after or previous_error != (binding.condition("Scheduled") or {}).get("reason")
        if changed or trigger != "NotWorkloadOrDuplicated":
            pending.record(binding, result, trigger, before, after)
        _count_attempt(trigger, result.ok, started)
    pending.flush()
    return written


@dataclass
class _PlanWrites:
    """Planned bindings waiting for their write: the plan's columns, the stored counts of those whose
    targets changed (their member status read for it then, in one query), and their events and audit
    entries (one insert each for the pass: two per binding were most of a seeding's schedule time)."""

    now: datetime
    planned: list[ResourceBinding] = field(default_factory=list)
    counted: list[ResourceBinding] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    entries: list[AuditEntry] = field(default_factory=list)

    def record(
        self,
        binding: ResourceBinding,
        result: Plan,
        trigger: str,
        before: dict[str, int],
        after: dict[str, int],
    ) -> None:
        """The binding's ScheduleBindingSucceed (or Failed) event, and an audit entry when its placement
        moved."""
        data: dict[str, Any] = {
            "trigger": trigger,
            "before": before,
            "after": after,
            "plan": result.as_dict(),
            "sentences": describe(result.explanation),
        }
        type_, reason = (
            ("Normal", "ScheduleBindingSucceed") if result.ok else ("Warning", "ScheduleBindingFailed")
        )
        self.events.append(events.unsaved(binding, type_, reason, _summary(result), data))
        if before != after:
            self.entries.append(
                audit.unsaved(
                    None,
                    "schedule",
                    binding.template.kind,
                    binding.template.name,
                    namespace=binding.namespace,
                    summary=f"{trigger}: {_summary(result)}",
                    before=before,
                    after=after,
                )
            )

    def add(self, binding: ResourceBinding, counted: bool) -> None:
        binding.updated_at = self.now
        self.planned.append(binding)
        if counted:
            self.counted.append(binding)

    def flush(self) -> None:
        update_rows(ResourceBinding, self.planned, PLAN_FIELDS)
        if self.counted:
            ids = [binding.pk for binding in self.counted]
            statuses = dict(ResourceBinding.objects.filter(pk__in=ids).values_list("pk", "aggregated_status"))
            for binding in self.counted:
                binding.aggregated_status = statuses.get(binding.pk)
                binding.refresh_counts()
            update_rows(ResourceBinding, self.counted, COUNT_COLUMNS)
        insert_rows(Event, self.events, key=None)
        insert_rows(AuditEntry, self.entries, key=None)
        self.planned, self.counted, self.events, self.entries = [], [], [], []


def _set_plan(binding: ResourceBinding, result: Plan, now: datetime) -> None:
    """A plan onto its binding as Karmada's scheduler patches it (spec.clusters and the observed fields
    kept when the plan failed for another reason than no cluster fitting), with its Scheduled condition."""
    if result.error is None or result.error.reason == NO_CLUSTER_FIT:
        binding.clusters = [t.as_dict() for t in result.clusters]
        binding.applied_placement = copy.deepcopy(binding.placement)
        binding.last_scheduled_time = now
        binding.scheduler_observed_generation = binding.generation
        binding.scheduler_observed_affinity_name = result.observed_affinity
    if result.error is None:
        set_condition(binding, "Scheduled", True, "Success", "Binding has been scheduled successfully.", now)
    else:
        set_condition(binding, "Scheduled", False, result.error.reason, result.error.message, now)


def _schedule(binding_id: int, now: datetime, force: str) -> tuple[Plan | None, bool]:
    """One binding: the plan, and whether the binding was written.

    Bindings Karmada re-schedules on every reconcile (Duplicated, non-workloads) are planned without a
    lock first; when the plan changes nothing, nothing is written, as Karmada patches only differences.
    The locked write reads the clusters again under its lock.
    """
    if not force:
        binding = ResourceBinding.objects.select_related("template", "policy").filter(pk=binding_id).first()
        if binding is None:
            return None, False
        needs_write, settled = _settled(binding, Shared.load([binding]))
        if not needs_write:
            return settled, False
    result = _write_plans([binding_id], {}, now, force=force).get(binding_id)
    return result, result is not None


def _count_attempt(trigger: str, ok: bool, started: float) -> None:
    """Karmada's scheduler metrics: one attempt and its end-to-end duration, by result and schedule type."""
    labels = {
        "result": "scheduled" if ok else "error",
        "schedule_type": "ScaleSchedule" if trigger == REPLICAS_CHANGED else "ReconcileSchedule",
    }
    recording.count("karmada_scheduler_schedule_attempts_total", labels)
    recording.observe("karmada_scheduler_e2e_scheduling_duration_seconds", time.monotonic() - started, labels)
