"""End-to-end fixtures: the seed's three simulated clusters, joined and collected by the clusters app."""

from __future__ import annotations

import pytest

from clusters.collector import Clock, collect_cluster
from clusters.k8s import ClusterConnection
from clusters.models import Cluster
from clusters.services import join as join_cluster
from membersim import ClusterSpec, Simulator
from tests.support.eager import eager_tasks
from tests.support.members import store_node_list

SEED = [
    (
        ClusterSpec(
            name="beijing", region="cn-north", zones=["cn-north-a"], provider="aliyun", nodes=5, ssd_nodes=2
        ),
        {"env": "prod", "location/region": "cn-north"},
    ),
    (
        ClusterSpec(
            name="shanghai", region="cn-east", zones=["cn-east-a"], provider="aliyun", nodes=4, ssd_nodes=1
        ),
        {"env": "prod", "location/region": "cn-east"},
    ),
    (
        ClusterSpec(
            name="guangzhou",
            region="cn-south",
            zones=["cn-south-a"],
            provider="tencent",
            nodes=3,
            node_cpu="4",
        ),
        {"env": "staging", "location/region": "cn-south"},
    ),
]


class Fleet:
    """The simulated clusters and their rows; `collect()` runs the clusters app's health collection."""

    def __init__(self, sim: Simulator) -> None:
        self.sim = sim

    def cluster(self, name: str) -> Cluster:
        return Cluster.objects.get(name=name)

    def collect(self, clock: Clock | None = None) -> None:
        for cluster in Cluster.objects.all():
            collect_cluster(cluster.pk, clock)
            store_node_list(Cluster.objects.get(pk=cluster.pk))


@pytest.fixture
def fleet(transactional_db):
    with Simulator([spec for spec, _ in SEED]) as sim, eager_tasks():
        for spec, labels in SEED:
            conn = ClusterConnection(
                name=spec.name, server=sim.endpoint(spec.name), token=sim.token(spec.name)
            )
            join_cluster(spec.name, conn, labels=labels)
        fleet = Fleet(sim)
        fleet.collect()
        yield fleet
