"""The detector: which policy claims each template, and the binding that follows from the two."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from scheduling import events
from scheduling.controllers.marking import index_placement
from scheduling.controllers.planner_inputs import binding_quotas
from scheduling.karmada import names
from scheduling.karmada.documents import Document, Policy, Workload, match_policy
from scheduling.karmada.interpreter import requirements_from_json, requirements_json, workload_of
from scheduling.karmada.overrides import resource_selectors
from scheduling.karmada.priority import (
    PRIORITY_CLASS_API_GROUP,
    PRIORITY_CLASS_KIND,
    PriorityUnresolved,
    resolve_priority,
)
from scheduling.karmada.suspension import binding_suspension
from scheduling.models import (
    CLUSTER_PROPAGATION_POLICY,
    CLUSTER_RESOURCE_BINDING,
    PROPAGATION_POLICY,
    RESOURCE_BINDING,
    OverridePolicy,
    PropagationPolicy,
    ResourceBinding,
    ResourceTemplate,
)
from scheduling.planner import (
    InputError,
    Placement,
    QuotaExceededError,
    TargetCluster,
    affinity_groups,
    binding_usage,
    check_quota,
)


@dataclass(frozen=True)
class Candidate:
    """A propagation policy row and its selectors in the form Karmada's matcher needs."""

    row: PropagationPolicy
    policy: Policy

    def matches(self, workload: Workload) -> bool:
        return any(selector.priority(workload) for selector in self.policy.selectors)


def candidate(row: PropagationPolicy) -> Candidate:
    policy = Policy(
        kind=row.kind,
        name=row.name,
        namespace=row.namespace,
        priority=row.priority,
        selectors=resource_selectors(row.resource_selectors),
        placement=Placement.from_dict(row.placement),
        document=Document("policy", 0, {}),
    )
    return Candidate(row=row, policy=policy)


def load_candidates() -> list[Candidate]:
    return [candidate(row) for row in PropagationPolicy.objects.all()]


def _can_preempt(challenger: PropagationPolicy, holder: PropagationPolicy) -> bool:
    """Preemption Always: a PP takes from any CPP or a lower-priority PP; a CPP only from lower CPPs."""
    if challenger.preemption != "Always":
        return False
    if challenger.kind == PROPAGATION_POLICY and holder.kind == CLUSTER_PROPAGATION_POLICY:
        return True
    return challenger.kind == holder.kind and challenger.priority > holder.priority


def choose_policy(
    template: ResourceTemplate, workload: Workload, candidates: list[Candidate]
) -> PropagationPolicy | None:
    """The policy that should hold the template now, keeping the current claim unless preempted."""
    eligible = [
        c
        for c in candidates
        if c.row.kind == CLUSTER_PROPAGATION_POLICY or c.row.namespace == workload.namespace
    ]
    best_policy = match_policy([c.policy for c in eligible], workload)
    best = next((c.row for c in eligible if c.policy is best_policy), None)
    holder = next((c for c in eligible if c.row.pk == template.policy_id), None)
    if holder is None or not holder.matches(workload):
        return best
    if best is None or best.pk == holder.row.pk:
        return holder.row
    return best if _can_preempt(best, holder.row) else holder.row


def find_priority_class(name: str) -> dict[str, Any] | None:
    """The stored PriorityClass template of that name (scheduling.k8s.io/v1), or None."""
    row = ResourceTemplate.objects.filter(
        api_group=PRIORITY_CLASS_API_GROUP,
        kind=PRIORITY_CLASS_KIND,
        namespace="",
        name=name,
        deleting_since__isnull=True,
    ).first()
    return None if row is None else row.manifest


def binding_spec(
    template: ResourceTemplate,
    workload: Workload,
    policy: PropagationPolicy,
    holds: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The binding fields that follow from the template, its policy and the operator's holds.

    Raises PriorityUnresolved when the policy names a PriorityClass that is not stored.
    """
    spec = policy.spec
    groups = None
    if template.namespace:  # workload affinity applies to ResourceBindings only
        try:
            affinity = Placement.from_dict(spec.get("placement") or {}).workload_affinity
        except InputError:
            affinity = None
        affinity_group, anti_affinity_group = affinity_groups(affinity, workload.labels)
        if affinity_group or anti_affinity_group:
            groups = {
                key: value
                for key, value in (
                    ("affinityGroup", affinity_group),
                    ("antiAffinityGroup", anti_affinity_group),
                )
                if value
            }
    return {
        "replicas": workload.replicas,
        "replica_requirements": requirements_json(template.manifest, workload.requirements),
        "placement": copy.deepcopy(spec.get("placement") or {}),
        "scheduler_name": policy.scheduler_name,
        "conflict_resolution": policy.conflict_resolution,
        "propagate_deps": policy.propagate_deps,
        "preserve_resources_on_deletion": bool(spec.get("preserveResourcesOnDeletion")),
        "suspension": binding_suspension(spec.get("suspension"), holds),
        "schedule_priority": resolve_priority(spec.get("schedulePriority"), find_priority_class),
        "workload_affinity_groups": groups,
        "failover": copy.deepcopy(spec.get("failover")),
    }


def binding_under(template: ResourceTemplate, policy: PropagationPolicy) -> ResourceBinding:
    """The template's binding as the detector would write it once `policy` (saved or not) holds it.

    Unsaved: its spec follows from the template and the policy, while the scheduler's state (the
    previous result, eviction tasks, a pending rebalance) stays as it is. Previews hand it to the
    scheduler's own `planner_inputs`, so they plan exactly what the scheduler will. Raises InputError
    when the template cannot be interpreted or the policy names a PriorityClass that is not stored.
    """
    binding = ResourceBinding.objects.filter(template=template).first()
    try:
        spec = binding_spec(
            template, workload_of(template), policy, binding.suspension_holds if binding else None
        )
    except PriorityUnresolved as exc:
        # The detector would not bind the workload at all until the PriorityClass exists.
        raise InputError("spec.schedulePriority.priorityClassName", str(exc)) from None
    if binding is None:
        binding = ResourceBinding(
            template=template,
            template_generation=template.generation,
            kind=RESOURCE_BINDING if template.namespace else CLUSTER_RESOURCE_BINDING,
            namespace=template.namespace,
            name=names.binding_name(template.name, template.kind),
        )
    binding.template = template
    for key, value in spec.items():
        setattr(binding, key, value)
    binding.policy = policy
    return binding


def missing_overrides(policy: PropagationPolicy) -> list[str]:
    """Names in spec.dependentOverrides that have no OverridePolicy in the policy's namespace yet."""
    wanted = list(policy.spec.get("dependentOverrides") or [])
    if not wanted:
        return []
    found = set(
        OverridePolicy.objects.filter(namespace=policy.namespace, name__in=wanted).values_list(
            "name", flat=True
        )
    )
    return [name for name in wanted if name not in found]


def detect_template(template_id: int, candidates: list[Candidate] | None = None) -> ResourceBinding | None:
    """Claim the template for its policy and create or update its binding; returns the binding.

    A template whose claim and binding already agree is read without a lock; any change takes it.
    """
    return detect_settled(template_id, load_candidates() if candidates is None else candidates)[0]


def detect_settled(template_id: int, candidates: list[Candidate]) -> tuple[ResourceBinding | None, bool]:
    """detect_template, and whether the binding was already settled (nothing was locked or written)."""
    settled = settled_binding(template_id, candidates)
    if settled is not None:
        return settled, True
    return detect_locked(template_id, candidates), False


def settled_binding(template_id: int, candidates: list[Candidate]) -> ResourceBinding | None:
    """The template's binding when nothing the detector decides would change, else None."""
    template = ResourceTemplate.objects.select_related("policy").filter(pk=template_id).first()
    if template is None or template.deleting_since is not None:
        return None
    try:
        workload = workload_of(template)
    except InputError:
        return None
    policy = choose_policy(template, workload, candidates)
    if policy is None or policy.pk != template.policy_id or missing_overrides(policy):
        return None
    binding = ResourceBinding.objects.filter(template=template).first()
    if binding is None:
        return None
    return binding if bound_as_decided(template, workload, policy, binding) else None


def bound_as_decided(
    template: ResourceTemplate, workload: Workload, policy: PropagationPolicy, binding: ResourceBinding
) -> bool:
    """The binding is the one the detector would write for the template under the policy it chose
    (which holds the template, its overrides present): nothing to lock or write."""
    if binding.policy_id != policy.pk:
        return False
    if lazy_hold(binding, template, policy):
        return True
    if binding.template_generation != template.generation:
        return False
    try:
        spec = binding_spec(template, workload, policy, binding.suspension_holds)
    except PriorityUnresolved:
        return False
    return all(getattr(binding, key) == value for key, value in spec.items())


def claim_message(policy: PropagationPolicy, previous: PropagationPolicy | None = None) -> str:
    """The ApplyPolicySucceed event's message for a template the policy claims (from `previous`)."""
    message = f"claimed by {policy.kind} {policy.namespace + '/' if policy.namespace else ''}{policy.name}"
    if previous is not None:
        message += f" (preempted from {previous.kind} {previous.name})"
    return message


@transaction.atomic
def detect_locked(template_id: int, candidates: list[Candidate]) -> ResourceBinding | None:
    """detect_template's writing half: the template row locked, its claim, events and binding."""
    template = ResourceTemplate.objects.select_for_update().filter(pk=template_id).first()
    if template is None or template.deleting_since is not None:
        return None
    try:
        workload = workload_of(template)
    except InputError as exc:
        events.record(template, "Warning", "InterpretFailed", f"{exc.path}: {exc.message}")
        return None
    policy = choose_policy(template, workload, candidates)
    if policy is None:
        if template.policy_id is not None:
            template.policy = None
            template.save(update_fields=["policy", "updated_at"])
        return ResourceBinding.objects.filter(template=template).first()
    if template.policy_id != policy.pk:
        previous = template.policy
        template.policy = policy
        template.save(update_fields=["policy", "updated_at"])
        events.record(template, "Normal", "ApplyPolicySucceed", claim_message(policy, previous))
    missing = missing_overrides(policy)
    if missing:
        events.record(
            template,
            "Warning",
            "DependencyOverridesMissing",
            f"waiting for OverridePolicy {', '.join(missing)}",
        )
        return ResourceBinding.objects.filter(template=template).first()
    binding = ResourceBinding.objects.filter(template=template).first()
    if binding is not None and lazy_hold(binding, template, policy):
        return binding
    try:
        spec = binding_spec(template, workload, policy, binding.suspension_holds if binding else None)
    except PriorityUnresolved as exc:
        events.record(template, "Warning", "ApplyPolicyFailed", f"schedulePriority: {exc}")
        return binding
    refusal = quota_refusal(binding, spec) if binding is not None else None
    if refusal is not None:
        events.record(template, "Warning", "ApplyPolicyFailed", refusal)
        return binding
    return upsert_binding(template, spec, policy)


def quota_refusal(binding: ResourceBinding, spec: dict[str, Any]) -> str | None:
    """Karmada's binding webhook on the detector's update: new requests must keep the namespace in quota.

    Only a change of per-replica requests on a scheduled binding changes its usage here (the scheduler
    owns spec.clusters); the message is the refusal, or None when the update may go ahead.
    """
    if not binding.clusters or binding.replica_requirements == spec["replica_requirements"]:
        return None
    quotas = binding_quotas(binding)
    if not quotas:
        return None
    try:
        before_requirements = requirements_from_json(binding.replica_requirements)
        after_requirements = requirements_from_json(spec["replica_requirements"])
    except InputError:
        return None
    clusters = [TargetCluster(c["name"], int(c.get("replicas") or 0)) for c in binding.clusters]
    try:
        check_quota(
            quotas,
            binding.namespace,
            binding_usage(before_requirements, clusters),
            binding_usage(after_requirements, clusters),
        )
    except QuotaExceededError as exc:
        return f"{exc.reason}: {exc.message}"
    return None


def lazy_hold(binding: ResourceBinding, template: ResourceTemplate, policy: PropagationPolicy) -> bool:
    """activationPreference Lazy: the same policy's changes wait until the template itself changes."""
    return (
        policy.activation_preference == "Lazy"
        and binding.policy_id == policy.pk
        and binding.template_generation == template.generation
    )


def new_binding(
    template: ResourceTemplate, spec: dict[str, Any], policy: PropagationPolicy | None
) -> ResourceBinding:
    """The binding a template that has none gets (not saved)."""
    return ResourceBinding(
        template=template,
        template_generation=template.generation,
        kind=RESOURCE_BINDING if template.namespace else CLUSTER_RESOURCE_BINDING,
        namespace=template.namespace,
        name=names.binding_name(template.name, template.kind),
        policy=policy,
        **spec,
    )


def upsert_binding(
    template: ResourceTemplate, spec: dict[str, Any], policy: PropagationPolicy | None
) -> ResourceBinding:
    """Create the template's binding, or update it and bump its generation when its spec changed."""
    binding = ResourceBinding.objects.select_for_update().filter(template=template).first()
    if binding is None:
        binding = new_binding(template, spec, policy)
        binding.save()
        index_placement(binding)
        return binding
    changed = [key for key, value in spec.items() if getattr(binding, key) != value]
    same_policy = binding.policy_id == (policy.pk if policy else None)
    if not changed and same_policy and binding.template_generation == template.generation:
        return binding
    for key in changed:
        setattr(binding, key, spec[key])
    if changed:
        binding.generation += 1
    binding.policy = policy
    binding.template_generation = template.generation
    binding.save()
    if "placement" in changed:
        index_placement(binding)
    return binding
