"""The detector over many templates at once (an apply's): reads in one query each, new bindings in bulk."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from scheduling import events
from scheduling.controllers.detector import (
    Candidate,
    binding_spec,
    bound_as_decided,
    choose_policy,
    claim_message,
    detect_locked,
    missing_overrides,
    new_binding,
)
from scheduling.controllers.marking import index_new_placements
from scheduling.karmada.interpreter import workload_of
from scheduling.karmada.priority import PriorityUnresolved
from scheduling.models import (
    Event,
    PropagationPolicy,
    ResourceBinding,
    ResourceTemplate,
)
from scheduling.planner import InputError


@dataclass(frozen=True)
class Plan:
    """What the bulk path writes for one locked template: its policy and binding spec; no policy for a
    template no policy claims, nor did (nothing to write, no binding)."""

    policy: PropagationPolicy | None
    spec: dict[str, Any]


UNCLAIMED = Plan(None, {})


def detect_many(template_ids: list[int], candidates: list[Candidate]) -> list[ResourceBinding | None]:
    """detect_template for each template, in order, with the same outcome.

    Templates and bindings are read in one query each; a settled one is returned as read. Templates
    with no binding yet (a fresh apply) are claimed and bound together: their rows locked in one
    statement, their claims, events, bindings and placement keys written in bulk. Anything else (a
    binding to update, a preemption, a workload that cannot be interpreted, missing overrides, an
    unresolved PriorityClass) goes through the one-template path, which records what it refuses.
    """
    lacking = _LacksOverrides()
    templates = ResourceTemplate.objects.in_bulk(template_ids)
    bindings = {b.template_id: b for b in ResourceBinding.objects.filter(template_id__in=template_ids)}
    found: dict[int, ResourceBinding | None] = {}
    fresh: list[int] = []
    alone: list[int] = []
    for template_id in dict.fromkeys(template_ids):
        template = templates.get(template_id)
        binding = bindings.get(template_id)
        if template is None or template.deleting_since is not None:
            found[template_id] = None
        elif binding is None:
            fresh.append(template_id)
        elif _settled(template, binding, candidates, lacking):
            found[template_id] = binding
        else:
            alone.append(template_id)
    if fresh:
        try:
            made, rest = _bind_fresh(fresh, candidates, lacking)
        except IntegrityError:  # a binding made meanwhile by another writer: one at a time, as it does
            made, rest = {}, fresh
        found.update(made)
        alone += rest
    for template_id in alone:
        found[template_id] = detect_locked(template_id, candidates)
    return [found[template_id] for template_id in template_ids]


class _LacksOverrides:
    """missing_overrides once per policy for one detection (a query a policy, not one a template)."""

    def __init__(self) -> None:
        self.seen: dict[int, bool] = {}

    def __call__(self, policy: PropagationPolicy) -> bool:
        if policy.pk not in self.seen:
            self.seen[policy.pk] = bool(missing_overrides(policy))
        return self.seen[policy.pk]


def _settled(
    template: ResourceTemplate,
    binding: ResourceBinding,
    candidates: list[Candidate],
    lacking: _LacksOverrides,
) -> bool:
    """settled_binding's test on rows already read: nothing the detector decides would change."""
    try:
        workload = workload_of(template)
    except InputError:
        return False
    policy = choose_policy(template, workload, candidates)
    if policy is None or policy.pk != template.policy_id or binding.policy_id != policy.pk:
        return False
    return not lacking(policy) and bound_as_decided(template, workload, policy, binding)


@transaction.atomic
def _bind_fresh(
    template_ids: list[int], candidates: list[Candidate], lacking: _LacksOverrides
) -> tuple[dict[int, ResourceBinding | None], list[int]]:
    """Claim and bind templates that had no binding: (what detection found by template id, ids left to
    the one-template path). Their rows are locked first, in id order, as detect_locked locks one."""
    locked = list(ResourceTemplate.objects.select_for_update().filter(pk__in=template_ids).order_by("pk"))
    taken = set(
        ResourceBinding.objects.filter(template_id__in=template_ids).values_list("template_id", flat=True)
    )
    found: dict[int, ResourceBinding | None] = {}
    rest = sorted(set(template_ids) - {template.pk for template in locked})
    claims: dict[int, list[ResourceTemplate]] = defaultdict(list)
    planned: list[tuple[ResourceTemplate, PropagationPolicy, dict[str, Any]]] = []
    for template in locked:
        plan = _plan(template, candidates, taken, lacking)
        if plan is None:
            rest.append(template.pk)
        elif plan.policy is None:
            found[template.pk] = None
        else:
            if template.policy_id != plan.policy.pk:
                claims[plan.policy.pk].append(template)
            planned.append((template, plan.policy, plan.spec))
    policies = {policy.pk: policy for _, policy, _ in planned}
    now = timezone.now()
    for policy_id, claimed in claims.items():
        ResourceTemplate.objects.filter(pk__in=[t.pk for t in claimed]).update(
            policy=policy_id, updated_at=now
        )
    Event.objects.bulk_create(
        [
            events.unsaved(template, "Normal", "ApplyPolicySucceed", claim_message(policies[policy_id]))
            for policy_id, claimed in claims.items()
            for template in claimed
        ]
    )
    made = []
    for template, policy, spec in planned:
        template.policy = policy
        binding = new_binding(template, spec, policy)
        binding.refresh_counts()  # as save() keeps them
        made.append(binding)
    ResourceBinding.objects.bulk_create(made)
    index_new_placements(made)
    found.update({binding.template_id: binding for binding in made})
    return found, rest


def _plan(
    template: ResourceTemplate,
    candidates: list[Candidate],
    taken: set[int],
    lacking: _LacksOverrides,
) -> Plan | None:
    """The policy and binding spec of a locked template the bulk path binds, UNCLAIMED when no policy
    holds it nor did, None when the one-template path must decide (and record why)."""
    if template.deleting_since is not None or template.pk in taken:
        return None
    try:
        workload = workload_of(template)
    except InputError:
        return None  # the one-template path records InterpretFailed
    policy = choose_policy(template, workload, candidates)
    if policy is None:
        return UNCLAIMED if template.policy_id is None else None
    if template.policy_id is not None and template.policy_id != policy.pk:
        return None  # preempted from another policy: the one-template path names it in the event
    if lacking(policy):
        return None  # the one-template path records DependencyOverridesMissing
    try:
        return Plan(policy, binding_spec(template, workload, policy, None))
    except PriorityUnresolved:
        return None  # the one-template path records ApplyPolicyFailed
