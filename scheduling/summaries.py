"""Read models for pages and the API: workload rows, the template→policy→binding→works chain, policies."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml
from django.db.models import Prefetch, QuerySet

from scheduling import events
from scheduling.controllers import rollouts
from scheduling.controllers.detector import candidate
from scheduling.controllers.export import binding_document, propagation_policy_document, template_document
from scheduling.karmada.interpreter import workload_of
from scheduling.karmada.suspension import (
    dispatching_suspended,
    is_suspended,
    normal_holds,
    scheduling_suspended,
    suspended_on,
)
from scheduling.karmada.work_counts import WorkCounts
from scheduling.models import Event, PropagationPolicy, ResourceBinding, ResourceTemplate, Rollout, Work
from scheduling.planner import InputError, Placement, plan_waves

MATCH_WORDS = {3: "name", 2: "labelSelector", 1: "kind"}
# libyaml's emitter where it is built in: a binding's document has an aggregatedStatus entry per cluster
SAFE_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


@dataclass
class ClusterReplicas:
    """One target cluster of a workload: replicas wanted, ready, the member's health and apply state."""

    cluster: str
    desired: int | None
    ready: int | None
    health: str
    applied: bool
    message: str = ""


@dataclass
class WorkloadRow:
    """A workload as lists show it: its template, binding and the binding's stored counts; ``clusters``
    (one entry per target cluster) only where one workload is shown."""

    template: ResourceTemplate
    binding: ResourceBinding | None
    clusters: list[ClusterReplicas] = field(default_factory=list)

    @property
    def policy(self) -> PropagationPolicy | None:
        return self.template.policy

    @property
    def counts(self) -> WorkCounts:
        return self.binding.counts if self.binding else WorkCounts()

    @property
    def desired(self) -> int:
        return self.counts.desired

    @property
    def ready(self) -> int:
        return self.counts.ready

    @property
    def scheduled(self) -> dict[str, Any] | None:
        return self.binding.condition("Scheduled") if self.binding else None

    @property
    def suspended(self) -> bool:
        return self.binding is not None and is_suspended(self.binding.suspension)

    @property
    def priority(self) -> int | None:
        return self.binding.schedule_priority if self.binding else None

    def as_dict(self) -> dict[str, Any]:
        t = self.template
        return {
            "id": t.pk,
            "apiVersion": t.api_version,
            "kind": t.kind,
            "namespace": t.namespace,
            "name": t.name,
            "uid": str(t.uid),
            "policy": None
            if t.policy is None
            else {"kind": t.policy.kind, "namespace": t.policy.namespace, "name": t.policy.name},
            "binding": None
            if self.binding is None
            else {"kind": self.binding.kind, "name": self.binding.name},
            "replicas": self.binding.replicas if self.binding else 0,
            "scheduled": self.scheduled,
            "summary": self.counts.as_dict(),
            "schedulePriority": self.priority,
            "suspension": suspension_summary(self.binding, self.template.policy) if self.binding else None,
            "workloadAffinityGroups": self.binding.workload_affinity_groups if self.binding else None,
        }


def suspension_summary(
    binding: ResourceBinding, policy_row: PropagationPolicy | None = None
) -> dict[str, Any]:
    """What is held and who holds it: the binding's spec.suspension, the operator's holds, the policy's.

    ``policy_row`` saves a query when the caller has the template's policy at hand.
    """
    row = policy_row if policy_row is not None else binding.policy
    policy = (row.spec.get("suspension") if row else None) or {}
    holds = normal_holds(binding.suspension_holds)
    return {
        "suspended": is_suspended(binding.suspension),
        "scheduling": scheduling_suspended(binding.suspension),
        "dispatching": dispatching_suspended(binding.suspension),
        "dispatchingOnClusters": suspended_on(binding.suspension),
        "byOperator": holds,
        "byPolicy": policy,
    }


def cluster_replicas(binding: ResourceBinding) -> list[ClusterReplicas]:
    """Per target cluster: desired from spec.clusters, ready and health from the aggregated status the
    controllers store on every status change (so a list of workloads never loads their Works)."""
    reported = {entry.get("clusterName"): entry for entry in binding.aggregated_status or []}
    rows = []
    for target in binding.clusters:
        entry = reported.get(target["name"])
        status = (entry or {}).get("status") or {}
        desired = target.get("replicas") if binding.replicas else None
        rows.append(
            ClusterReplicas(
                cluster=target["name"],
                desired=desired,
                ready=status.get("readyReplicas"),
                health=(entry.get("health") or "Unknown") if entry else "Unknown",
                applied=bool(entry and entry.get("applied")),
                message=str(entry.get("appliedMessage") or "") if entry and not entry.get("applied") else "",
            )
        )
    return rows


# JSON a workload row never shows: at fleet size each is decoded per row for nothing (100 clusters in a
# binding's placement, a template's whole manifest)
ROW_DEFERRED = (
    "manifest",
    "policy__labels",
    "policy__annotations",
    "binding__placement",
    "binding__applied_placement",
    "binding__replica_requirements",
    "binding__graceful_eviction_tasks",
    "binding__failover",
    "binding__required_by",
    # a row reads the binding's stored counts: spec.clusters and aggregatedStatus hold one entry per cluster
    "binding__clusters",
    "binding__aggregated_status",
)


def templates_with_bindings() -> QuerySet[ResourceTemplate]:
    """Templates with their policy and binding: two queries per page, however many Works they have."""
    return (
        ResourceTemplate.objects.filter(deleting_since__isnull=True)
        .select_related("policy", "binding")
        .defer(*ROW_DEFERRED)
    )


def workload_rows(templates: QuerySet[ResourceTemplate] | list[ResourceTemplate]) -> list[WorkloadRow]:
    """Rows with the stored counts only: a row never decodes its binding's per-cluster entries."""
    rows = []
    for template in templates:
        binding = getattr(template, "binding", None) if _has_binding(template) else None
        rows.append(WorkloadRow(template, binding))
    return rows


def _has_binding(template: ResourceTemplate) -> bool:
    try:
        template.binding  # noqa: B018 - a missing one-to-one raises
    except ResourceBinding.DoesNotExist:
        return False
    return True


def filter_workloads(queryset: QuerySet[ResourceTemplate], text: str) -> QuerySet[ResourceTemplate]:
    """`nginx`, `kind=Deployment`, `namespace=shop`, `policy=name`: every term must hold."""
    for term in text.split():
        key, sep, value = term.partition("=")
        if not sep:
            queryset = queryset.filter(name__icontains=term)
        elif key == "kind":
            queryset = queryset.filter(kind__iexact=value)
        elif key == "namespace":
            queryset = queryset.filter(namespace=value)
        elif key == "policy":
            queryset = queryset.filter(policy__name=value)
        else:
            queryset = queryset.filter(name__icontains=term)
    return queryset


# ------------------------------------------------------------------------------------- the chain


def why_policy(template: ResourceTemplate) -> dict[str, Any] | None:
    """Why the template's policy holds it: its priority, the selector that matched, and the rivals it beat."""
    policy = template.policy
    if policy is None:
        return None
    try:
        workload = workload_of(template)
    except InputError:
        return None
    rivals = []
    matched_by = ""
    for row in PropagationPolicy.objects.all():
        if row.kind == "PropagationPolicy" and row.namespace != template.namespace:
            continue
        try:
            match = max((s.priority(workload) for s in candidate(row).policy.selectors), default=0)
        except InputError:
            continue
        if not match:
            continue
        if row.pk == policy.pk:
            matched_by = MATCH_WORDS[match]
        else:
            rivals.append(
                {
                    "kind": row.kind,
                    "namespace": row.namespace,
                    "name": row.name,
                    "priority": row.priority,
                    "match": MATCH_WORDS[match],
                }
            )
    return {
        "priority": policy.priority,
        "preemption": policy.preemption,
        "matched_by": matched_by,
        "rivals": rivals,
    }


def member_objects(binding: ResourceBinding) -> list[dict[str, Any]]:
    """What each target's member copy reports, from the last collected status."""
    return [
        {
            "cluster": w.cluster_name,
            "health": w.health,
            "status": w.status,
            "status_at": w.status_at,
            "applied": w.in_sync,
            "deleting": w.deleting,
            "suspended": w.suspended,
        }
        for w in binding.works.all()
    ]


def workload_members(template: ResourceTemplate) -> dict[str, Any]:
    """What the workload page's member table shows: per target cluster, from the binding alone."""
    binding = ResourceBinding.objects.filter(template=template).only(*MEMBER_FIELDS).first()
    return {"template": template, "clusters": cluster_replicas(binding) if binding else []}


MEMBER_FIELDS = ("pk", "template_id", "replicas", "clusters", "aggregated_status")


def workload_chain(template: ResourceTemplate) -> dict[str, Any]:
    """Everything the workload page shows, from the template down to the member objects."""
    # a Work's manifest is the template's with its overrides: the page shows the hashes, never the manifest
    works = Prefetch("works", queryset=Work.objects.defer("manifest"))
    binding = ResourceBinding.objects.filter(template=template).prefetch_related(works).first()
    strategy = None
    if binding is not None:
        try:
            strategy = Placement.from_dict(binding.placement).strategy
        except InputError:
            strategy = None
    chain: dict[str, Any] = {
        "suspension": suspension_summary(binding) if binding else None,
        "priority_class": _priority_class(template),
        "template": template,
        "template_yaml": shown_yaml(template_document(template)),
        "policy": template.policy,
        "why": why_policy(template),
        "binding": binding,
        "strategy": strategy,
        "binding_yaml": shown_yaml(binding_document(binding)) if binding else "",
        "clusters": cluster_replicas(binding) if binding else [],
        "works": list(binding.works.all()) if binding else [],
        "members": member_objects(binding) if binding else [],
        "template_events": list(events.for_object(template)[:20]),
        "binding_events": list(events.for_object(binding)[:20]) if binding else [],
    }
    return chain


def shown_yaml(document: dict[str, Any]) -> str:
    """A document as the pages show it: YAML in the document's own key order."""
    return yaml.dump(document, Dumper=SAFE_DUMPER, sort_keys=False)


def _priority_class(template: ResourceTemplate) -> str:
    """The PriorityClass the template's policy names (schedulePriority), or ""."""
    policy = template.policy
    if policy is None:
        return ""
    return str((policy.spec.get("schedulePriority") or {}).get("priorityClassName") or "")


def event_dict(event: Event) -> dict[str, Any]:
    return {
        "type": event.type,
        "reason": event.reason,
        "message": event.message,
        "object": {"kind": event.object_kind, "namespace": event.object_namespace, "name": event.object_name},
        "created_at": event.created_at,
        "sentences": event.data.get("sentences", []),
        "data": event.data,
    }


def policy_yaml(policy: PropagationPolicy) -> str:
    return shown_yaml(propagation_policy_document(policy))


def rollout_summary(binding: ResourceBinding, history: int = 10) -> dict[str, Any]:
    """A workload's staged rollout as the rollout page and the API show it: its settings, the latest
    rollout with every wave and where each cluster stands (and why it waits), the earlier rollouts,
    the rollout events, and the steps an operator may take now."""
    spec = rollouts.spec_of(binding)
    rows = list(
        Rollout.objects.select_related("from_revision", "to_revision").filter(binding=binding)[:history]
    )
    latest = rows[0] if rows else None
    plan = rollouts.judge(latest) if latest is not None else None
    if plan is not None:
        waves = plan.as_dict()["waves"]
    elif spec is not None:
        planned = plan_waves(spec, rollouts.cluster_snapshots(binding), [c["name"] for c in binding.clusters])
        waves = [{**wave.as_dict(), "state": "idle", "stages": []} for wave in planned]
    else:
        waves = []
    found = Event.objects.filter(
        object_kind=binding.kind,
        object_namespace=binding.namespace,
        object_name=binding.name,
        reason__in=rollouts.EVENT_REASONS,
    )[:50]
    return {
        "staged": spec is not None,
        "settings": spec.as_dict() if spec is not None else None,
        "rollout": None if latest is None else rollout_dict(latest),
        "waves": waves,
        "currentWave": plan.current_wave if plan is not None else None,
        "history": [rollout_dict(row) for row in rows[1:]],
        "events": [event_dict(event) for event in found],
        "steps": rollouts.allowed_steps(latest) if latest is not None else [],
    }


def rollout_dict(rollout: Rollout) -> dict[str, Any]:
    return {
        "id": rollout.pk,
        "phase": rollout.phase,
        "message": rollout.message,
        "fromRevision": rollout.from_revision.generation,
        "toRevision": rollout.to_revision.generation,
        "released": sorted(rollout.released),
        "failed": rollout.failed,
        "startedAt": rollout.started_at,
        "finishedAt": rollout.finished_at,
    }
