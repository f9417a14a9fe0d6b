"""/metrics and the header's fleet line take the same number of queries for 3 clusters as for 30."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from clusters.models import Cluster, ReadyState
from karmada_ui.header import fleet_summary
from metrics import recording
from observability.models import Alert, AlertState

pytestmark = pytest.mark.django_db


def grow_fleet(clusters, start=0):
    """Clusters in every Ready state, each with recorded histograms and counters, and firing alerts."""
    states = (ReadyState.TRUE, ReadyState.FALSE, ReadyState.UNKNOWN)
    for index in range(start, start + clusters):
        name = f"member-{index:03d}"
        Cluster.objects.create(
            name=name, api_endpoint=f"https://{name}.example:6443", ready=states[index % 3], nodes_total=3
        )
        recording.observe("cluster_health_probe_duration_seconds", 0.01 * index, {"member_cluster": name})
        recording.observe(
            "work_sync_workload_duration_seconds", 0.2, {"result": "success", "member_cluster": name}
        )
        recording.count(
            "karmada_scheduler_schedule_attempts_total",
            {"result": "scheduled", "schedule_type": "ReconcileSchedule"},
        )
        Alert.objects.create(
            rule="ClusterUnhealthy",
            fingerprint=name,
            labels={"member_cluster": name},
            state=AlertState.FIRING,
            active_since=timezone.now(),
            last_evaluated=timezone.now(),
        )


def queries_of(call):
    with CaptureQueriesContext(connection) as captured:
        call()
    return len(captured.captured_queries)


def scrape():
    response = Client().get("/metrics")
    assert response.status_code == 200


@pytest.mark.parametrize("call", [scrape, fleet_summary], ids=["metrics", "fleet line"])
def test_ten_times_the_fleet_takes_no_more_queries(call, django_assert_max_num_queries):
    grow_fleet(3)
    small = queries_of(call)
    grow_fleet(27, start=3)  # 30 in all
    with django_assert_max_num_queries(small):
        call()
    assert small <= 8


def test_the_fleet_line_counts_every_cluster_and_alert():
    grow_fleet(30)
    assert fleet_summary() == "30 clusters · 10 Ready · 10 NotReady · 10 Unknown · 30 alerts firing"
