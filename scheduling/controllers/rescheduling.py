"""The reschedulePolicy extension: shed replicas off a cluster whose CPU stays hot, onto feasible others."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from clusters.models import Cluster, ClusterSample
from core import audit
from kubesyntax.durations import DurationError, parse_duration
from kubesyntax.quantities import milli_units
from scheduling import events
from scheduling.controllers.planner_inputs import (
    binding_peers,
    load_snapshots,
    planner_binding,
    planner_placement,
)
from scheduling.karmada.interpreter import requirements_from_json
from scheduling.karmada.suspension import scheduling_suspended
from scheduling.models import ResourceBinding
from scheduling.planner import InputError, plan
from scheduling.planner.dispenser import divide

REASON = "RescheduleByLoad"


@dataclass(frozen=True)
class Heat:
    """A cluster's CPU utilisation over the trigger window: usage and allocatable in millicores."""

    usage: float
    allocatable: float

    @property
    def percent(self) -> float:
        return 100.0 * self.usage / self.allocatable


def sustained_heat(cluster: Cluster, threshold: int, duration: float, now: datetime) -> Heat | None:
    """The latest utilisation when every sample over the whole window is at or above the threshold.

    The window must be covered: a sample at or before its start must exist (so a cluster that only
    just turned hot does not count), and no sample in it may lack usage or fall below the threshold.
    """
    start = now - timedelta(seconds=duration)
    samples = ClusterSample.objects.filter(cluster=cluster, resolution=ClusterSample.RAW, at__lte=now)
    recent = list(samples.filter(at__gt=start).order_by("at"))
    entering = samples.filter(at__lte=start).order_by("-at").first()
    if entering is None:
        return None
    for sample in [entering, *recent]:
        if sample.cpu_usage is None or not sample.cpu_allocatable:
            return None
        if 100.0 * sample.cpu_usage / sample.cpu_allocatable < threshold:
            return None
    last = recent[-1] if recent else entering
    return Heat(float(last.cpu_usage or 0), float(last.cpu_allocatable))


def replicas_to_shed(heat: Heat, threshold: int, cpu_request_milli: int, replicas: int) -> int:
    """Just enough replicas, by their CPU requests, to bring usage strictly under the threshold."""
    excess = heat.usage - threshold / 100.0 * heat.allocatable
    if excess < 0 or cpu_request_milli <= 0:
        return 0
    return min(replicas, math.floor(excess / cpu_request_milli) + 1)


def _policy(binding: ResourceBinding) -> dict[str, Any] | None:
    policy = (binding.placement or {}).get("reschedulePolicy") or {}
    if not policy.get("enable"):
        return None
    try:
        duration = parse_duration((policy.get("trigger") or {}).get("duration", ""))
    except DurationError:
        return None
    return {
        "duration": duration,
        "threshold": int((policy.get("trigger") or {}).get("threshold", 80)),
        "minimum": int((policy.get("policy") or {}).get("minCandidateClusters", 1)),
    }


def rebalance_by_load(now: datetime | None = None) -> list[int]:
    """One pass over the bindings with an enabled reschedulePolicy; the bindings that moved replicas."""
    now = now or timezone.now()
    moved = []
    for binding_id in ResourceBinding.objects.filter(placement__has_key="reschedulePolicy").values_list(
        "pk", flat=True
    ):
        with transaction.atomic():
            binding = (
                ResourceBinding.objects.select_for_update(of=("self",))
                .select_related("template", "policy")
                .get(pk=binding_id)
            )
            if shed_hot_cluster(binding, now):
                moved.append(binding.pk)
    return moved


def shed_hot_cluster(binding: ResourceBinding, now: datetime) -> bool:
    """Move replicas off the hottest sustained-hot target of one binding, when its policy allows."""
    settings = _policy(binding)
    if settings is None or not binding.replicas or not binding.clusters:
        return False
    if scheduling_suspended(binding.suspension):  # an operator holds its placement where it is
        return False
    if binding.last_load_move_at and now - binding.last_load_move_at < timedelta(
        seconds=settings["duration"]
    ):
        return False
    requirements = requirements_from_json(binding.replica_requirements)
    cpu = requirements.resource_request.get("cpu") if requirements else None
    try:
        placement = planner_placement(binding)
    except InputError:
        return False
    if cpu is None or placement.strategy == "Duplicated":
        return False
    request = milli_units(cpu)
    targets = binding.target_replicas()
    clusters = {c.name: c for c in Cluster.objects.filter(name__in=list(targets))}
    hot = []
    for name, replicas in targets.items():
        if name in clusters and replicas:
            heat = sustained_heat(clusters[name], settings["threshold"], settings["duration"], now)
            if heat is not None:
                hot.append((heat.percent, name, heat))
    if not hot:
        return False
    _, source, heat = max(hot)
    count = replicas_to_shed(heat, settings["threshold"], request, targets[source])
    result = plan(load_snapshots(), placement, planner_binding(binding), peers=binding_peers(binding))
    room = {
        c["name"]: int(c.get("allocatable") or 0)
        for c in result.explanation.get("clusters", [])
        if c.get("outcome") != "excluded" and c["name"] != source
    }
    room = {name: free for name, free in room.items() if free > 0}
    window = f"{int(settings['duration'])}s"
    if len(room) < settings["minimum"] or count <= 0:
        events.record(
            binding,
            "Normal",
            "RescheduleSkipped",
            f"{source} CPU {heat.percent:.0f}% >= {settings['threshold']}% for {window}, but only "
            f"{len(room)} feasible cluster(s) with room remain (minCandidateClusters {settings['minimum']})",
        )
        binding.last_load_move_at = now
        binding.save(update_fields=["last_load_move_at", "updated_at"])
        return False
    count = min(count, sum(room.values()))
    shares = {k: v for k, v in divide(count, sorted(room.items()), str(binding.template.uid)).items() if v}
    before = dict(targets)
    targets[source] -= count
    for name, extra in shares.items():
        targets[name] = targets.get(name, 0) + extra
    order = [c["name"] for c in binding.clusters] + sorted(set(shares) - set(before))
    binding.clusters = [{"name": name, "replicas": targets[name]} for name in order if targets[name] > 0]
    binding.last_load_move_at = now
    binding.save(update_fields=["clusters", "last_load_move_at", "updated_at"])
    moves = ", ".join(f"{name} +{extra}" for name, extra in sorted(shares.items()))
    message = (
        f"moved {count} replica(s) off {source}: CPU {heat.percent:.0f}% stayed >= {settings['threshold']}% "
        f"for {window}; {count} x {request}m requested brings it under; to {moves} (by free capacity)"
    )
    events.record(
        binding, "Normal", REASON, message, {"from": source, "to": shares, "before": before, "after": targets}
    )
    audit.record(
        None,
        "reschedule",
        binding.template.kind,
        binding.template.name,
        namespace=binding.namespace,
        summary=message,
        before=before,
        after=binding.target_replicas(),
    )
    return True
