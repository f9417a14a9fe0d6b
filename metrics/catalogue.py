"""Every metric karmada-ui exposes (name, type, help, labels, buckets), named as Karmada names them."""

from __future__ import annotations

from dataclasses import dataclass

GAUGE, COUNTER, HISTOGRAM = "gauge", "counter", "histogram"

# Prometheus' default buckets, as Karmada uses for cluster_sync_status_duration_seconds (5 ms … 10 s).
DEFAULT_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# Karmada's scheduler: 1 ms doubling, 15 buckets (up to ~16 s).
SCHEDULER_BUCKETS = tuple(round(0.001 * 2**n, 6) for n in range(15))
# Karmada's propagation histograms: 1 ms doubling, 12 buckets (up to ~2 s).
PROPAGATION_BUCKETS = tuple(round(0.001 * 2**n, 6) for n in range(12))


@dataclass(frozen=True)
class MetricDef:
    name: str
    kind: str
    help: str
    labels: tuple[str, ...]
    buckets: tuple[float, ...] = ()

    @property
    def family(self) -> str:
        """The name prometheus_client wants for the family: counters without their `_total`."""
        return self.name.removesuffix("_total") if self.kind == COUNTER else self.name


def _cluster_gauge(name: str, help_text: str) -> MetricDef:
    return MetricDef(name, GAUGE, help_text, ("member_cluster",))


CLUSTER_GAUGES = (
    _cluster_gauge("cluster_ready_state", "State of the cluster: 1 if Ready, else 0."),
    _cluster_gauge("cluster_node_number", "Number of nodes in the cluster."),
    _cluster_gauge("cluster_ready_node_number", "Number of Ready nodes in the cluster."),
    _cluster_gauge("cluster_memory_allocatable_bytes", "Allocatable memory in the cluster, in bytes."),
    _cluster_gauge("cluster_cpu_allocatable_number", "Allocatable CPU in the cluster, in cores."),
    _cluster_gauge("cluster_pod_allocatable_number", "Allocatable pods in the cluster."),
    _cluster_gauge("cluster_memory_allocated_bytes", "Memory requested by bound pods, in bytes."),
    _cluster_gauge("cluster_cpu_allocated_number", "CPU requested by bound pods, in cores."),
    _cluster_gauge("cluster_pod_allocated_number", "Pods bound to nodes in the cluster."),
)

RECORDED = (
    MetricDef(
        "cluster_sync_status_duration_seconds",
        HISTOGRAM,
        "Duration in seconds of one status sync of a member cluster.",
        ("member_cluster",),
        DEFAULT_BUCKETS,
    ),
    MetricDef(
        "cluster_health_probe_duration_seconds",
        HISTOGRAM,
        "Duration in seconds of one /readyz (or /healthz) probe of a member cluster.",
        ("member_cluster",),
        DEFAULT_BUCKETS,
    ),
    MetricDef(
        "karmada_scheduler_schedule_attempts_total",
        COUNTER,
        "Number of attempts to schedule a binding, by result (scheduled or error) and schedule type.",
        ("result", "schedule_type"),
    ),
    MetricDef(
        "karmada_scheduler_e2e_scheduling_duration_seconds",
        HISTOGRAM,
        "End-to-end scheduling latency in seconds, by result and schedule type.",
        ("result", "schedule_type"),
        SCHEDULER_BUCKETS,
    ),
    MetricDef(
        "work_sync_workload_duration_seconds",
        HISTOGRAM,
        "Duration in seconds of applying a Work's workload to a member cluster, by result and cluster.",
        ("result", "member_cluster"),
        PROPAGATION_BUCKETS,
    ),
    MetricDef(
        "karmada_ui_rollout_halts_total",
        COUNTER,
        "Number of times a staged rollout halted because a cluster of a wave failed, by workload binding.",
        ("namespace", "name"),
    ),
)

BY_NAME = {metric.name: metric for metric in (*CLUSTER_GAUGES, *RECORDED)}


def exposed_series_names() -> set[str]:
    """Every series name a scrape can show, including a histogram's _bucket, _sum and _count."""
    names = set()
    for metric in BY_NAME.values():
        if metric.kind == HISTOGRAM:
            names |= {f"{metric.name}_bucket", f"{metric.name}_sum", f"{metric.name}_count"}
        else:
            names.add(metric.name)
    return names
