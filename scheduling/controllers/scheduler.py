"""schedule_binding: build the planner's inputs from the database, call it, write the result as §2.8 says."""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from core import audit
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
from scheduling.karmada.triggers import EVERY_RECONCILE, REPLICAS_CHANGED, binding_trigger
from scheduling.models import RESOURCE_BINDING, FederatedResourceQuota, ResourceBinding
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
        return [
            pk
            for pk in queue_order(binding_ids)
            if pk in bindings and _schedule(pk, now, "", bindings[pk], shared)[1]
        ]


# What an unlocked plan never reads, among them the largest columns of a binding, its template and its policy
# (a status entry per member cluster, the manifest, the policy's spec once per binding); the locked write
# reads its row in full.
NOT_PLANNED = ("aggregated_status", "required_by", "template__manifest", "template__status", "policy__spec")


def pass_rows(binding_ids: list[int]) -> list[ResourceBinding]:
    """The bindings of a pass, with their templates and policies, as the unlocked plans read them."""
    rows = ResourceBinding.objects.select_related("template", "policy").defer(*NOT_PLANNED)
    return list(rows.filter(pk__in=binding_ids))


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

    @classmethod
    def load(cls, bindings: list[ResourceBinding]) -> Shared:
        namespaces = {b.namespace for b in bindings if b.kind == RESOURCE_BINDING and b.namespace}
        with_quotas = FederatedResourceQuota.objects.filter(namespace__in=namespaces)
        return cls(load_snapshots(), set(with_quotas.values_list("namespace", flat=True)))

    def quotas(self, binding: ResourceBinding) -> list[QuotaSnapshot]:
        # usage is read per binding: a binding scheduled earlier in the pass changes the next one's room
        return binding_quotas(binding) if binding.namespace in self.quota_namespaces else []

    def unlocked_plan(self, binding: ResourceBinding) -> Plan | None:
        """The binding's plan over the pass's clusters (None: its spec does not parse), shared with every
        binding of the pass whose plan cannot differ from it (planner_inputs.plan_key)."""
        try:
            peers = binding_peers(binding)
            quotas = self.quotas(binding)
            key = plan_key(binding) if not peers and not quotas else None
            if key is not None and key in self.plans:
                return self.plans[key]
            placement, inputs = planner_placement(binding), planner_binding(binding)
            result = plan(self.snapshots, placement, inputs, peers=peers, quotas=quotas)
        except InputError:
            return None
        if key is not None:
            self.plans[key] = result
        return result


def schedule_dirty(binding_ids: list[int], now: datetime | None = None) -> list[int]:
    """One pass over dirty bindings: take their marks in one statement, then schedule each taken one (in
    queue order) with the clusters read once; the ids taken (each needs its sync). A mark another pass
    took already means that pass saw the event."""
    taken = marking.take_many(binding_ids)
    if not taken:
        return []
    now = now or timezone.now()
    bindings = sorted(pass_rows(taken), key=lambda b: (-(b.schedule_priority or 0), b.pk))
    shared = Shared.load(bindings)
    with recording.together():  # one metrics write for the pass, not two per binding
        for binding in bindings:
            _schedule(binding.pk, now, "", binding, shared)
    return taken


def _schedule(
    binding_id: int,
    now: datetime,
    force: str,
    binding: ResourceBinding | None = None,
    shared: Shared | None = None,
) -> tuple[Plan | None, bool]:
    """The plan, and whether the binding was written.

    Bindings Karmada re-schedules on every reconcile (Duplicated, non-workloads) are planned without a
    lock first; when the plan changes nothing, nothing is written, as Karmada patches only differences.
    `binding` and `shared` are what a pass over many bindings read already; a single binding's locked
    write reads the clusters again under its lock.
    """
    given = shared
    if not force:
        if binding is None:
            binding = (
                ResourceBinding.objects.select_related("template", "policy").filter(pk=binding_id).first()
            )
        if binding is None:
            return None, False
        if shared is None:
            shared = Shared.load([binding])
        snapshots = shared.snapshots
        trigger = binding_trigger(binding, {s.name for s in snapshots if s.deleting})
        if trigger is None:
            return None, False
        # A binding never scheduled has no Scheduled condition, so no plan can leave it unchanged: the
        # unlocked plan would only be made again under the lock (a new workload's path).
        if trigger == EVERY_RECONCILE and binding.condition("Scheduled") is not None:
            started = time.monotonic()
            result = shared.unlocked_plan(binding)
            if result is not None and unchanged(binding, result):
                _count_attempt(trigger, result.ok, started)
                return result, False
    result = _schedule_locked(binding_id, now, force, given)
    return result, result is not None


@transaction.atomic
def _schedule_locked(binding_id: int, now: datetime, force: str, shared: Shared | None = None) -> Plan | None:
    binding = (
        ResourceBinding.objects.select_for_update(of=("self",))
        .select_related("template", "policy")
        .filter(pk=binding_id)
        .first()
    )
    if binding is None:
        return None
    snapshots = shared.snapshots if shared else load_snapshots()
    deleting = {s.name for s in snapshots if s.deleting}
    trigger = force or binding_trigger(binding, deleting)
    if trigger is None:
        return None
    started = time.monotonic()
    try:
        placement = planner_placement(binding)
        inputs = planner_binding(binding)
    except InputError as exc:
        set_condition(binding, "Scheduled", False, "SchedulerError", f"{exc.path}: {exc.message}", now)
        binding.save(update_fields=["conditions", "updated_at"])
        _count_attempt(trigger, False, started)
        return None
    quotas = shared.quotas(binding) if shared else binding_quotas(binding)
    result = plan(snapshots, placement, inputs, peers=binding_peers(binding), quotas=quotas)
    before = binding.target_replicas()
    previous_error = (binding.condition("Scheduled") or {}).get("reason")
    clusters = [t.as_dict() for t in result.clusters]
    if result.error is None or result.error.reason == NO_CLUSTER_FIT:
        binding.clusters = clusters
        binding.applied_placement = copy.deepcopy(binding.placement)
        binding.last_scheduled_time = now
        binding.scheduler_observed_generation = binding.generation
        binding.scheduler_observed_affinity_name = result.observed_affinity
    if result.error is None:
        set_condition(binding, "Scheduled", True, "Success", "Binding has been scheduled successfully.", now)
    else:
        set_condition(binding, "Scheduled", False, result.error.reason, result.error.message, now)
    binding.save()
    after = binding.target_replicas()
    changed = before != after or previous_error != (binding.condition("Scheduled") or {}).get("reason")
    if changed or trigger != "NotWorkloadOrDuplicated":
        _record(binding, result, trigger, before, after)
    _count_attempt(trigger, result.ok, started)
    return result


def _count_attempt(trigger: str, ok: bool, started: float) -> None:
    """Karmada's scheduler metrics: one attempt and its end-to-end duration, by result and schedule type."""
    labels = {
        "result": "scheduled" if ok else "error",
        "schedule_type": "ScaleSchedule" if trigger == REPLICAS_CHANGED else "ReconcileSchedule",
    }
    recording.count("karmada_scheduler_schedule_attempts_total", labels)
    recording.observe("karmada_scheduler_e2e_scheduling_duration_seconds", time.monotonic() - started, labels)


def _record(
    binding: ResourceBinding, result: Plan, trigger: str, before: dict[str, int], after: dict[str, int]
) -> None:
    data: dict[str, Any] = {
        "trigger": trigger,
        "before": before,
        "after": after,
        "plan": result.as_dict(),
        "sentences": describe(result.explanation),
    }
    if result.ok:
        events.record(binding, "Normal", "ScheduleBindingSucceed", _summary(result), data)
    else:
        events.record(binding, "Warning", "ScheduleBindingFailed", _summary(result), data)
    if before != after:
        audit.record(
            None,
            "schedule",
            binding.template.kind,
            binding.template.name,
            namespace=binding.namespace,
            summary=f"{trigger}: {_summary(result)}",
            before=before,
            after=after,
        )
