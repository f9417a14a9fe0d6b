"""Failover: taint policies, the NoExecute taint manager and the graceful eviction controller (§4)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from clusters.editing import update_spec, with_taint, without_taint
from clusters.models import Cluster
from core import audit
from kubesyntax.taints import NO_EXECUTE
from scheduling import events
from scheduling.controllers.planner_inputs import cluster_document, cluster_snapshot
from scheduling.controllers.propagation import all_healthy
from scheduling.models import ClusterTaintPolicy, ResourceBinding
from scheduling.planner import InputError, Taint, Toleration
from scheduling.planner.selectors import ClusterAffinity
from scheduling.planner.taints import parse_tolerations

TAINT_MANAGER = "TaintManager"
TAINT_UNTOLERATED = "TaintUntolerated"


def _iso(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _time(text: Any) -> datetime | None:
    return parse_datetime(str(text)) if text else None


# ----------------------------------------------------------------------------------- taint policies


def conditions_hold(conditions: list[dict[str, Any]], matches: list[dict[str, Any]]) -> bool:
    """Every match {conditionType, operator In/NotIn, statusValues} holds (a missing condition is Unknown)."""
    status = {c.get("type"): c.get("status") for c in conditions}
    for match in matches:
        value = status.get(match.get("conditionType"), "Unknown")
        inside = value in (match.get("statusValues") or [])
        if inside != (match.get("operator") == "In"):
            return False
    return bool(matches)


def apply_taint_policies(now: datetime | None = None) -> list[str]:
    """Add or remove each ClusterTaintPolicy's taints on its target clusters; the clusters changed."""
    now = (now or timezone.now()).replace(microsecond=0)
    changed: list[str] = []
    policies = list(ClusterTaintPolicy.objects.all())
    if not policies:
        return changed
    for cluster in Cluster.objects.all():
        document = cluster_document(cluster)
        try:
            snapshot = cluster_snapshot(cluster)
        except InputError:
            continue
        taints = list(cluster.taints)
        for policy in policies:
            target = policy.spec.get("targetClusters")
            if target is not None and not ClusterAffinity.from_dict(target, "targetClusters").matches(
                snapshot
            ):
                continue
            conditions = document["status"]["conditions"]
            for taint in policy.spec.get("taints") or []:
                wanted = Taint(
                    taint["key"],
                    taint.get("value", ""),
                    taint["effect"],
                    now if taint["effect"] == NO_EXECUTE else None,
                )
                if conditions_hold(conditions, policy.spec.get("addOnConditions") or []):
                    taints = with_taint(taints, wanted)
                elif conditions_hold(conditions, policy.spec.get("removeOnConditions") or []):
                    taints = without_taint(taints, wanted.key, wanted.effect)
        if taints != cluster.taints:

            def change(_cluster: Cluster, taints: list[dict[str, Any]] = taints) -> dict[str, Any]:
                return {"taints": taints}

            update_spec(cluster.pk, change, event=("TaintPolicy", "taints set by a ClusterTaintPolicy"))
            changed.append(cluster.name)
    return changed


# -------------------------------------------------------------------------------- the taint manager


@dataclass(frozen=True)
class Verdict:
    """When a binding must leave a cluster: now, at a time, or never (None)."""

    at: datetime | None
    taint: str


def eviction_time(
    taints: list[dict[str, Any]], tolerations: tuple[Toleration, ...], now: datetime
) -> Verdict:
    """Karmada's rule: an untolerated NoExecute taint evicts now; tolerationSeconds evict at the earliest
    timeAdded + seconds; tolerating indefinitely never evicts."""
    earliest: Verdict = Verdict(None, "")
    for raw in taints:
        if raw.get("effect") != NO_EXECUTE:
            continue
        taint = Taint(raw["key"], raw.get("value", ""), NO_EXECUTE)
        matching = [t for t in tolerations if t.tolerates(taint)]
        if not matching:
            return Verdict(now, str(taint))
        bounded = [t.toleration_seconds for t in matching if t.toleration_seconds is not None]
        if not bounded:
            continue  # tolerated for as long as the taint stays
        added = _time(raw.get("timeAdded")) or now
        due = added + timedelta(seconds=max(0, min(bounded)))
        if earliest.at is None or due < earliest.at:
            earliest = Verdict(due, str(taint))
    return earliest


def _tolerations(binding: ResourceBinding) -> tuple[Toleration, ...]:
    placement = binding.applied_placement or binding.placement or {}
    return parse_tolerations(placement.get("clusterTolerations"), "clusterTolerations")


def purge_mode(binding: ResourceBinding) -> str:
    cluster = (binding.failover or {}).get("cluster") or {}
    return cluster.get("purgeMode") or settings.SCHEDULING_NO_EXECUTE_PURGE_MODE


def evict_cluster(
    binding: ResourceBinding,
    cluster: str,
    reason: str,
    message: str,
    now: datetime,
    producer: str = TAINT_MANAGER,
    mode: str = "",
    grace_seconds: int | None = None,
) -> None:
    """GracefulEvictCluster: drop the cluster from spec.clusters and remember it as an eviction task."""
    before = binding.target_replicas()
    replicas = before.get(cluster)
    binding.clusters = [c for c in binding.clusters if c["name"] != cluster]
    task: dict[str, Any] = {
        "fromCluster": cluster,
        "purgeMode": mode or purge_mode(binding),
        "reason": reason,
        "message": message,
        "producer": producer,
        "creationTimestamp": _iso(now),
    }
    if replicas:
        task["replicas"] = replicas
    if grace_seconds:
        task["gracePeriodSeconds"] = grace_seconds
    if task["purgeMode"] == "Never":
        task["suppressDeletion"] = True  # the old copy stays until someone decides
    binding.graceful_eviction_tasks = [
        t for t in binding.graceful_eviction_tasks if t["fromCluster"] != cluster
    ] + [task]
    binding.generation += 1
    binding.save(update_fields=["clusters", "graceful_eviction_tasks", "generation", "updated_at"])
    events.record(
        binding, "Warning", "EvictWorkloadFromCluster", f"evicted from {cluster}: {message}", {"task": task}
    )
    audit.record(
        None,
        "evict",
        binding.template.kind,
        binding.template.name,
        namespace=binding.namespace,
        summary=f"{cluster}: {message} ({task['purgeMode']})",
        before=before,
        after=binding.target_replicas(),
    )


def run_taint_manager(now: datetime | None = None) -> list[int]:
    """Evict bindings from clusters whose NoExecute taints they do not tolerate (in time); the bindings."""
    now = now or timezone.now()
    tainted = {
        c.name: c.taints
        for c in Cluster.objects.all()
        if any(t.get("effect") == NO_EXECUTE for t in c.taints)
    }
    if not tainted:
        return []
    evicted = []
    for binding_id in ResourceBinding.objects.exclude(clusters=[]).values_list("pk", flat=True):
        with transaction.atomic():
            binding = (
                ResourceBinding.objects.select_for_update().select_related("template").get(pk=binding_id)
            )
            try:
                tolerations = _tolerations(binding)
            except InputError:
                continue
            for target in list(binding.clusters):
                taints = tainted.get(target["name"])
                if not taints:
                    continue
                verdict = eviction_time(taints, tolerations, now)
                if verdict.at is not None and verdict.at <= now:
                    evict_cluster(
                        binding,
                        target["name"],
                        TAINT_UNTOLERATED,
                        f"taint {verdict.taint} is not tolerated",
                        now,
                    )
                    evicted.append(binding.pk)
    return sorted(set(evicted))


# ------------------------------------------------------------------------- application failover

APPLICATION_FAILURE = "ApplicationFailure"


def run_application_failover(now: datetime | None = None) -> list[int]:
    """Evict a workload from a cluster where it stayed Unhealthy longer than tolerationSeconds (§4.3)."""
    now = now or timezone.now()
    evicted = []
    candidates = ResourceBinding.objects.exclude(clusters=[]).filter(failover__has_key="application")
    for binding_id in candidates.values_list("pk", flat=True):
        with transaction.atomic():
            binding = (
                ResourceBinding.objects.select_for_update().select_related("template").get(pk=binding_id)
            )
            application = (binding.failover or {}).get("application") or {}
            tolerate = timedelta(
                seconds=(application.get("decisionConditions") or {}).get("tolerationSeconds", 300)
            )
            targets = set(binding.target_replicas())
            failing = binding.works.filter(
                cluster_name__in=targets, deleting=False, unhealthy_since__lte=now - tolerate
            ).values_list("cluster_name", flat=True)
            for cluster in sorted(failing):
                mode = application.get("purgeMode", "Gracefully")
                evict_cluster(
                    binding,
                    cluster,
                    APPLICATION_FAILURE,
                    f"the workload stayed Unhealthy for more than {int(tolerate.total_seconds())}s",
                    now,
                    producer="ResourceBindingController",
                    mode=mode,
                    grace_seconds=application.get("gracePeriodSeconds") if mode == "Gracefully" else None,
                )
                evicted.append(binding.pk)
    return sorted(set(evicted))


# ------------------------------------------------------------------ the graceful eviction controller


def release_evictions(now: datetime | None = None) -> list[int]:
    """Drop eviction tasks once every new cluster is Healthy or the grace period is over; the bindings."""
    now = now or timezone.now()
    default_grace = settings.SCHEDULING_GRACEFUL_EVICTION_TIMEOUT
    released = []
    for binding_id in ResourceBinding.objects.exclude(graceful_eviction_tasks=[]).values_list(
        "pk", flat=True
    ):
        with transaction.atomic():
            binding = ResourceBinding.objects.select_for_update().get(pk=binding_id)
            scheduled = (binding.condition("Scheduled") or {}).get("status") == "True"
            kept = []
            for task in binding.graceful_eviction_tasks:
                created = _time(task.get("creationTimestamp")) or now
                grace = task.get("gracePeriodSeconds") or default_grace
                healthy = scheduled and binding.last_scheduled_time and binding.last_scheduled_time >= created
                healthy = healthy and all_healthy(binding)
                if task.get("suppressDeletion") or (not healthy and now - created < timedelta(seconds=grace)):
                    kept.append(task)
            if kept != binding.graceful_eviction_tasks:
                gone = [t["fromCluster"] for t in binding.graceful_eviction_tasks if t not in kept]
                binding.graceful_eviction_tasks = kept
                binding.save(update_fields=["graceful_eviction_tasks", "updated_at"])
                events.record(
                    binding, "Normal", "GracefulEvictionDone", f"old copies released on {', '.join(gone)}"
                )
                released.append(binding.pk)
    return released
