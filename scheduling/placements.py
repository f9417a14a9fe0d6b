"""Workloads placed on one cluster: desired replicas from each binding's spec.clusters, ready ones from its
Work's collected status — two queries whatever the number of workloads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scheduling.karmada.suspension import dispatching_suspended, scheduling_suspended, suspended_on
from scheduling.models import Event, ResourceBinding, ResourceTemplate, Work

PLACEMENT_SORTS = ("name", "-name", "desired", "-desired", "ready", "-ready")


@dataclass(frozen=True)
class Placement:
    """One workload on the cluster: `targeted` is False while a copy stays after the cluster left
    spec.clusters (graceful eviction, or deletion in progress)."""

    template: ResourceTemplate
    desired: int | None
    ready: int | None
    health: str
    applied: bool
    targeted: bool
    message: str = ""
    # what is held for this workload here: "scheduling", "dispatching", or both ("" when nothing)
    suspended: str = ""

    @property
    def sort_name(self) -> tuple[str, str, str]:
        return (self.template.namespace, self.template.name, self.template.kind)


def _placement(binding: ResourceBinding, work: Work | None, cluster_name: str) -> Placement:
    targets = binding.target_replicas()
    status: dict[str, Any] = (work.status or {}) if work else {}
    ready = status.get("readyReplicas")
    targeted = cluster_name in targets
    desired = targets.get(cluster_name, 0) if binding.replicas else None
    return Placement(
        template=binding.template,
        desired=desired,
        ready=int(ready) if isinstance(ready, int | float) else None,
        health=work.health if work else "Unknown",
        applied=bool(work and work.in_sync),
        targeted=targeted,
        message=work.applied_message if work and not work.in_sync else "",
        suspended=held_here(binding.suspension, cluster_name),
    )


def held_here(suspension: dict[str, Any] | None, cluster_name: str) -> str:
    """What a binding's suspension holds on one cluster, in words for a badge's title."""
    held = []
    if scheduling_suspended(suspension):
        held.append("scheduling")
    if dispatching_suspended(suspension) or cluster_name in suspended_on(suspension):
        held.append("dispatching")
    return ", ".join(held)


def list_placements(cluster_name: str) -> list[Placement]:
    """Every workload whose binding targets the cluster or which still has a copy there, by name."""
    works = {
        w.binding_id: w
        for w in Work.objects.filter(cluster_name=cluster_name).select_related("binding__template")
    }
    bindings = {w.binding_id: w.binding for w in works.values()}
    # spec.clusters is a JSON list; a text match narrows it down portably, the exact check is below.
    for binding in (
        ResourceBinding.objects.filter(clusters__icontains=f'"{cluster_name}"')
        .exclude(pk__in=list(bindings))
        .select_related("template")
    ):
        bindings[binding.pk] = binding
    placements = [
        _placement(binding, works.get(pk), cluster_name)
        for pk, binding in bindings.items()
        if pk in works or cluster_name in binding.target_replicas()
    ]
    return sorted(placements, key=lambda p: p.sort_name)


def filter_placements(placements: list[Placement], text: str) -> list[Placement]:
    """Keep placements whose kind, namespace/name contain every word of `text` (case-insensitive)."""
    words = text.lower().split()
    if not words:
        return placements
    return [
        p
        for p in placements
        if all(w in f"{p.template.kind} {p.template.namespace}/{p.template.name}".lower() for w in words)
    ]


def sort_placements(placements: list[Placement], sort: str) -> list[Placement]:
    key = sort.lstrip("-")
    if key == "name":
        ordered = sorted(placements, key=lambda p: p.sort_name)
    else:
        ordered = sorted(placements, key=lambda p: (getattr(p, key) or 0, p.sort_name))
    return list(reversed(ordered)) if sort.startswith("-") else ordered


MOVE_REASONS = ("EvictWorkloadFromCluster", "GracefulEvictionDone", "RescheduleByLoad")


@dataclass(frozen=True)
class Move:
    """A failover or reschedule event, with the workload it moved (None once the workload is gone)."""

    event: Event
    template_id: int | None


def recent_moves(limit: int = 10) -> list[Move]:
    """The last failovers and reschedules, newest first — two queries."""
    found = list(Event.objects.filter(reason__in=MOVE_REASONS)[:limit])
    names = {(e.object_namespace, e.object_name) for e in found}
    templates = {
        (namespace, name): template_id
        for namespace, name, template_id in ResourceBinding.objects.filter(
            name__in={name for _, name in names}
        ).values_list("namespace", "name", "template_id")
    }
    return [Move(e, templates.get((e.object_namespace, e.object_name))) for e in found]
