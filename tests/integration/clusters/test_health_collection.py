"""Health collection against membersim: numbers as the member reports them, NotReady and tainted within 15 s
of a cluster going down, Ready again after it returns, Unknown when no probe completes."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from clusters.collector import collect_cluster, mark_stale
from clusters.models import Cluster, ClusterEvent, ClusterSample
from membersim import ClusterSpec
from tests.support.deployments import requesting

pytestmark = pytest.mark.django_db
INTERVAL = 10.0


@pytest.fixture
def fast_health(settings):
    settings.HEALTH_CALL_TIMEOUT = 0.5
    settings.HEALTH_FAILURE_THRESHOLD = 3.0
    settings.HEALTH_SUCCESS_THRESHOLD = 5.0
    settings.HEALTH_UNKNOWN_AFTER = 40.0
    return settings


@pytest.fixture
def beijing(simulate, member_kubeconfig, fast_health):
    sim = simulate(
        ClusterSpec(name="beijing", nodes=4, node_cpu="8", node_memory="32Gi", pod_cidr="10.1.0.0/16")
    )
    call_command("join", "beijing", kubeconfig=str(member_kubeconfig(sim)), context="beijing")
    return sim


def cluster():
    return Cluster.objects.get(name="beijing")


def taint_keys():
    return {t["key"] for t in cluster().taints}


def test_collection_records_what_the_member_cluster_reports(beijing):
    beijing.control("beijing", "node-notready", "beijing-node-2")
    result = collect_cluster(cluster().pk)
    assert result.ready == "True" and result.errors == []
    c = cluster()
    assert (c.nodes_total, c.nodes_ready) == (4, 3)
    assert (c.cpu_allocatable, c.memory_allocatable, c.pods_allocatable) == (
        4 * 8000,
        4 * 32 * 2**30,
        4 * 110,
    )
    assert c.pod_cidrs == ["10.1.0.0/24", "10.1.1.0/24", "10.1.2.0/24", "10.1.3.0/24"]
    assert c.status["nodeSummary"] == {"totalNum": 4, "readyNum": 3}
    assert c.status["resourceSummary"]["allocatable"] == {"cpu": "32", "memory": "128Gi", "pods": "440"}
    assert c.status["kubernetesVersion"] == "v1.31.4"
    assert "apps/v1" in [e["groupVersion"] for e in c.status["apiEnablements"]]
    assert [x["type"] for x in c.status["conditions"]] == ["Ready", "CompleteAPIEnablements"]
    assert c.cpu_usage is not None and c.memory_usage is not None
    assert ClusterSample.objects.filter(cluster=c).count() == 1


def test_a_cluster_that_stops_answering_is_not_ready_and_tainted_within_15_seconds(beijing, clock):
    collect_cluster(cluster().pk, clock)
    beijing.control("beijing", "down")
    went_down = clock.now()
    # The worst case: the outage starts just after a probe, so the next cycle is a whole interval away.
    clock.advance(INTERVAL)
    collect_cluster(cluster().pk, clock)
    c = cluster()
    assert (c.ready, c.ready_reason) == ("False", "ClusterNotReachable")
    assert (c.ready_since - went_down).total_seconds() <= 15
    assert "cluster.karmada.io/not-ready" in taint_keys()
    assert ClusterEvent.objects.filter(cluster=c, reason="ClusterNotReachable", ready="False").exists()

    beijing.control("beijing", "up")
    came_back = clock.now()
    clock.advance(INTERVAL)
    collect_cluster(cluster().pk, clock)
    c = cluster()
    assert c.ready == "True"
    assert (c.ready_since - came_back).total_seconds() <= 20
    assert "cluster.karmada.io/not-ready" not in taint_keys()


def test_a_cluster_answering_errors_is_not_ready_with_its_own_reason(beijing, clock):
    beijing.control("beijing", "errors")
    collect_cluster(cluster().pk, clock)
    c = cluster()
    assert (c.ready, c.ready_reason) == ("False", "ClusterNotReady")
    assert "503" in c.ready_message


def test_clusters_without_a_recent_probe_become_unknown_with_the_unreachable_taint(beijing, clock):
    collect_cluster(cluster().pk, clock)
    clock.advance(39)
    assert mark_stale(clock) == []
    clock.advance(2)
    assert mark_stale(clock) == ["beijing"]
    c = cluster()
    assert (c.ready, c.ready_reason) == ("Unknown", "ClusterStatusUnknown")
    assert "cluster.karmada.io/unreachable" in taint_keys()
    collect_cluster(cluster().pk, clock)
    assert cluster().ready == "True"
    assert not taint_keys()


def test_collection_keeps_user_taints_and_changes_nothing_when_nothing_changed(beijing):
    from clusters.services import cordon

    cordon(cluster())
    version = cluster().resource_version
    collect_cluster(cluster().pk)
    collect_cluster(cluster().pk)
    assert cluster().resource_version == version
    assert taint_keys() == {"cluster.karmada.io/unschedulable"}


def test_a_cluster_being_collected_is_not_collected_twice_at_once(beijing):
    from clusters.collector import claim

    assert claim(cluster().pk, timezone.now())
    assert collect_cluster(cluster().pk) is None


def test_allocated_allocating_and_usage_match_what_the_member_reports(beijing):
    from clusters.k8s.client import api_client
    from clusters.k8s.rest import get_json, request

    client = api_client(cluster().connection(), 5)
    url = "/apis/apps/v1/namespaces/default/deployments"
    assert request(client, "POST", url, body=requesting("web", 3, "500m", "1Gi")).status == 201
    assert request(client, "POST", url, body=requesting("huge", 1, "64", "1Gi")).status == 201  # fits no node
    collect_cluster(cluster().pk)
    c = cluster()
    pods = get_json(client, "/api/v1/pods")["items"]
    bound = [p for p in pods if p["spec"].get("nodeName")]
    assert len(bound) == 3 and len(pods) == 4
    assert (c.cpu_allocated, c.memory_allocated, c.pods_allocated) == (1500, 3 * 2**30, 3)
    assert c.status["resourceSummary"]["allocated"] == {"cpu": "1500m", "memory": "3Gi", "pods": "3"}
    assert c.status["resourceSummary"]["allocating"] == {"cpu": "64", "memory": "1Gi", "pods": "1"}
    nodes = {n["name"]: n for n in c.status["nodes"]}
    assert len(nodes) == 4
    for pod in bound:
        assert pod["spec"]["nodeName"] in nodes
    assert sum(int(n["allocated"]["pods"]) for n in nodes.values()) == 3
    assert nodes["beijing-node-1"]["allocatable"] == {"cpu": "8", "memory": "32Gi", "pods": "110"}
    assert all(n["ready"] and not n["unschedulable"] for n in nodes.values())
    from scheduling.controllers.planner_inputs import (
        cluster_snapshot,  # the scheduler's node estimator reads this list
    )

    assert [node.name for node in cluster_snapshot(c).nodes] == sorted(nodes)
    usage = get_json(client, "/apis/metrics.k8s.io/v1beta1/nodes")["items"]
    from clusters.k8s.reads import resources_of

    assert c.cpu_usage == sum(resources_of(n["usage"]).cpu_milli for n in usage)
    assert c.memory_usage == sum(resources_of(n["usage"]).memory_bytes for n in usage)


def test_a_cluster_never_probed_since_it_joined_becomes_unknown(fast_health):
    stale = Cluster.objects.create(name="quiet", api_endpoint="https://h", ready="True")
    Cluster.objects.filter(pk=stale.pk).update(created=timezone.now() - timedelta(minutes=5))
    Cluster.objects.create(name="fresh", api_endpoint="https://h", ready="True")
    assert mark_stale() == ["quiet"]
    assert dict(Cluster.objects.values_list("name", "ready")) == {"quiet": "Unknown", "fresh": "True"}


def test_a_steady_collection_needs_five_queries_and_writes_only_what_changed(
    beijing, django_assert_max_num_queries
):
    collect_cluster(cluster().pk)  # the first one runs discovery and writes the whole status
    before = cluster()
    # claim, read, one write of the result (lease released in it), the sample, the metrics
    with django_assert_max_num_queries(5) as captured:
        result = collect_cluster(before.pk)
    assert result.ready == "True"
    write = next(q["sql"] for q in captured.captured_queries if q["sql"].startswith("UPDATE"))
    assert '"status"' not in write.split("WHERE")[0]  # the same nodes and conditions: not re-written
    after = cluster()
    assert after.status == before.status and after.lease_until is None
    assert after.last_probe_at > before.last_probe_at
    beijing.control("beijing", "node-notready", "beijing-node-2")
    collect_cluster(cluster().pk)
    assert cluster().status["nodeSummary"] == {"totalNum": 4, "readyNum": 3}


def test_a_batch_collects_its_clusters_together_and_leaves_out_one_collected_elsewhere(
    simulate, member_kubeconfig, fast_health
):
    from clusters.collector import claim, collect_clusters

    names = ("east-1", "east-2", "east-3")
    sim = simulate(*(ClusterSpec(name=name, nodes=index + 1) for index, name in enumerate(names)))
    call_command("join", kubeconfig=str(member_kubeconfig(sim)), all_contexts=True)
    ids = dict(Cluster.objects.values_list("name", "id"))
    assert claim(ids["east-3"], timezone.now())  # another worker holds it
    done = collect_clusters(list(ids.values()))
    assert {result.cluster: result.ready for result in done.values()} == {"east-1": "True", "east-2": "True"}
    rows = {c.name: c for c in Cluster.objects.all()}
    assert (rows["east-1"].nodes_total, rows["east-2"].nodes_total) == (1, 2)
    assert rows["east-1"].lease_until is None and rows["east-3"].lease_until is not None
    assert sorted(ClusterSample.objects.values_list("cluster__name", flat=True)) == ["east-1", "east-2"]


def test_a_lease_is_taken_once_until_it_runs_out(beijing):
    from clusters.collector import claim, claim_many, lease_seconds

    now = timezone.now()
    pk = cluster().pk
    assert claim_many([pk, pk + 1000], now) == [pk]  # a cluster that is gone is not taken
    assert not claim(pk, now)
    assert cluster().lease_until == now + timedelta(seconds=lease_seconds())
    assert claim_many([pk], now + timedelta(seconds=lease_seconds() + 1)) == [pk]
