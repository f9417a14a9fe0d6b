"""/metrics writes byte for byte what prometheus_client writes for the same families, built here as
the families were built before the exposition wrote series by series (label values that need escaping,
empty families, every bucket and +Inf included)."""

import pytest
from django.test import Client
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

from clusters.models import ReadyState
from metrics import recording
from metrics.catalogue import CLUSTER_GAUGES, COUNTER, RECORDED
from observability.exposition import exposition
from observability.values import cluster_gauges, counter_values, histogram_values
from tests.support.clusters import make_cluster

pytestmark = pytest.mark.django_db


class FamiliesCollector:
    """The families as prometheus_client's own builders make them: the reference for the bytes."""

    def collect(self):
        gauges = cluster_gauges()
        for metric in CLUSTER_GAUGES:
            family = GaugeMetricFamily(metric.name, metric.help, labels=list(metric.labels))
            for labels, value in sorted(gauges[metric.name].items()):
                family.add_metric([dict(labels)[key] for key in metric.labels], value)
            yield family
        for metric in RECORDED:
            if metric.kind == COUNTER:
                counter = CounterMetricFamily(metric.family, metric.help, labels=list(metric.labels))
                for labels, value in sorted(counter_values(metric).items()):
                    counter.add_metric([dict(labels)[key] for key in metric.labels], value)
                yield counter
            else:
                histogram = HistogramMetricFamily(metric.name, metric.help, labels=list(metric.labels))
                for labels, values in sorted(histogram_values(metric).items()):
                    histogram.add_metric(
                        [dict(labels)[key] for key in metric.labels], values.buckets, sum_value=values.sum
                    )
                yield histogram


def reference():
    registry = CollectorRegistry(auto_describe=False)
    registry.register(FamiliesCollector())
    return generate_latest(registry)


def test_the_scrape_is_what_prometheus_client_writes_for_the_same_values():
    assert exposition() == reference()  # no cluster, nothing recorded: headers only
    for index, name in enumerate(["east-1", "west-2", "north-3"]):
        make_cluster(
            name,
            ready=ReadyState.TRUE if index else ReadyState.FALSE,
            nodes_total=3,
            cpu_allocatable=12000 + index,
            memory_allocatable=2**36,
        )
        recording.observe(
            "cluster_health_probe_duration_seconds", 0.004 * (index + 1), {"member_cluster": name}
        )
        recording.observe("cluster_health_probe_duration_seconds", 99.0, {"member_cluster": name})  # +Inf
        recording.observe(
            "work_sync_workload_duration_seconds", 0.2, {"result": "success", "member_cluster": name}
        )
    odd = 'we"ird\\name\nhere'
    recording.observe("work_sync_workload_duration_seconds", 1e-7, {"result": "error", "member_cluster": odd})
    recording.count("karmada_ui_rollout_halts_total", {"namespace": "shop", "name": odd}, by=2.5)
    recording.count(
        "karmada_scheduler_schedule_attempts_total",
        {"result": "scheduled", "schedule_type": "ReconcileSchedule"},
    )
    served = Client().get("/metrics").content
    assert served == exposition() == reference()
    assert b'member_cluster="we\\"ird\\\\name\\nhere"' in served
    assert b'cluster_health_probe_duration_seconds_bucket{le="+Inf",member_cluster="east-1"} 2.0' in served
