"""Collect one cluster's health and status: probe, debounce Ready, taint, read nodes/pods/metrics, sample."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from typing import Any

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from clusters import health, k8s, signals
from clusters.credentials import CredentialsUnreadable
from clusters.editing import update_spec
from clusters.k8s import Resources
from clusters.models import Cluster, ClusterEvent, ClusterSample
from kubesyntax.resources import format_resource
from metrics.recording import observe as record_metric
from metrics.recording import together as record_metrics_together

DISCOVERY_EVERY = timedelta(minutes=10)
MAX_CONFIRMATIONS = 3
# Written by every probe but shown nowhere a watcher reads: changing only these is no change of the cluster.
PROBE_BOOKKEEPING = frozenset(
    {"last_probe_at", "last_success_at", "last_collected_at", "lease_until", "probe_latency_ms"}
)
# Written by every collection even when equal: when it ran, its lease, and the Ready state (small, and
# mark_stale may have changed it since the row was read).
ALWAYS_WRITTEN = frozenset(
    {
        "last_probe_at",
        "last_success_at",
        "last_collected_at",
        "lease_until",
        "ready",
        "ready_reason",
        "ready_message",
        "ready_since",
        "observed",
        "observed_reason",
        "observed_since",
    }
)
IO_THREADS = 32

_executors: dict[int, ThreadPoolExecutor] = {}
_executor_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    """One I/O pool per process, created after any fork."""
    pid = os.getpid()
    with _executor_lock:
        if pid not in _executors:
            _executors[pid] = ThreadPoolExecutor(max_workers=IO_THREADS, thread_name_prefix="cluster-io")
        return _executors[pid]


def thresholds() -> health.Thresholds:
    return health.Thresholds(
        failure=settings.HEALTH_FAILURE_THRESHOLD,
        success=settings.HEALTH_SUCCESS_THRESHOLD,
        unknown_after=settings.HEALTH_UNKNOWN_AFTER,
    )


@dataclass
class Clock:
    """Wall-clock time and sleeping, injectable so tests can step time instead of waiting."""

    now: Callable[[], datetime] = timezone.now
    sleep: Callable[[float], None] = time.sleep


@dataclass
class Collected:
    """What one collection saw, for callers and tests."""

    cluster: str
    ready: str
    reason: str
    probe: k8s.HealthProbe
    transitioned: bool = False
    errors: list[str] = field(default_factory=list)


def state_of(cluster: Cluster) -> health.HealthState:
    return health.HealthState(
        ready=cluster.ready,
        reason=cluster.ready_reason,
        message=cluster.ready_message,
        since=cluster.ready_since,
        observed=cluster.observed,
        observed_reason=cluster.observed_reason,
        observed_since=cluster.observed_since,
    )


def lease_seconds() -> float:
    return (
        max(settings.HEALTH_FAILURE_THRESHOLD, settings.HEALTH_SUCCESS_THRESHOLD)
        + (MAX_CONFIRMATIONS + 6) * settings.HEALTH_CALL_TIMEOUT
        + 5
    )


def claim(cluster_id: int, now: datetime) -> bool:
    """Take the cluster's collection lease so two workers never collect it at once."""
    until = now + timedelta(seconds=lease_seconds())
    return bool(
        Cluster.objects.filter(pk=cluster_id)
        .filter(Q(lease_until__isnull=True) | Q(lease_until__lt=now))
        .update(lease_until=until)
    )


def collect_cluster(cluster_id: int, clock: Clock | None = None) -> Collected | None:
    """Probe one cluster, fold the result into Ready, fix taints, collect status; None if busy or gone."""
    clock = clock or Clock()
    if not claim(cluster_id, clock.now()):
        return None
    saved = False
    try:
        cluster = Cluster.objects.filter(pk=cluster_id).first()
        if cluster is None:
            return None
        # Both probe metrics leave in one write at the end, not one each.
        with record_metrics_together():
            result = _collect(cluster, clock)
        saved = True
        return result
    finally:
        if not saved:  # a saved collection released the lease in the same write
            Cluster.objects.filter(pk=cluster_id).update(lease_until=None)


def _probe(conn: k8s.ClusterConnection | None, timeout: float, error: str) -> k8s.HealthProbe:
    if conn is None:
        return k8s.HealthProbe(ok=False, reachable=True, status=None, path="", latency=0.0, message=error)
    return k8s.probe_health(conn, timeout)


def _collect(cluster: Cluster, clock: Clock) -> Collected:
    limits = thresholds()
    timeout = settings.HEALTH_CALL_TIMEOUT
    conn, conn_error = None, ""
    try:
        conn = cluster.connection()
    except CredentialsUnreadable as exc:
        conn_error = str(exc)

    before = state_of(cluster)
    sync_started = time.monotonic()
    started = clock.now()
    probe = _probe(conn, timeout, conn_error)
    labels = {"member_cluster": cluster.name}
    if probe.reachable:
        record_metric("cluster_health_probe_duration_seconds", probe.latency, labels)
    state = health.advance(before, _observation(probe, conn_error), started, clock.now(), limits)
    # A change of health is confirmed by probing again once the threshold has passed, within this
    # same run, so Ready follows a real change in threshold + one probe, not a whole interval later.
    for _ in range(MAX_CONFIRMATIONS):
        due = health.confirm_at(state, limits)
        if due is None:
            break
        wait = (due - clock.now()).total_seconds()
        if wait > 0:
            clock.sleep(wait)
        started = clock.now()
        probe = _probe(conn, min(timeout, max(1.0, limits.failure / 2)), conn_error)
        state = health.advance(state, _observation(probe, conn_error), started, clock.now(), limits)

    now = clock.now()
    result = Collected(cluster=cluster.name, ready=state.ready, reason=state.reason, probe=probe)
    status_fields: dict[str, Any] = {}
    if probe.ok and conn is not None:
        status_fields, result.errors = _read_status(cluster, conn, now)
    transitioned = state.ready != before.ready
    result.transitioned = transitioned
    _save(cluster, state, probe, status_fields, now, transitioned)
    if transitioned:
        signals.ready_changed.send(sender=Cluster, cluster=cluster.name, ready=state.ready)
    record_metric("cluster_sync_status_duration_seconds", time.monotonic() - sync_started, labels)
    return result


def _observation(probe: k8s.HealthProbe, conn_error: str) -> health.Observation:
    if conn_error:
        return health.Observation(health.FALSE, "StatusCollectionFailed", conn_error)
    return health.observe(probe)


def _read_status(
    cluster: Cluster, conn: k8s.ClusterConnection, now: datetime
) -> tuple[dict[str, Any], list[str]]:
    """Read nodes, pods and metrics in parallel (version, discovery and CIDRs every few minutes).

    The version changes only with an upgrade, so it goes with discovery: one call fewer per cluster
    and cycle, which at a thousand clusters is a thousand requests every interval.
    """
    timeout = settings.HEALTH_CALL_TIMEOUT
    calls: dict[str, Callable[[], Any]] = {
        "nodes": lambda: k8s.list_nodes(conn, timeout),
        "pods": lambda: k8s.list_pods(conn, timeout),
        "metrics": lambda: k8s.list_node_metrics(conn, timeout),
    }
    discovery_due = cluster.discovery_at is None or now - cluster.discovery_at >= discovery_period(cluster.pk)
    if discovery_due:
        calls["version"] = lambda: k8s.get_version(conn, timeout)
        calls["discovery"] = lambda: k8s.list_api_enablements(conn, timeout)
        calls["service_cidrs"] = lambda: k8s.list_service_cidrs(conn, timeout)
    pool = _executor()
    futures = {name: pool.submit(call) for name, call in calls.items()}
    results: dict[str, Any] = {}
    errors: list[str] = []
    for name, future in futures.items():
        try:
            # The client enforces (connect, read) timeouts; this bounds anything beyond them.
            results[name] = future.result(timeout=timeout * 3 + 1)
        except k8s.NotFound:
            results[name] = None  # e.g. no metrics server
        except Exception as exc:  # one failed read must not lose the others
            errors.append(f"{name}: {getattr(exc, 'message', None) or exc}")
    return _status_fields(cluster, results, now), errors


def discovery_period(cluster_id: int) -> timedelta:
    """DISCOVERY_EVERY stretched by up to half per cluster, so clusters joined together (a thousand at
    once) drift apart instead of all running discovery in the same cycle every ten minutes."""
    return DISCOVERY_EVERY * (1 + (cluster_id * 7919 % 97) / 194)


def _status_fields(cluster: Cluster, results: dict[str, Any], now: datetime) -> dict[str, Any]:
    status = dict(cluster.status or {})
    fields: dict[str, Any] = {"last_collected_at": now}
    if results.get("version") is not None:
        status["kubernetesVersion"] = results["version"].git_version
        fields["kubernetes_version"] = results["version"].git_version
    nodes = results.get("nodes")
    if nodes is not None:
        allocatable = sum((n.allocatable for n in nodes), Resources())
        ready = sum(1 for n in nodes if n.ready)
        status["nodeSummary"] = {"totalNum": len(nodes), "readyNum": ready}
        fields.update(
            nodes_total=len(nodes),
            nodes_ready=ready,
            cpu_allocatable=allocatable.cpu_milli,
            memory_allocatable=allocatable.memory_bytes,
            pods_allocatable=allocatable.pods,
            pod_cidrs=sorted({c for n in nodes for c in n.pod_cidrs}),
        )
        summary = dict(status.get("resourceSummary") or {})
        summary["allocatable"] = _resource_list(allocatable)
        status["resourceSummary"] = summary
    pods = results.get("pods")
    if pods is not None:
        allocated = sum((p.requests for p in pods if p.node_name), Resources())
        allocating = sum((p.requests for p in pods if not p.node_name), Resources())
        summary = dict(status.get("resourceSummary") or {})
        summary["allocated"] = _resource_list(allocated)
        summary["allocating"] = _resource_list(allocating)
        status["resourceSummary"] = summary
        fields.update(
            cpu_allocated=allocated.cpu_milli,
            memory_allocated=allocated.memory_bytes,
            pods_allocated=allocated.pods,
        )
    if "metrics" in results:
        metrics = results["metrics"]
        fields["cpu_usage"] = sum(m.cpu_milli for m in metrics) if metrics is not None else None
        fields["memory_usage"] = sum(m.memory_bytes for m in metrics) if metrics is not None else None
    if nodes is not None and pods is not None:
        status["nodes"] = node_list(nodes, pods)
    discovery = results.get("discovery")
    if discovery is not None:
        status["apiEnablements"] = [
            {"groupVersion": e.group_version, "resources": [{"name": n, "kind": k} for n, k in e.resources]}
            for e in discovery.enablements
        ]
        status["conditions"] = _with_condition(
            status.get("conditions") or [],
            "CompleteAPIEnablements",
            "True" if discovery.complete else "False",
            "Complete" if discovery.complete else ("Partial" if discovery.enablements else "Empty"),
            "" if discovery.complete else "failed: " + ", ".join(discovery.failed_groups),
            now,
        )
        fields["discovery_at"] = now
    if results.get("service_cidrs") is not None:
        fields["service_cidrs"] = results["service_cidrs"]
    fields["status"] = status
    return fields


def node_list(nodes: list[k8s.NodeInfo], pods: list[k8s.PodInfo]) -> list[dict[str, Any]]:
    """karmada-ui's `status.nodes`: each node with what its bound pods request, for the node estimator."""
    requested: dict[str, Resources] = {}
    for pod in pods:
        if pod.node_name:
            requested[pod.node_name] = requested.get(pod.node_name, Resources()) + pod.requests
    return [
        {
            "name": node.name,
            "labels": dict(node.labels),
            "taints": [dict(t) for t in node.taints],
            "ready": node.ready,
            "unschedulable": node.unschedulable,
            "allocatable": _resource_list(node.allocatable),
            "allocated": _resource_list(requested.get(node.name, Resources())),
        }
        for node in nodes
    ]


def _resource_list(resources: Resources) -> dict[str, str]:
    return {
        "cpu": format_resource("cpu", Fraction(resources.cpu_milli, 1000)),
        "memory": format_resource("memory", Fraction(resources.memory_bytes)),
        "pods": str(resources.pods),
    }


def _with_condition(
    conditions: list[dict[str, Any]], type_: str, status: str, reason: str, message: str, now: datetime
) -> list[dict[str, Any]]:
    """Conditions with `type_` set; lastTransitionTime moves only when the status changes."""
    old = next((c for c in conditions if c.get("type") == type_), None)
    when = old.get("lastTransitionTime") if old and old.get("status") == status else _iso(now)
    new = {"type": type_, "status": status, "reason": reason, "message": message, "lastTransitionTime": when}
    return [*(c for c in conditions if c.get("type") != type_), new]


def _iso(when: datetime | None) -> str | None:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if when else None


def _save(
    cluster: Cluster,
    state: health.HealthState,
    probe: k8s.HealthProbe,
    status_fields: dict[str, Any],
    now: datetime,
    transitioned: bool,
) -> None:
    status = status_fields.pop("status", None) or dict(cluster.status or {})
    ready = {
        "type": "Ready",
        "status": state.ready,
        "reason": state.reason,
        "message": state.message,
        "lastTransitionTime": _iso(state.since or now),
    }
    status["conditions"] = [ready, *(c for c in status.get("conditions") or [] if c.get("type") != "Ready")]
    fields = {
        **status_fields,
        "status": status,
        "ready": state.ready,
        "ready_reason": state.reason,
        "ready_message": state.message[:512],
        "ready_since": state.since,
        "observed": state.observed,
        "observed_reason": state.observed_reason,
        "observed_since": state.observed_since,
        "last_probe_at": now,
        "probe_latency_ms": round(probe.latency * 1000, 2) if probe.reachable else None,
        "lease_until": None,  # the collection is done: release the lease in the same write
    }
    if probe.ok:
        fields["last_success_at"] = now
    # Only what changed, and the times that always do: a steady fleet's status (nodes, conditions)
    # is the same every cycle, and encoding and writing it for a thousand clusters is most of the cost.
    changed = {name for name, value in fields.items() if getattr(cluster, name) != value}
    written = {name: fields[name] for name in fields if name in ALWAYS_WRITTEN or name in changed}
    if changed - PROBE_BOOKKEEPING:
        # what the cluster shows changed: move its change time, the Kubernetes API's resourceVersion,
        # so a watch sees it (in the same statement: no extra write)
        written["updated"] = timezone.now()
    if not Cluster.objects.filter(pk=cluster.pk).update(**written):
        return  # unjoined while it was being collected
    if transitioned:
        ClusterEvent.objects.create(
            cluster_id=cluster.pk, at=now, reason=state.reason, message=state.message[:512], ready=state.ready
        )
    if transitioned or not taints_match(cluster.taints, state.ready):
        sync_condition_taints(cluster.pk, state.ready, now)
    for name, value in fields.items():  # the row as written, without reading it back
        setattr(cluster, name, value)
    record_sample(cluster, now, probe)


def taints_match(taints: list[dict[str, Any]], ready: str) -> bool:
    """The automatic NoSchedule taints on the row are exactly those its Ready status calls for."""
    automatic = {health.NOT_READY_TAINT, health.UNREACHABLE_TAINT}
    present = {t.get("key") for t in taints if t.get("key") in automatic and t.get("effect") == "NoSchedule"}
    return present == health.condition_taints(ready)


def sync_condition_taints(cluster_id: int, ready: str, now: datetime) -> None:
    """Level-triggered: the automatic NoSchedule taints match the Ready status, whatever they were."""
    wanted = health.condition_taints(ready)
    automatic = {health.NOT_READY_TAINT, health.UNREACHABLE_TAINT}
    stamp = _iso(now.replace(microsecond=0))

    def change(cluster: Cluster) -> dict[str, Any]:
        kept = [
            t
            for t in cluster.taints
            if not (
                t.get("key") in automatic and t.get("effect") == "NoSchedule" and t.get("key") not in wanted
            )
        ]
        have = {t.get("key") for t in kept if t.get("effect") == "NoSchedule"}
        added = [{"key": k, "effect": "NoSchedule", "timeAdded": stamp} for k in sorted(wanted - have)]
        return {"taints": kept + added}

    update_spec(cluster_id, change)


def record_sample(cluster: Cluster, now: datetime, probe: k8s.HealthProbe) -> None:
    ClusterSample.objects.create(
        cluster=cluster,
        at=now,
        ready=1.0 if cluster.ready == health.TRUE else 0.0,
        reachable=1.0 if probe.reachable else 0.0,
        latency_ms=round(probe.latency * 1000, 2) if probe.reachable else None,
        nodes_total=cluster.nodes_total,
        nodes_ready=cluster.nodes_ready,
        pods=cluster.pods_allocated,
        cpu_allocatable=cluster.cpu_allocatable,
        cpu_allocated=cluster.cpu_allocated,
        cpu_usage=cluster.cpu_usage if probe.ok else None,
        memory_allocatable=cluster.memory_allocatable,
        memory_allocated=cluster.memory_allocated,
        memory_usage=cluster.memory_usage if probe.ok else None,
    )


def mark_stale(clock: Clock | None = None) -> list[str]:
    """Ready=Unknown (and the unreachable taint) for clusters no probe has reached for a while."""
    clock = clock or Clock()
    limits = thresholds()
    now = clock.now()
    cutoff = now - timedelta(seconds=limits.unknown_after)
    changed = []
    never_probed = Q(last_probe_at__isnull=True, created__lt=cutoff)
    for cluster in Cluster.objects.filter(Q(last_probe_at__lt=cutoff) | never_probed).exclude(
        ready=health.UNKNOWN
    ):
        state = health.stale(state_of(cluster), cluster.last_probe_at or cluster.created, now, limits)
        if state.ready != health.UNKNOWN:
            continue
        written = (
            Cluster.objects.filter(pk=cluster.pk, last_probe_at=cluster.last_probe_at)
            .exclude(ready=health.UNKNOWN)
            .update(
                updated=timezone.now(),
                ready=state.ready,
                ready_reason=state.reason,
                ready_message=state.message,
                ready_since=state.since,
                observed="",
                observed_reason="",
                observed_since=None,
            )
        )
        if written:
            ClusterEvent.objects.create(
                cluster=cluster, at=now, reason=state.reason, message=state.message, ready=state.ready
            )
            sync_condition_taints(cluster.pk, state.ready, now)
            changed.append(cluster.name)
    return changed
