"""Preview: what a policy would do to one workload, through the same planner call the scheduler makes.

The planner's input is built by the scheduler's own functions (`planner_inputs`) from the binding the
detector would write once the policy holds the workload, so the preview keeps the previous result,
the graceful eviction tasks and a pending rebalance (fresh mode) exactly as the scheduler will.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import yaml

from core import useryaml
from core.audit import placement_delta
from core.errors import FieldError
from scheduling.controllers.apply import policy_row
from scheduling.controllers.detector import binding_under
from scheduling.controllers.planner_inputs import (
    binding_peers,
    binding_quotas,
    load_snapshots,
    planner_binding,
    planner_placement,
)
from scheduling.karmada.webhooks import SpecInvalid
from scheduling.models import ResourceBinding, ResourceTemplate
from scheduling.planner import LARGEST_REMAINDER, WEBSTER, InputError, describe, plan, split_cost


class PreviewError(FieldError):
    """The policy or the workload cannot be previewed: the field and the reason."""


def _policy_document(policy: Any) -> dict[str, Any]:
    if isinstance(policy, str):
        try:
            policy = useryaml.load(policy)
        except yaml.YAMLError as exc:
            raise PreviewError("policy", f"not valid YAML: {getattr(exc, 'problem', exc)}") from None
    if not isinstance(policy, dict) or policy.get("kind") not in (
        "PropagationPolicy",
        "ClusterPropagationPolicy",
    ):
        raise PreviewError("policy", "must be a PropagationPolicy or ClusterPropagationPolicy")
    return policy


def proposed_binding(policy: Any, template: ResourceTemplate) -> ResourceBinding:
    """The template's binding once `policy` (YAML text or a dict) holds it, unsaved; PreviewError if not."""
    document = _policy_document(policy)
    try:
        return binding_under(template, policy_row(document))
    except SpecInvalid as exc:
        raise PreviewError(*exc.errors[0]) from None
    except InputError as exc:
        raise PreviewError(exc.path, exc.message) from None


def preview(policy: Any, template: ResourceTemplate) -> dict[str, Any]:
    """The plan for `template` under `policy` (YAML text or a dict), in both division methods."""
    binding = proposed_binding(policy, template)
    try:
        placement = planner_placement(binding)
        inputs = planner_binding(binding)
    except InputError as exc:
        raise PreviewError(exc.path, exc.message) from None
    snapshots = load_snapshots()
    method = placement.division_method
    peers, quotas = binding_peers(binding), binding_quotas(binding)
    results = {
        m: plan(snapshots, replace(placement, division_method=m), inputs, peers=peers, quotas=quotas)
        for m in (WEBSTER, LARGEST_REMAINDER)
    }
    chosen = results[method]
    current = binding.target_replicas()
    # A split a quota refuses is still the one the scheduler computed: its cost is shown beside the current.
    refused = (chosen.explanation.get("quota") or {}).get("proposed") if chosen.error else None
    proposed = {e["name"]: e["replicas"] for e in refused} if refused is not None else chosen.replicas()
    return {
        "workload": {
            "id": template.pk,
            "kind": template.kind,
            "namespace": template.namespace,
            "name": template.name,
        },
        "replicas": inputs.replicas,
        "replica_requirements": binding.replica_requirements,
        "division_method": method,
        "plan": chosen.as_dict(),
        "sentences": describe(chosen.explanation),
        "current": current,
        "delta": placement_delta(current, chosen.replicas()),
        "methods_differ": results[WEBSTER].replicas() != results[LARGEST_REMAINDER].replicas(),
        "alternative": results[LARGEST_REMAINDER if method == WEBSTER else WEBSTER].as_dict(),
        "quota": chosen.explanation.get("quota"),
        "cost": split_cost(snapshots, inputs.requirements, proposed, current if binding.clusters else None),
    }
