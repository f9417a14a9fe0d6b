"""What the editor plans against: the scheduler's own fleet snapshots, and each workload's planner
input as the scheduler will build it once the edited policy holds the workload."""

from __future__ import annotations

from typing import Any

from scheduling.controllers.apply import propagation_columns
from scheduling.controllers.detector import binding_under
from scheduling.controllers.planner_inputs import load_snapshots, planner_binding, planner_placement
from scheduling.editor import policy
from scheduling.editor.live_preview import WorkloadInput
from scheduling.karmada.interpreter import workload_of
from scheduling.karmada.webhooks import default_propagation_spec
from scheduling.models import PropagationPolicy, ResourceBinding, ResourceTemplate
from scheduling.planner import Binding, ClusterSnapshot, InputError


def fleet() -> list[ClusterSnapshot]:
    """Every cluster exactly as the scheduler loads it, sorted by name."""
    return sorted(load_snapshots(), key=lambda snapshot: snapshot.name)


def template_label(template: ResourceTemplate) -> str:
    where = f"{template.namespace}/{template.name}" if template.namespace else template.name
    return f"{template.kind} {where}"


def draft_row(doc: dict[str, Any]) -> PropagationPolicy:
    """The edited policy as an unsaved row, as the detector would hold it after apply."""
    kind = str(doc.get("kind"))
    meta = policy.metadata(doc)
    namespace = "" if policy.is_cluster_scoped(doc) else str(meta.get("namespace") or "default")
    spec = default_propagation_spec(kind, namespace, policy.spec(doc))
    existing = PropagationPolicy.objects.filter(kind=kind, namespace=namespace, name=meta.get("name")).first()
    row = PropagationPolicy(
        kind=kind,
        namespace=namespace,
        name=str(meta.get("name") or ""),
        annotations=dict(meta.get("annotations") or {}),
        spec=spec,
        **propagation_columns(spec),
    )
    row.pk = existing.pk if existing else None
    return row


def workload_input(template: ResourceTemplate, doc: dict[str, Any] | None) -> WorkloadInput | None:
    """The template as the scheduler will plan it once ``doc`` holds it: the detector's binding under
    the policy, through the scheduler's ``planner_binding`` and ``planner_placement``.

    While the policy is not yet whole (it does not parse into a placement), the workload's inputs as
    they are now. None when the template cannot be interpreted (a malformed quantity in its pod template).
    """
    try:
        workload_of(template)
    except InputError:
        return None
    try:
        binding = binding_under(template, draft_row(doc or {}))
        base, placement = planner_binding(binding), planner_placement(binding)
    except (InputError, KeyError, TypeError, ValueError, AttributeError):
        return _as_it_is(template)
    current = base.previous if binding.clusters else None
    return WorkloadInput(
        replicas=base.replicas,
        label=template_label(template),
        base=base,
        current=current,
        placement=placement,
    )


def _as_it_is(template: ResourceTemplate) -> WorkloadInput | None:
    """The template's planner binding now (its binding's, or the interpreter's reading), no placement."""
    binding = ResourceBinding.objects.filter(template=template).select_related("template").first()
    if binding is not None:
        try:
            base = planner_binding(binding)
        except (InputError, KeyError):
            return None
        current = base.previous if binding.clusters else None
        return WorkloadInput(
            replicas=base.replicas, label=template_label(template), base=base, current=current
        )
    try:
        workload = workload_of(template)
    except InputError:
        return None
    base = Binding(
        replicas=workload.replicas,
        requirements=workload.requirements,
        uid=workload.uid,
        api_version=workload.api_version,
        kind=workload.kind,
        namespace=workload.namespace,
        name=workload.name,
    )
    return WorkloadInput(replicas=base.replicas, label=template_label(template), base=base)
