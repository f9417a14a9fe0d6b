"""Health collection from the watcher's node and pod inventory against membersim: the same figures as a
direct list, kept current by watch events, and never used once stale (the collection lists instead)."""

import time
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from clusters.collector import collect_cluster
from clusters.inventory_watch import CONFIRMED_WITHIN, InventoryWatch
from clusters.k8s.client import api_client
from clusters.k8s.rest import request
from clusters.models import Cluster, ClusterInventory
from membersim import ClusterSpec
from tests.support.deployments import requesting

pytestmark = pytest.mark.django_db

# What the pages show of a cluster's nodes and pods (spec/health-metrics.md §1.5 and karmada-ui's nodes).
FIGURES = (
    "nodes_total",
    "nodes_ready",
    "cpu_allocatable",
    "memory_allocatable",
    "pods_allocatable",
    "cpu_allocated",
    "memory_allocated",
    "pods_allocated",
    "pod_cidrs",
)


@pytest.fixture
def beijing(simulate, member_kubeconfig, settings):
    settings.HEALTH_CALL_TIMEOUT = 2.0
    sim = simulate(
        ClusterSpec(name="beijing", nodes=4, node_cpu="8", node_memory="32Gi", pod_cidr="10.1.0.0/16")
    )
    call_command("join", "beijing", kubeconfig=str(member_kubeconfig(sim)), context="beijing")
    return sim


@pytest.fixture
def watch():
    """The watcher's inventories of the given clusters, stopped when the test ends."""
    started = []

    def start(*names, **options):
        watched = InventoryWatch(**options)
        watched.refresh({c.name: c.connection() for c in Cluster.objects.filter(name__in=names)})
        started.append(watched)
        return watched

    yield start
    for watched in started:
        watched.stop()


def cluster():
    return Cluster.objects.get(name="beijing")


def client():
    return api_client(cluster().connection(), 5)


def pod(name, cpu):
    container = {"name": "job", "image": "busybox", "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}}}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [container], "restartPolicy": "Never"},
    }


def confirmed(watched, until=lambda c: True, timeout=10.0):
    """Write the inventory until it is confirmed and `until` holds for a collection from it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if watched.write():
            result = collect_cluster(cluster().pk)
            if result.watched and until(cluster()):
                return result
        time.sleep(0.1)
    raise AssertionError(f"the inventory was not confirmed in time: {figures(cluster())}")


def figures(c):
    return {name: getattr(c, name) for name in FIGURES} | {
        "nodeSummary": c.status.get("nodeSummary"),
        "resourceSummary": c.status.get("resourceSummary"),
        "nodes": c.status.get("nodes"),
    }


def test_the_inventory_gives_the_figures_a_direct_list_gives(beijing, watch):
    url = "/apis/apps/v1/namespaces/default/deployments"
    assert request(client(), "POST", url, body=requesting("web", 3, "500m", "1Gi")).status == 201
    assert request(client(), "POST", url, body=requesting("huge", 1, "64", "1Gi")).status == 201  # unbound
    beijing.control("beijing", "node-notready", "beijing-node-2")
    listed = collect_cluster(cluster().pk)
    assert not listed.watched  # no inventory yet: a direct list
    direct = figures(cluster())
    assert direct["pods_allocated"] == 3 and direct["nodes_ready"] == 3
    assert direct["resourceSummary"]["allocating"] == {"cpu": "64", "memory": "1Gi", "pods": "1"}

    watched = watch("beijing")
    confirmed(watched)
    assert figures(cluster()) == direct


def test_watch_events_change_the_figures(beijing, watch):
    watched = watch("beijing")
    confirmed(watched)
    assert cluster().pods_allocated == 0 and cluster().nodes_ready == 4

    url = "/api/v1/namespaces/default/pods"
    assert request(client(), "POST", url, body=pod("one", "250m")).status == 201
    assert request(client(), "POST", url, body=pod("two", "750m")).status == 201
    confirmed(watched, lambda c: c.pods_allocated == 2)
    assert cluster().cpu_allocated == 1000

    # A pod that finishes no longer counts (Karmada's allocated leaves out Succeeded and Failed pods).
    status = {"status": {"phase": "Succeeded"}}
    answer = request(
        client(),
        "PATCH",
        f"{url}/two/status",
        body=status,
        headers={"Content-Type": "application/merge-patch+json"},
    )
    assert answer.status == 200
    confirmed(watched, lambda c: c.pods_allocated == 1)
    assert cluster().cpu_allocated == 250

    assert request(client(), "DELETE", f"{url}/one").status == 200
    confirmed(watched, lambda c: c.pods_allocated == 0)
    assert cluster().cpu_allocated == 0

    beijing.control("beijing", "node-notready", "beijing-node-3")
    confirmed(watched, lambda c: c.nodes_ready == 3)
    assert cluster().status["nodeSummary"] == {"totalNum": 4, "readyNum": 3}
    assert [n["ready"] for n in cluster().status["nodes"]].count(False) == 1


def test_an_inventory_not_confirmed_lately_is_not_used(beijing, watch):
    watched = watch("beijing")
    confirmed(watched)
    watched.stop()
    row = ClusterInventory.objects.get(cluster=cluster())
    # Numbers the watcher would no longer stand behind: a collection must not show them.
    row.pods = {"byNode": {"beijing-node-1": [9000, 1, 90]}, "unbound": [0, 0, 0]}
    row.confirmed_at = timezone.now() - timedelta(seconds=CONFIRMED_WITHIN + 1)
    row.save()
    result = collect_cluster(cluster().pk)
    assert not result.watched
    assert (cluster().cpu_allocated, cluster().pods_allocated) == (0, 0)


def test_a_broken_watch_unconfirms_the_inventory_and_the_collection_lists(beijing, watch):
    watched = watch("beijing", watch_seconds=1)
    confirmed(watched)
    beijing.control("beijing", "errors")  # the watches end and cannot be opened again
    deadline = time.monotonic() + 10
    while watched.write() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert ClusterInventory.objects.get(cluster=cluster()).confirmed_at is None
    beijing.control("beijing", "up")
    assert not collect_cluster(cluster().pk).watched
    confirmed(watched)  # listed again once the cluster answers
