"""Workloads placed on one cluster: desired replicas from each binding's spec.clusters, ready ones from its
Work's collected status — two queries whatever the number of workloads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models.fields.json import KeyTransform

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


def _placement(row: dict[str, Any], work: dict[str, Any] | None, cluster_name: str) -> Placement:
    """One row from the columns below: `row` has the binding's and template's, `work` the Work's."""
    targets = {entry["name"]: int(entry.get("replicas") or 0) for entry in row["binding__clusters"] or []}
    ready = work["ready"] if work else None
    in_sync = bool(work and work["applied"] and work["applied_hash"] == work["desired_hash"])
    template = ResourceTemplate(
        pk=row["binding__template__id"],
        kind=row["binding__template__kind"],
        namespace=row["binding__template__namespace"],
        name=row["binding__template__name"],
    )
    return Placement(
        template=template,
        desired=targets.get(cluster_name, 0) if row["binding__replicas"] else None,
        ready=int(ready) if isinstance(ready, int | float) and not isinstance(ready, bool) else None,
        health=work["health"] if work else "Unknown",
        applied=in_sync,
        targeted=cluster_name in targets,
        message=work["applied_message"] if work and not in_sync else "",
        suspended=held_here(row["binding__suspension"], cluster_name),
    )


def held_here(suspension: dict[str, Any] | None, cluster_name: str) -> str:
    """What a binding's suspension holds on one cluster, in words for a badge's title."""
    held = []
    if scheduling_suspended(suspension):
        held.append("scheduling")
    if dispatching_suspended(suspension) or cluster_name in suspended_on(suspension):
        held.append("dispatching")
    return ", ".join(held)


# What a placement row reads: never a manifest, a Work's whole status or a binding's aggregatedStatus.
WORK_FIELDS = ("binding_id", "health", "applied", "applied_hash", "desired_hash", "applied_message")
BINDING_FIELDS = (
    "replicas",
    "clusters",
    "suspension",
    "template__id",
    "template__kind",
    "template__namespace",
    "template__name",
)


def list_placements(cluster_name: str) -> list[Placement]:
    """Every workload whose binding targets the cluster or which still has a copy there, by name.

    Two queries, the cluster's Works (indexed by cluster) with their bindings, then the bindings that
    target it without a Work yet, reading only the columns a row shows: the cost follows the workloads
    on this cluster, not the size of the fleet."""
    works = {
        row["binding_id"]: row
        for row in Work.objects.filter(cluster_name=cluster_name)
        .annotate(ready=KeyTransform("readyReplicas", "status"))
        .values(*WORK_FIELDS, "ready", *(f"binding__{name}" for name in BINDING_FIELDS))
    }
    placements = [_placement(row, row, cluster_name) for row in works.values()]
    # spec.clusters is a JSON list; a text match narrows it down portably, the exact check is below.
    waiting = (
        ResourceBinding.objects.filter(clusters__icontains=f'"{cluster_name}"')
        .exclude(pk__in=list(works))
        .values(*BINDING_FIELDS)
    )
    for binding in waiting:
        row = {f"binding__{name}": value for name, value in binding.items()}
        if any(entry.get("name") == cluster_name for entry in row["binding__clusters"] or []):
            placements.append(_placement(row, None, cluster_name))
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
