"""What the editor plans against: the scheduler's own fleet snapshots, and each workload's planner
input as the scheduler will build it once the edited policy holds the workload."""

from __future__ import annotations

from typing import Any

from scheduling.controllers.apply import propagation_columns
from scheduling.controllers.detector import binding_under
from scheduling.controllers.planner_inputs import (
    binding_peers,
    binding_quotas,
    load_quotas,
    load_snapshots,
    planner_binding,
    planner_placement,
)
from scheduling.editor import policy
from scheduling.editor.live_preview import WorkloadInput
from scheduling.karmada.interpreter import workload_of
from scheduling.karmada.priority import PRIORITY_CLASS_API_GROUP, PRIORITY_CLASS_KIND
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
        quotas=tuple(binding_quotas(binding)),
        peers=tuple(binding_peers(binding)),
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
            replicas=base.replicas,
            label=template_label(template),
            base=base,
            current=current,
            quotas=tuple(binding_quotas(binding)),
            peers=tuple(binding_peers(binding)),
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
    label = template_label(template)
    return WorkloadInput(
        replicas=base.replicas, label=label, base=base, quotas=tuple(load_quotas(base.namespace))
    )


def form_choices() -> dict[str, Any]:
    """What the form offers to pick from: stored PriorityClasses (with values) and templates' label keys."""
    classes = []
    rows = ResourceTemplate.objects.filter(
        api_group=PRIORITY_CLASS_API_GROUP, kind=PRIORITY_CLASS_KIND, deleting_since__isnull=True
    ).order_by("name")
    for row in rows:
        value = row.manifest.get("value")
        classes.append({"name": row.name, "value": value if isinstance(value, int) else "?"})
    keys: set[str] = set()
    for manifest in ResourceTemplate.objects.exclude(namespace="").values_list("manifest", flat=True)[:2000]:
        labels = (manifest.get("metadata") or {}).get("labels") or {}
        keys.update(str(key) for key in labels)
    return {"priority_classes": classes, "label_keys": sorted(keys)}
