"""What the editor plans against: the scheduler's own fleet snapshots and each workload's planner binding."""

from __future__ import annotations

from typing import Any

from scheduling.controllers.planner_inputs import load_quotas, load_snapshots, planner_binding
from scheduling.editor.live_preview import WorkloadInput
from scheduling.karmada.interpreter import workload_of
from scheduling.karmada.priority import PRIORITY_CLASS_API_GROUP, PRIORITY_CLASS_KIND
from scheduling.models import RESOURCE_BINDING, ResourceBinding, ResourceTemplate
from scheduling.planner import Binding, ClusterSnapshot, InputError, WorkloadPeer


def fleet() -> list[ClusterSnapshot]:
    """Every cluster exactly as the scheduler loads it, sorted by name."""
    return sorted(load_snapshots(), key=lambda snapshot: snapshot.name)


def template_label(template: ResourceTemplate) -> str:
    where = f"{template.namespace}/{template.name}" if template.namespace else template.name
    return f"{template.kind} {where}"


def grouped_peers(namespace: str) -> tuple[WorkloadPeer, ...]:
    """Every grouped ResourceBinding of the namespace (the preview's own groups may change with the draft)."""
    if not namespace:
        return ()
    rows = (
        ResourceBinding.objects.filter(kind=RESOURCE_BINDING, namespace=namespace)
        .filter(workload_affinity_groups__isnull=False)
        .select_related("template")
    )
    return tuple(
        WorkloadPeer(
            namespace=row.namespace,
            name=row.name,
            affinity_group=row.affinity_group,
            anti_affinity_group=row.anti_affinity_group,
            clusters=tuple(c["name"] for c in row.clusters),
            workload=template_label(row.template),
        )
        for row in rows
    )


def _context(template: ResourceTemplate) -> dict[str, Any]:
    """What the scheduler checks besides the clusters: the namespace's quotas and group peers."""
    namespace = template.namespace
    return {
        "labels": dict(template.labels),
        "quotas": tuple(load_quotas(namespace)),
        "peers": grouped_peers(namespace),
    }


def workload_input(template: ResourceTemplate) -> WorkloadInput | None:
    """The template as the scheduler would plan it: its binding's inputs, or the interpreter's reading.

    None when the template cannot be interpreted (a malformed quantity in its pod template).
    """
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
            **_context(template),
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
    return WorkloadInput(
        replicas=base.replicas, label=template_label(template), base=base, **_context(template)
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
