"""End to end against simulated member clusters: collection feeds /metrics, a stopped cluster fires
ClusterUnhealthy and its webhook, overlapping pod CIDRs are flagged, scheduling and applies are counted."""

from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from clusters.collector import collect_cluster
from clusters.k8s import objects
from clusters.models import Cluster
from membersim import ClusterSpec
from observability import engine
from observability.models import Alert, Delivery, DeliveryState, Receiver
from scheduling.services import apply_yaml

NGINX = (Path(__file__).parents[1] / "scheduling" / "examples" / "nginx-cluster-names.yaml").read_text()


@pytest.fixture
def fast_health(settings):
    settings.HEALTH_CALL_TIMEOUT = 0.5
    settings.HEALTH_FAILURE_THRESHOLD = 3.0
    settings.HEALTH_SUCCESS_THRESHOLD = 3.0
    return settings


def join(sim, member_kubeconfig, *names):
    path = str(member_kubeconfig(sim))
    for name in names:
        call_command("join", name, kubeconfig=path, context=name)
    return {name: Cluster.objects.get(name=name) for name in names}


def scrape():
    response = Client().get("/metrics")
    assert response.status_code == 200
    found = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            found[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return found


def value(found, name, **labels):
    return found.get((name, frozenset(labels.items())))


def pod(name, cpu):
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "nodeName": "beijing-node-1",
            "containers": [{"name": "app", "image": "nginx", "resources": {"requests": {"cpu": cpu}}}],
        },
    }


@pytest.mark.django_db
def test_a_scrape_after_collection_shows_what_the_member_cluster_reports(
    simulate, member_kubeconfig, fast_health
):
    sim = simulate(ClusterSpec(name="beijing", nodes=4, node_cpu="8", node_memory="32Gi"))
    cluster = join(sim, member_kubeconfig, "beijing")["beijing"]
    sim.control("beijing", "node-notready", "beijing-node-2")
    objects.apply_object(cluster.connection(), pod("busy", "2500m"))
    collect_cluster(cluster.pk)

    found = scrape()
    assert value(found, "cluster_ready_state", member_cluster="beijing") == 1
    assert value(found, "cluster_node_number", member_cluster="beijing") == 4
    assert value(found, "cluster_ready_node_number", member_cluster="beijing") == 3
    assert value(found, "cluster_cpu_allocatable_number", member_cluster="beijing") == 32
    assert value(found, "cluster_cpu_allocated_number", member_cluster="beijing") == 2.5
    assert value(found, "cluster_memory_allocatable_bytes", member_cluster="beijing") == 4 * 32 * 2**30
    assert value(found, "cluster_pod_allocatable_number", member_cluster="beijing") == 4 * 110
    assert value(found, "cluster_pod_allocated_number", member_cluster="beijing") == 1
    assert value(found, "cluster_sync_status_duration_seconds_count", member_cluster="beijing") == 1
    assert value(found, "cluster_health_probe_duration_seconds_count", member_cluster="beijing") >= 1

    sim.control("beijing", "node-notready", "beijing-node-3")
    objects.apply_object(cluster.connection(), pod("busier", "4"))
    collect_cluster(cluster.pk)
    found = scrape()
    assert value(found, "cluster_ready_node_number", member_cluster="beijing") == 2
    assert value(found, "cluster_cpu_allocated_number", member_cluster="beijing") == 6.5
    assert value(found, "cluster_sync_status_duration_seconds_count", member_cluster="beijing") == 2
    row = Cluster.objects.get(name="beijing")
    assert value(found, "cluster_ready_node_number", member_cluster="beijing") == row.nodes_ready
    assert value(found, "cluster_cpu_allocated_number", member_cluster="beijing") == row.cpu_allocated / 1000


@pytest.mark.django_db
def test_stopping_a_simulated_cluster_fires_cluster_unhealthy_and_delivers_the_webhook(
    simulate,
    member_kubeconfig,
    fast_health,
    webhook,
    eager_celery,
    django_capture_on_commit_callbacks,
    clock,
):
    fast_health.ALERT_CLUSTER_UNHEALTHY_FOR = 0
    sim = simulate(ClusterSpec(name="beijing", nodes=2), ClusterSpec(name="shanghai", nodes=2))
    clusters = join(sim, member_kubeconfig, "beijing", "shanghai")
    Receiver.objects.create(name="ops", kind="webhook", url=webhook.url)
    for cluster in clusters.values():
        collect_cluster(cluster.pk, clock)
    assert engine.evaluate().fired == []

    sim.control("beijing", "down")
    collect_cluster(clusters["beijing"].pk, clock)
    with django_capture_on_commit_callbacks(execute=True):
        fired = engine.evaluate().fired
    assert len(fired) == 1
    alert = Alert.objects.get(pk=fired[0])
    assert (alert.rule, alert.labels["member_cluster"]) == ("ClusterUnhealthy", "beijing")
    assert webhook.received.wait(5)
    [body] = webhook.bodies
    assert body["status"] == "firing"
    assert body["alerts"][0]["labels"] == {
        "alertname": "ClusterUnhealthy",
        "severity": "critical",
        "member_cluster": "beijing",
    }
    assert Delivery.objects.get().state == DeliveryState.SENT

    sim.control("beijing", "up")
    collect_cluster(clusters["beijing"].pk, clock)
    with django_capture_on_commit_callbacks(execute=True):
        assert engine.evaluate().resolved == [alert.pk]
    assert [b["status"] for b in webhook.bodies] == ["firing", "resolved"]


@pytest.mark.django_db
def test_two_clusters_given_overlapping_pod_cidrs_are_flagged_by_the_network_check(
    simulate, member_kubeconfig, fast_health, api_as, viewer
):
    sim = simulate(
        ClusterSpec(name="beijing", nodes=2, pod_cidr="10.1.0.0/16", service_cidr="10.96.0.0/16"),
        ClusterSpec(name="shanghai", nodes=2, pod_cidr="10.1.0.0/16", service_cidr="10.97.0.0/16"),
        ClusterSpec(name="guangzhou", nodes=2, pod_cidr="10.3.0.0/16", service_cidr="10.98.0.0/16"),
    )
    for cluster in join(sim, member_kubeconfig, "beijing", "shanghai", "guangzhou").values():
        collect_cluster(cluster.pk)
    data = api_as(viewer).get("/api/v1/network-check/").json()
    pod_pairs = {
        (o["cluster_a"], o["cluster_b"]) for o in data["overlaps"] if o["kind_a"] == o["kind_b"] == "pod"
    }
    assert pod_pairs == {("beijing", "shanghai")}
    assert all("guangzhou" not in (o["cluster_a"], o["cluster_b"]) for o in data["overlaps"])
    assert data["flat_networking_possible"] is False


@pytest.fixture
def member_specs():
    """Two plain clusters for the shared `members` fixture: the metrics test needs no labels or regions."""
    return [ClusterSpec(name="cluster-01", nodes=2), ClusterSpec(name="cluster-02", nodes=2)]


def test_scheduling_and_applying_works_are_counted_on_metrics(members):
    apply_yaml(NGINX)
    found = scrape()
    attempts = value(
        found,
        "karmada_scheduler_schedule_attempts_total",
        result="scheduled",
        schedule_type="ReconcileSchedule",
    )
    assert attempts >= 1
    assert (
        value(
            found,
            "karmada_scheduler_e2e_scheduling_duration_seconds_count",
            result="scheduled",
            schedule_type="ReconcileSchedule",
        )
        == attempts
    )
    for cluster in ("cluster-01", "cluster-02"):
        assert (
            value(
                found, "work_sync_workload_duration_seconds_count", result="success", member_cluster=cluster
            )
            >= 1
        )


@pytest.mark.django_db
def test_a_ready_change_seen_by_collection_fires_the_alert_without_waiting_for_beat(
    simulate, member_kubeconfig, fast_health, eager_celery, django_capture_on_commit_callbacks, clock
):
    fast_health.ALERT_CLUSTER_UNHEALTHY_FOR = 0
    sim = simulate(ClusterSpec(name="beijing", nodes=2))
    beijing = join(sim, member_kubeconfig, "beijing")["beijing"]
    collect_cluster(beijing.pk, clock)
    sim.control("beijing", "down")
    with django_capture_on_commit_callbacks(execute=True):
        collect_cluster(beijing.pk, clock)
    assert Alert.objects.filter(
        rule="ClusterUnhealthy", state="firing", labels__member_cluster="beijing"
    ).exists()
