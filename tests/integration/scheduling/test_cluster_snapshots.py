"""Cluster snapshots for the planner read a row's status without copying it and leave the row as it was;
the Karmada document of a cluster is still a copy of its own."""

from __future__ import annotations

import copy

from clusters.models import Cluster
from scheduling.controllers.planner_inputs import cluster_document, cluster_snapshot
from tests.support.clusters import schedulable_status

NODES = [
    {
        "name": "node-1",
        "labels": {"disktype": "ssd"},
        "allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"},
        "allocated": {"cpu": "1", "pods": "3"},
        "ready": True,
    }
]


def stored(make_cluster) -> Cluster:
    status = {**schedulable_status(), "nodes": NODES}
    # the Ready condition as last collected; the snapshot takes Ready from the health column instead
    status["conditions"] = [
        {"type": "Ready", "status": "False", "reason": "ClusterNotReachable"},
        {"type": "CompleteAPIEnablements", "status": "True"},
    ]
    return make_cluster("cluster-01", labels={"env": "prod"}, status=status)


def test_a_snapshot_leaves_the_rows_status_as_it_was_and_parses_the_same_as_from_a_copy(make_cluster):
    cluster = stored(make_cluster)
    before = copy.deepcopy(cluster.status)

    snapshot = cluster_snapshot(cluster)

    assert cluster.status == before
    assert snapshot.ready == "True" and snapshot.api_enablements_complete
    assert snapshot.nodes is not None and [n.name for n in snapshot.nodes] == ["node-1"]
    assert snapshot == cluster_snapshot(Cluster.objects.get(pk=cluster.pk))


def test_the_karmada_document_of_a_cluster_shares_nothing_with_the_row(make_cluster):
    cluster = stored(make_cluster)
    document = cluster_document(cluster)
    document["status"]["nodes"][0]["labels"]["disktype"] = "hdd"
    document["status"]["resourceSummary"]["allocatable"]["cpu"] = "1"
    assert cluster.status["nodes"][0]["labels"] == {"disktype": "ssd"}
    assert cluster.status["resourceSummary"]["allocatable"]["cpu"] == "16"
