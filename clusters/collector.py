"""Collect one cluster's health and status: probe, debounce Ready, taint, read nodes/pods/metrics, sample."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Q
from django.utils import timezone

from clusters import health, k8s, signals
from clusters.credentials import CredentialsUnreadable
from clusters.editing import update_spec
from clusters.inventory_watch import fresh_inventory
from clusters.k8s import Resources
from clusters.models import Cluster, ClusterEvent, ClusterSample
from clusters.resource_summary import PodTotals
from kubesyntax.resources import format_resource
from metrics.recording import observe as record_metric
from metrics.recording import together as record_metrics_together

log = logging.getLogger(__name__)

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

_executors: dict[tuple[int, str], ThreadPoolExecutor] = {}
_executor_lock = threading.Lock()


def _pool(name: str) -> ThreadPoolExecutor:
    """One pool of IO_THREADS per process and name, created after any fork."""
    key = (os.getpid(), name)
    with _executor_lock:
        if key not in _executors:
            _executors[key] = ThreadPoolExecutor(max_workers=IO_THREADS, thread_name_prefix=name)
        return _executors[key]


def _executor() -> ThreadPoolExecutor:
    """The pool one collection's status reads run on, side by side."""
    return _pool("cluster-io")


def _prober() -> ThreadPoolExecutor:
    """The pool a batch's collections probe and read on (a separate one: each waits on its reads)."""
    return _pool("cluster-probe")


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
    watched: bool = False  # nodes and pods came from the watcher's inventory, not a listing


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
    return bool(claim_many([cluster_id], now))


def claim_many(cluster_ids: list[int], now: datetime) -> list[int]:
    """Take the leases of those clusters no other collection holds, in one statement; the ids taken."""
    ids = sorted({int(pk) for pk in cluster_ids})
    if not ids:
        return []
    until = now + timedelta(seconds=lease_seconds())
    table = connection.ops.quote_name(Cluster._meta.db_table)
    lease = connection.ops.quote_name("lease_until")
    marks = ", ".join(["%s"] * len(ids))
    # Only quoted identifiers and placeholders are interpolated; every value is a parameter.
    sql = (
        f"UPDATE {table} SET {lease} = %s WHERE id IN ({marks}) "  # noqa: S608
        f"AND ({lease} IS NULL OR {lease} < %s) RETURNING id"
    )
    with connection.cursor() as cursor:
        adapt = connection.ops.adapt_datetimefield_value  # as the ORM stores them (naive UTC on SQLite)
        cursor.execute(sql, [adapt(until), *ids, adapt(now)])
        return sorted(row[0] for row in cursor.fetchall())


def collect_cluster(cluster_id: int, clock: Clock | None = None) -> Collected | None:
    """Probe one cluster, fold the result into Ready, fix taints, collect status; None if busy or gone."""
    return collect_clusters([cluster_id], clock).get(cluster_id)


def collect_clusters(cluster_ids: list[int], clock: Clock | None = None) -> dict[int, Collected]:
    """collect_cluster() for many clusters at a cost shared where it can be: one statement takes their
    leases, one reads their rows and one writes their samples; the probes and reads run concurrently
    (IO_THREADS a process) and each result is saved as soon as its cluster answered. By id, what each
    collection saw; a cluster busy elsewhere or gone is left out."""
    clock = clock or Clock()
    taken = claim_many(cluster_ids, clock.now())
    done: dict[int, Collected] = {}
    samples: list[ClusterSample] = []
    try:
        clusters = list(Cluster.objects.filter(pk__in=taken).select_related("inventory"))
        # Both probe metrics of every collection leave in one write at the end, not one each.
        with record_metrics_together():
            for cluster, looked in _looks(clusters, clock):
                result, sample = _finish(cluster, looked)
                done[cluster.pk] = result
                if sample is not None:
                    samples.append(sample)
        ClusterSample.objects.bulk_create(samples)
        return done
    finally:
        # a saved collection released its lease in the same write
        left = [pk for pk in taken if pk not in done]
        if left:
            Cluster.objects.filter(pk__in=left).update(lease_until=None)


def _looks(clusters: list[Cluster], clock: Clock) -> Iterator[tuple[Cluster, _Looked]]:
    """Each cluster with what its calls saw, as they finish; one that fails unexpectedly is logged and
    left out (its lease is released), never the others."""
    if len(clusters) == 1:  # nothing to overlap: no hand-off to the I/O threads
        yield clusters[0], _look(clusters[0], clock)
        return
    pool = _prober()
    futures = {pool.submit(_look, cluster, clock): cluster for cluster in clusters}
    for future in as_completed(futures):
        try:
            looked = future.result()
        except Exception:
            log.exception("collecting cluster %s failed", futures[future].name)
            continue
        yield futures[future], looked


def _probe(conn: k8s.ClusterConnection | None, timeout: float, error: str) -> k8s.HealthProbe:
    if conn is None:
        return k8s.HealthProbe(ok=False, reachable=True, status=None, path="", latency=0.0, message=error)
    return k8s.probe_health(conn, timeout)


@dataclass
class _Looked:
    """What one collection's calls to the cluster saw, before anything is written."""

    before: health.HealthState
    state: health.HealthState
    probe: k8s.HealthProbe
    first_probe: k8s.HealthProbe
    sync_started: float
    now: datetime
    status_fields: dict[str, Any]
    errors: list[str]
    watched: bool = False


def _look(cluster: Cluster, clock: Clock) -> _Looked:
    """Probe (and confirm a change of health), then read the status: calls to the cluster only, no
    database, so it can run on any thread."""
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
    probe = first_probe = _probe(conn, timeout, conn_error)
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
    status_fields: dict[str, Any] = {}
    errors: list[str] = []
    watched = False
    if probe.ok and conn is not None:
        status_fields, errors, watched = _read_status(cluster, conn, now)
    return _Looked(before, state, probe, first_probe, sync_started, now, status_fields, errors, watched)


def _finish(cluster: Cluster, looked: _Looked) -> tuple[Collected, ClusterSample | None]:
    """Write what one collection saw: the row, an event and taints on a change of Ready, the metrics;
    the sample to insert with the others (None: unjoined meanwhile)."""
    state, probe = looked.state, looked.probe
    labels = {"member_cluster": cluster.name}
    if looked.first_probe.reachable:
        record_metric("cluster_health_probe_duration_seconds", looked.first_probe.latency, labels)
    transitioned = state.ready != looked.before.ready
    result = Collected(
        cluster=cluster.name,
        ready=state.ready,
        reason=state.reason,
        probe=probe,
        transitioned=transitioned,
        errors=looked.errors,
        watched=looked.watched,
    )
    sample = _save(cluster, state, probe, looked.status_fields, looked.now, transitioned)
    if transitioned:
        signals.ready_changed.send(sender=Cluster, cluster=cluster.name, ready=state.ready)
    record_metric("cluster_sync_status_duration_seconds", time.monotonic() - looked.sync_started, labels)
    return result, sample


def _observation(probe: k8s.HealthProbe, conn_error: str) -> health.Observation:
    if conn_error:
        return health.Observation(health.FALSE, "StatusCollectionFailed", conn_error)
    return health.observe(probe)


def _read_status(
    cluster: Cluster, conn: k8s.ClusterConnection, now: datetime
) -> tuple[dict[str, Any], list[str], bool]:
    """Read metrics, and nodes and pods unless the watcher holds them fresh, in parallel (version,
    discovery and CIDRs every few minutes).

    The version changes only with an upgrade, so it goes with discovery: one call fewer per cluster
    and cycle, which at a thousand clusters is a thousand requests every interval.
    """
    timeout = settings.HEALTH_CALL_TIMEOUT
    calls: dict[str, Callable[[], Any]] = {"metrics": lambda: k8s.list_node_metrics(conn, timeout)}
    results: dict[str, Any] = {}
    watched = fresh_inventory(cluster, now)
    if watched is not None:  # the watcher's list+watch caches: no listing of every pod each cycle
        results["nodes"], results["pods"] = watched
    else:
        calls["nodes"] = lambda: k8s.list_nodes(conn, timeout)
        calls["pods"] = lambda: PodTotals.of(k8s.list_pods(conn, timeout))
    discovery_due = cluster.discovery_at is None or now - cluster.discovery_at >= discovery_period(cluster.pk)
    if discovery_due:
        calls["version"] = lambda: k8s.get_version(conn, timeout)
        calls["discovery"] = lambda: k8s.list_api_enablements(conn, timeout)
        calls["service_cidrs"] = lambda: k8s.list_service_cidrs(conn, timeout)
    pool = _executor()
    futures = {name: pool.submit(call) for name, call in calls.items()}
    errors: list[str] = []
    for name, future in futures.items():
        try:
            # The client enforces (connect, read) timeouts; this bounds anything beyond them.
            results[name] = future.result(timeout=timeout * 3 + 1)
        except k8s.NotFound:
            results[name] = None  # e.g. no metrics server
        except Exception as exc:  # one failed read must not lose the others
            errors.append(f"{name}: {getattr(exc, 'message', None) or exc}")
    return _status_fields(cluster, results, now), errors, watched is not None


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
    pods: PodTotals | None = results.get("pods")
    if pods is not None:
        allocated, allocating = pods.allocated, pods.unbound
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


def node_list(nodes: list[k8s.NodeInfo], pods: PodTotals) -> list[dict[str, Any]]:
    """karmada-ui's `status.nodes`: each node with what its bound pods request, for the node estimator."""
    requested = pods.by_node
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
) -> ClusterSample | None:
    """Write the row; the sample of this collection, to insert (None: unjoined meanwhile)."""
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
        return None  # unjoined while it was being collected
    if transitioned:
        ClusterEvent.objects.create(
            cluster_id=cluster.pk, at=now, reason=state.reason, message=state.message[:512], ready=state.ready
        )
    if transitioned or not taints_match(cluster.taints, state.ready):
        sync_condition_taints(cluster.pk, state.ready, now)
    for name, value in fields.items():  # the row as written, without reading it back
        setattr(cluster, name, value)
    return sample_of(cluster, now, probe)


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


def sample_of(cluster: Cluster, now: datetime, probe: k8s.HealthProbe) -> ClusterSample:
    """The time-series point of one collection (unsaved)."""
    return ClusterSample(
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
