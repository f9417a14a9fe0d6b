"""Preview: what a policy would do to one workload, through the same planner call the scheduler makes."""

from __future__ import annotations

from typing import Any

import yaml

from core import useryaml
from core.audit import placement_delta
from scheduling.controllers.planner_inputs import load_peers, load_quotas, load_snapshots
from scheduling.karmada.interpreter import requirements_json, workload_of
from scheduling.karmada.webhooks import SpecInvalid, validate_propagation_spec
from scheduling.models import ResourceBinding, ResourceTemplate
from scheduling.planner import (
    LARGEST_REMAINDER,
    WEBSTER,
    Binding,
    InputError,
    Placement,
    TargetCluster,
    affinity_groups,
    describe,
    division_method_from_annotations,
    plan,
    split_cost,
)


class PreviewError(ValueError):
    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


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


def preview(policy: Any, template: ResourceTemplate) -> dict[str, Any]:
    """The plan for `template` under `policy` (YAML text or a dict), in both division methods."""
    document = _policy_document(policy)
    metadata = document.get("metadata") or {}
    namespace = (
        "" if document["kind"] == "ClusterPropagationPolicy" else metadata.get("namespace") or "default"
    )
    try:
        spec = validate_propagation_spec(document["kind"], namespace, document.get("spec"))
        method = division_method_from_annotations(metadata.get("annotations"))
        workload = workload_of(template)
    except SpecInvalid as exc:
        raise PreviewError(*exc.errors[0]) from None
    except InputError as exc:
        raise PreviewError(exc.path, exc.message) from None
    binding = ResourceBinding.objects.filter(template=template).first()
    previous = (
        tuple(TargetCluster(c["name"], int(c.get("replicas") or 0)) for c in binding.clusters)
        if binding
        else ()
    )
    try:
        placement = Placement.from_dict(spec["placement"])
    except InputError as exc:
        raise PreviewError(f"spec.placement.{exc.path}", exc.message) from None
    groups = ("", "")
    if template.namespace:
        groups = affinity_groups(placement.workload_affinity, workload.labels)
    inputs = Binding(
        replicas=workload.replicas,
        requirements=workload.requirements,
        previous=previous,
        observed_affinity=binding.scheduler_observed_affinity_name if binding else "",
        uid=str(template.uid),
        api_version=template.api_version,
        kind=template.kind,
        namespace=template.namespace,
        name=template.name,
        affinity_group=groups[0],
        anti_affinity_group=groups[1],
    )
    snapshots = load_snapshots()
    quotas = load_quotas(template.namespace)
    peers = load_peers(template.namespace, *groups)
    results = {
        m: plan(snapshots, Placement.from_dict(spec["placement"], m), inputs, peers=peers, quotas=quotas)
        for m in (WEBSTER, LARGEST_REMAINDER)
    }
    chosen = results[method]
    current = binding.target_replicas() if binding else {}
    refused = (chosen.explanation.get("quota") or {}).get("proposed") if chosen.error else None
    proposed = {e["name"]: e["replicas"] for e in refused} if refused is not None else chosen.replicas()
    return {
        "workload": {
            "id": template.pk,
            "kind": template.kind,
            "namespace": template.namespace,
            "name": template.name,
        },
        "replicas": workload.replicas,
        "replicaRequirements": requirements_json(template.manifest, workload.requirements),
        "divisionMethod": method,
        "plan": chosen.as_dict(),
        "sentences": describe(chosen.explanation),
        "current": current,
        "delta": placement_delta(current, chosen.replicas()),
        "methodsDiffer": results[WEBSTER].replicas() != results[LARGEST_REMAINDER].replicas(),
        "alternative": results[LARGEST_REMAINDER if method == WEBSTER else WEBSTER].as_dict(),
        "quota": chosen.explanation.get("quota"),
        "cost": split_cost(snapshots, workload.requirements, proposed, current if binding else None),
    }
