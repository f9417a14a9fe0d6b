"""What the editor plans against: the scheduler's own fleet snapshots and each workload's planner binding."""

from __future__ import annotations

from scheduling.controllers.planner_inputs import load_snapshots, planner_binding
from scheduling.editor.live_preview import WorkloadInput
from scheduling.karmada.interpreter import workload_of
from scheduling.models import ResourceBinding, ResourceTemplate
from scheduling.planner import Binding, ClusterSnapshot, InputError


def fleet() -> list[ClusterSnapshot]:
    """Every cluster exactly as the scheduler loads it, sorted by name."""
    return sorted(load_snapshots(), key=lambda snapshot: snapshot.name)


def template_label(template: ResourceTemplate) -> str:
    where = f"{template.namespace}/{template.name}" if template.namespace else template.name
    return f"{template.kind} {where}"


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
