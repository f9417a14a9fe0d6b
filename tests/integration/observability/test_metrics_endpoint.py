"""/metrics shows Karmada's cluster gauges from the clusters' rows and every recorded counter."""

import pytest
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from clusters.models import Cluster, ReadyState
from metrics import recording


def scrape(client=None, **headers):
    response = (client or Client()).get("/metrics", **headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    return response


def samples(response):
    """{(series name, frozenset(labels)): value} of a scrape."""
    found = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            found[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return found


def value(found, name, **labels):
    return found[(name, frozenset(labels.items()))]


@pytest.mark.django_db
def test_cluster_gauges_carry_member_cluster_and_the_values_the_pages_show():
    Cluster.objects.create(
        name="beijing",
        api_endpoint="https://beijing.example:6443",
        ready=ReadyState.TRUE,
        nodes_total=5,
        nodes_ready=4,
        cpu_allocatable=40_000,
        cpu_allocated=12_500,
        memory_allocatable=160 * 2**30,
        memory_allocated=20 * 2**30,
        pods_allocatable=550,
        pods_allocated=37,
    )
    Cluster.objects.create(name="shanghai", api_endpoint="https://sh.example:6443", ready=ReadyState.UNKNOWN)
    found = samples(scrape())
    assert value(found, "cluster_ready_state", member_cluster="beijing") == 1
    assert value(found, "cluster_ready_state", member_cluster="shanghai") == 0
    assert value(found, "cluster_node_number", member_cluster="beijing") == 5
    assert value(found, "cluster_ready_node_number", member_cluster="beijing") == 4
    assert value(found, "cluster_cpu_allocatable_number", member_cluster="beijing") == 40
    assert value(found, "cluster_cpu_allocated_number", member_cluster="beijing") == 12.5
    assert value(found, "cluster_memory_allocatable_bytes", member_cluster="beijing") == 160 * 2**30
    assert value(found, "cluster_memory_allocated_bytes", member_cluster="beijing") == 20 * 2**30
    assert value(found, "cluster_pod_allocatable_number", member_cluster="beijing") == 550
    assert value(found, "cluster_pod_allocated_number", member_cluster="beijing") == 37
    assert value(found, "cluster_node_number", member_cluster="shanghai") == 0


@pytest.mark.django_db
def test_recorded_counters_and_histograms_add_up_across_calls():
    attempt = {"result": "scheduled", "schedule_type": "ReconcileSchedule"}
    recording.count("karmada_scheduler_schedule_attempts_total", attempt)
    recording.count("karmada_scheduler_schedule_attempts_total", attempt, by=2)
    recording.count("karmada_scheduler_schedule_attempts_total", {**attempt, "result": "error"})
    for seconds in (0.003, 0.2, 0.2, 12.0):
        recording.observe("cluster_sync_status_duration_seconds", seconds, {"member_cluster": "beijing"})

    found = samples(scrape())
    assert value(found, "karmada_scheduler_schedule_attempts_total", **attempt) == 3
    assert value(found, "karmada_scheduler_schedule_attempts_total", **{**attempt, "result": "error"}) == 1
    sync = "cluster_sync_status_duration_seconds"
    assert value(found, f"{sync}_count", member_cluster="beijing") == 4
    assert value(found, f"{sync}_sum", member_cluster="beijing") == pytest.approx(12.403)
    assert value(found, f"{sync}_bucket", member_cluster="beijing", le="0.005") == 1
    assert value(found, f"{sync}_bucket", member_cluster="beijing", le="0.25") == 3
    assert value(found, f"{sync}_bucket", member_cluster="beijing", le="10.0") == 3
    assert value(found, f"{sync}_bucket", member_cluster="beijing", le="+Inf") == 4


@pytest.mark.django_db
def test_every_catalogued_family_is_announced_even_before_anything_is_recorded():
    text = scrape().content.decode()
    for name in (
        "cluster_ready_state",
        "cluster_sync_status_duration_seconds",
        "cluster_health_probe_duration_seconds",
        "karmada_scheduler_schedule_attempts_total",
        "karmada_scheduler_e2e_scheduling_duration_seconds",
        "work_sync_workload_duration_seconds",
    ):
        assert f"# TYPE {name} " in text, name


@pytest.mark.django_db
def test_a_metrics_token_makes_the_endpoint_answer_401_without_it(settings):
    settings.METRICS_TOKEN = "s3cret-scrape-token"
    refused = Client().get("/metrics")
    assert refused.status_code == 401
    assert refused["WWW-Authenticate"].startswith("Bearer")
    assert Client().get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 401
    scrape(HTTP_AUTHORIZATION="Bearer s3cret-scrape-token")


def test_recording_refuses_unknown_metrics_and_wrong_labels():
    with pytest.raises(ValueError, match="not a counter"):
        recording.count("karmada_cluster_status_condition", {})
    with pytest.raises(ValueError, match="takes the labels member_cluster"):
        recording.observe("cluster_sync_status_duration_seconds", 1.0, {"cluster_name": "beijing"})
