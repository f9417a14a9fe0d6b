"""When a binding is scheduled at all: Karmada's five conditions, checked in order (spec §2.0)."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any

from scheduling.karmada.suspension import scheduling_suspended
from scheduling.planner import Placement

PLACEMENT_CHANGED = "PlacementChanged"
REPLICAS_CHANGED = "ReplicasChanged"
RESCHEDULE_TRIGGERED = "RescheduleTriggered"
EVERY_RECONCILE = "NotWorkloadOrDuplicated"
CLUSTER_DELETING = "ClusterDeleting"
SCHEDULER_NAME = "default-scheduler"


def _without_terms(placement: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in placement.items() if key != "clusterAffinities"}


def _term(placement: dict[str, Any], name: str) -> Any:
    for term in placement.get("clusterAffinities") or []:
        if term.get("affinityName") == name:
            return term
    return None


def placement_changed(placement: dict[str, Any], applied: dict[str, Any] | None, observed: str) -> bool:
    """The placement differs from the applied one; with clusterAffinities only the observed term counts."""
    if applied is None:
        return True
    if placement.get("clusterAffinities") and applied.get("clusterAffinities"):
        if _without_terms(placement) != _without_terms(applied):
            return True
        names = [term.get("affinityName") for term in placement["clusterAffinities"]]
        current = observed if observed in names else names[0]
        return _term(placement, current) != _term(applied, current)
    return placement != applied


def replicas_differ(placement: dict[str, Any], replicas: int, clusters: list[dict[str, Any]]) -> bool:
    """Divided: the sum differs from spec.replicas; Duplicated: a cluster differs. Needs replicaScheduling."""
    scheduling = placement.get("replicaScheduling")
    if scheduling is None:
        return False
    counts = [int(entry.get("replicas") or 0) for entry in clusters]
    if scheduling.get("replicaSchedulingType", "Divided") == "Duplicated":
        return any(count != replicas for count in counts)
    return sum(counts) != replicas


def is_workload(replicas: int, requirements: Any) -> bool:
    return replicas > 0 or requirements is not None


def schedule_trigger(
    *,
    placement: dict[str, Any],
    applied_placement: dict[str, Any] | None,
    observed_affinity: str,
    replicas: int,
    replica_requirements: Any,
    clusters: list[dict[str, Any]],
    reschedule_triggered_at: datetime | None,
    last_scheduled_time: datetime | None,
    deleting_clusters: Collection[str],
) -> str | None:
    """The first of Karmada's conditions that holds, or None when the binding is left alone."""
    if placement_changed(placement, applied_placement, observed_affinity):
        return PLACEMENT_CHANGED
    if replicas_differ(placement, replicas, clusters):
        return REPLICAS_CHANGED
    if reschedule_triggered_at and last_scheduled_time and reschedule_triggered_at > last_scheduled_time:
        return RESCHEDULE_TRIGGERED
    duplicated = Placement.from_dict(placement).strategy == "Duplicated"
    if not is_workload(replicas, replica_requirements) or duplicated:
        return EVERY_RECONCILE
    if any(entry.get("name") in deleting_clusters for entry in clusters):
        return CLUSTER_DELETING
    return None


def binding_trigger(binding: Any, deleting_clusters: Collection[str] = ()) -> str | None:
    """schedule_trigger for a ResourceBinding row; None also when another scheduler or no policy owns it,
    or while its scheduling is suspended (``spec.suspension.scheduling``)."""
    if binding.scheduler_name != SCHEDULER_NAME or binding.policy_id is None:
        return None
    if scheduling_suspended(binding.suspension):
        return None
    return schedule_trigger(
        placement=binding.placement,
        applied_placement=binding.applied_placement,
        observed_affinity=binding.scheduler_observed_affinity_name,
        replicas=binding.replicas,
        replica_requirements=binding.replica_requirements,
        clusters=binding.clusters,
        reschedule_triggered_at=binding.reschedule_triggered_at,
        last_scheduled_time=binding.last_scheduled_time,
        deleting_clusters=deleting_clusters,
    )
