"""The verbs other layers call: apply YAML, objects or one reviewed policy, delete a template or a
policy, rebalance workloads, pause and resume them, step their staged rollouts. Each write leaves one
audit entry with who, what and the diff."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from core import audit
from core.errors import FieldError, field_path
from core.models import AuditEntry
from scheduling import tasks
from scheduling.controllers import dispatch, drift_events, rollouts
from scheduling.controllers.apply import Applied, ApplyError, ApplyResult, apply_documents, parse_yaml
from scheduling.controllers.values_sql import insert_rows
from scheduling.karmada import rebalancer
from scheduling.karmada.suspension import binding_suspension, normal_holds
from scheduling.models import (
    ClusterTaintPolicy,
    PropagationPolicy,
    ResourceBinding,
    ResourceTemplate,
    Rollout,
    WorkloadRebalancer,
)

ReviewedMove = tuple[str, Mapping[str, int], Mapping[str, int]]  # (workload, replicas before, after)


def apply_yaml(text: str, user: Any = None) -> ApplyResult:
    """Apply multi-document YAML in one transaction; raise ApplyError naming the bad document.

    After the commit the detector runs: over every template when a policy changed, else over the
    templates that changed.
    """
    documents = parse_yaml(text)
    if not documents:
        raise ApplyError(0, "", "the YAML holds no object to apply")
    return _apply(documents, user)


def apply_objects(documents: list[Any], user: Any = None) -> ApplyResult:
    """Apply objects already parsed (the Kubernetes API's request bodies) exactly as apply_yaml does."""
    if not documents:
        raise ApplyError(0, "", "there is no object to apply")
    return _apply(documents, user)


def delete_policy(policy: Any, user: Any = None) -> None:
    """Delete a propagation, override or taint policy, or a quota; the detector then re-claims every
    template (a workload its policy held stays where it is until another policy claims it)."""
    kind = getattr(policy, "kind", type(policy).__name__)
    with transaction.atomic():
        state = {"labels": policy.labels, "annotations": policy.annotations, "spec": policy.spec}
        policy.delete()
        audit.record(user, "delete", kind, policy.name, namespace=getattr(policy, "namespace", ""), old=state)
        if not isinstance(policy, ClusterTaintPolicy):
            tasks.after_commit(tasks.detect_all)


def apply_reviewed_policy(
    document: dict[str, Any], reviewed: Sequence[ReviewedMove], user: Any = None
) -> Applied:
    """Apply one policy as the editor's review showed it: one audit entry holds the policy's diff and
    the placement each captured workload was shown moving to (the fleet's total as the delta)."""
    changes = {
        field_path("placement", label): {"before": dict(before), "after": dict(after)}
        for label, before, after in reviewed
    }
    totals: tuple[dict[str, int], dict[str, int]] = ({}, {})
    for _label, before, after in reviewed:
        for total, replicas in zip(totals, (before, after), strict=True):
            for cluster, count in replicas.items():
                total[cluster] = total.get(cluster, 0) + count
    result = _apply([document], user, changes=changes, before=totals[0], after=totals[1])
    return result.objects[0]


def _apply(documents: list[Any], user: Any, **placement: Any) -> ApplyResult:
    with transaction.atomic():
        result = apply_documents(documents)
        entries = [
            audit.unsaved(
                user,
                f"apply:{applied.action}",
                applied.kind,
                applied.name,
                namespace=applied.namespace,
                old=applied.old,
                new=applied.new,
                **placement,
            )
            for applied in result.objects
            if applied.action in ("created", "configured")
        ]
        insert_rows(AuditEntry, entries, key=None)  # one statement for a file of many objects
        if result.policies_changed:
            tasks.after_commit(tasks.detect_all)
        elif result.template_ids:
            tasks.after_commit(tasks.detect_templates, sorted(result.template_ids))
    return result


def delete_template(template: ResourceTemplate, user: Any = None) -> None:
    """Delete a template: its works go first (released when preserved), then the binding and the row."""
    with transaction.atomic():
        ResourceTemplate.objects.filter(pk=template.pk).update(deleting_since=timezone.now())
        audit.record(
            user, "delete", template.kind, template.name, namespace=template.namespace, old=template.manifest
        )
        binding = ResourceBinding.objects.filter(template=template).first()
        if binding is None:
            template.delete()
        else:
            tasks.after_commit(tasks.sync_binding, binding.pk)


def rebalance(bindings: list[ResourceBinding], user: Any = None, now: datetime | None = None) -> int:
    """WorkloadRebalancer: set rescheduleTriggeredAt so the scheduler runs in fresh mode; returns how many."""
    now = now or timezone.now()
    count = 0
    with transaction.atomic():
        for binding in bindings:
            if binding.reschedule_triggered_at and binding.reschedule_triggered_at >= now:
                continue
            ResourceBinding.objects.filter(pk=binding.pk).update(
                reschedule_triggered_at=now, updated_at=timezone.now()
            )
            audit.record(
                user,
                "rebalance",
                binding.template.kind,
                binding.template.name,
                namespace=binding.namespace,
                summary="fresh reschedule requested (WorkloadRebalancer)",
                old={"rescheduleTriggeredAt": binding.reschedule_triggered_at},
                new={"rescheduleTriggeredAt": now},
            )
            tasks.after_commit(tasks.schedule_binding, binding.pk)
            count += 1
    return count


def _binding_of(reference: dict[str, str]) -> ResourceBinding | None:
    return (
        ResourceBinding.objects.filter(
            template__api_version=reference["apiVersion"],
            template__kind=reference["kind"],
            template__name=reference["name"],
            template__namespace=reference.get("namespace", ""),
        )
        .select_related("template")
        .first()
    )


def save_rebalancer(document: dict[str, Any], user: Any = None) -> WorkloadRebalancer:
    """Create or update a WorkloadRebalancer by name; each workload newly listed gets a fresh reschedule
    of its binding (rebalance) and its line in the status, NotFound when it has none. Audited."""
    metadata = document.get("metadata") or {}
    name = str(metadata.get("name") or "")
    if not name:
        raise FieldError("metadata.name", "Required value")
    spec = document.get("spec")
    references = rebalancer.workloads_of(spec)
    ttl = spec.get("ttlSecondsAfterFinished") if isinstance(spec, dict) else None
    now = timezone.now()
    with transaction.atomic():
        row = WorkloadRebalancer.objects.select_for_update().filter(name=name).first()
        old = (
            {"workloads": row.workloads, "ttlSecondsAfterFinished": row.ttl_seconds_after_finished}
            if row
            else None
        )
        if row is None:
            row = WorkloadRebalancer(name=name)
        elif row.workloads != references or row.ttl_seconds_after_finished != ttl:
            row.generation += 1
        row.labels = dict(metadata.get("labels") or {})
        row.annotations = dict(metadata.get("annotations") or {})
        row.workloads = references
        row.ttl_seconds_after_finished = ttl
        done = {rebalancer.sort_key(e): e for e in row.observed_workloads if e.get("workload") in references}
        for reference in references:
            key = rebalancer.sort_key({"workload": reference})
            if key in done:
                continue
            binding = _binding_of(reference)
            if binding is not None:
                rebalance([binding], user=user, now=now)
            done[key] = rebalancer.observed(reference, binding is not None)
        row.observed_workloads = [done[k] for k in sorted(done)]
        row.observed_generation = row.generation
        row.finish_time = row.finish_time or now
        row.save()
        new = {"workloads": references, "ttlSecondsAfterFinished": ttl}
        if new != old:
            audit.record(
                user,
                "apply:configured" if old else "apply:created",
                "WorkloadRebalancer",
                name,
                old=old,
                new=new,
            )
    return row


def delete_rebalancer(row: WorkloadRebalancer, user: Any = None) -> None:
    """Delete a WorkloadRebalancer; the reschedules it started stay done, as in Karmada."""
    with transaction.atomic():
        row.delete()
        audit.record(user, "delete", "WorkloadRebalancer", row.name, old={"workloads": row.workloads})


def rebalance_policy(policy: PropagationPolicy, user: Any = None, now: datetime | None = None) -> int:
    """Rebalance every workload a policy holds."""
    return rebalance(list(policy.bindings.select_related("template")), user=user, now=now)


SCHEDULING = "scheduling"
DISPATCHING = "dispatching"


@dataclass(frozen=True)
class HoldResult:
    """What a pause or resume did: whether anything changed, and what the policy still suspends."""

    changed: bool
    suspension: dict[str, Any] | None
    policy_suspension: dict[str, Any] | None


def set_hold(
    binding: ResourceBinding, what: str, paused: bool, cluster: str = "", user: Any = None
) -> HoldResult:
    """Pause or resume one workload's scheduling, or its dispatching (everywhere, or to one cluster).

    The hold is the operator's own, merged with the policy's suspension into spec.suspension; resuming
    never lifts what the policy itself suspends.  Audited; the scheduler (on resuming scheduling) or the
    propagation (on a dispatch change) runs after the commit.
    """
    if what not in (SCHEDULING, DISPATCHING):
        raise ValueError(f"what must be {SCHEDULING} or {DISPATCHING}")
    if what == SCHEDULING and cluster:
        raise ValueError("scheduling is paused for the whole workload, not per cluster")
    with transaction.atomic():
        row = ResourceBinding.objects.select_for_update(of=("self",)).select_related("template", "policy")
        binding = row.get(pk=binding.pk)
        holds = normal_holds(binding.suspension_holds)
        if cluster:
            listed = set(holds.get("dispatchingOnClusters") or [])
            holds["dispatchingOnClusters"] = sorted(listed | {cluster} if paused else listed - {cluster})
        else:
            holds[what] = paused
            if what == DISPATCHING and not paused:
                holds.pop("dispatchingOnClusters", None)
        holds = normal_holds(holds)
        policy_suspension = binding.policy.spec.get("suspension") if binding.policy else None
        suspension = binding_suspension(policy_suspension, holds)
        before = binding.suspension
        changed = holds != normal_holds(binding.suspension_holds) or suspension != binding.suspension
        if changed:
            binding.suspension_holds = holds
            if suspension != binding.suspension:
                binding.suspension = suspension
                binding.generation += 1
            binding.save(update_fields=["suspension_holds", "suspension", "generation", "updated_at"])
            where = f" to {cluster}" if cluster else ""
            audit.record(
                user,
                f"{'pause' if paused else 'resume'}-{what}",
                binding.template.kind,
                binding.template.name,
                namespace=binding.namespace,
                summary=f"{what}{where} {'paused' if paused else 'resumed'} by an operator",
                old={"suspension": before},
                new={"suspension": suspension},
            )
            if what == SCHEDULING and not paused:
                tasks.after_commit(tasks.schedule_binding, binding.pk)
            if what == DISPATCHING:
                tasks.after_commit(tasks.sync_binding, binding.pk)
    return HoldResult(changed, binding.suspension, policy_suspension)


@dataclass(frozen=True)
class ReapplyResult:
    """What an operator's re-apply of one member copy came to."""

    ok: bool
    action: str
    message: str = ""


def reapply_copy(binding: ResourceBinding, cluster: str, user: Any = None) -> ReapplyResult:
    """Write our manifest to one member copy now, where its repair is held (dispatching suspended,
    conflictResolution Abort, or the cluster was unreachable); audited, its open drift put back."""
    work = binding.works.filter(cluster_name=cluster, deleting=False).first()
    if work is None:
        raise FieldError("cluster", f"the workload has no copy in a cluster named {cluster!r}")
    outcome = dispatch.apply_now(work.pk)
    ok = outcome.action not in ("failed", "refused")
    who = getattr(user, "username", "") or "karmada-ui"
    if ok:
        drift_events.mark_put_back([work.pk], by=who)
    audit.record(
        user,
        "reapply",
        binding.template.kind,
        binding.template.name,
        namespace=binding.namespace,
        summary=f"the copy in {cluster} re-applied by an operator: {outcome.action}",
        new={"cluster": cluster, "action": outcome.action, "message": outcome.message},
    )
    return ReapplyResult(ok, outcome.action, outcome.message)


def step_rollout(rollout: Rollout, step: str, user: Any = None) -> Rollout:
    """Pause, resume or abort a staged rollout (raises RolloutRefused, a FieldError on ``step``).

    Audited with the phase before and after; the Works follow after the commit: an abort puts every
    updated cluster back on the previous revision, a resume lets the next wave go when it may.
    """
    with transaction.atomic():
        before = rollout.phase
        stepped = rollouts.step_rollout(rollout.pk, step, user.get_username() if user else "")
        template = stepped.binding.template
        audit.record(
            user,
            f"rollout.{step}",
            template.kind,
            template.name,
            namespace=template.namespace,
            summary=f"Rollout of revision {stepped.to_revision.generation}: {stepped.message}",
            old={"phase": before},
            new={"phase": stepped.phase},
        )
        tasks.after_commit(tasks.sync_binding, stepped.binding_id)
    return stepped
