"""The member watcher over TLS, as real members speak: its multiplexed streams read encrypted watches."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from clusters.k8s import ClusterConnection, objects
from clusters.models import Cluster
from membersim import Simulator
from scheduling.member_watch import Watcher
from scheduling.models import Work
from scheduling.services import apply_yaml
from tests.support.eager import eager_tasks
from tests.support.members import member_object, member_spec, observe

NGINX = (Path(__file__).parent / "examples" / "nginx-cluster-names.yaml").read_text()
SPECS = [member_spec("cluster-01", labels={"env": "prod"}), member_spec("cluster-02", labels={"env": "prod"})]


@pytest.fixture
def tls_members(transactional_db):
    with Simulator(list(SPECS), tls=True) as sim, eager_tasks():
        registered = {}
        for spec in SPECS:
            cluster = Cluster(name=spec.name, region=spec.region, labels=dict(spec.labels), ready="True")
            cluster.set_connection(
                ClusterConnection(
                    name=spec.name,
                    server=sim.endpoint(spec.name),
                    token=sim.token(spec.name),
                    ca_data=sim.ca_pem().encode(),
                )
            )
            cluster.save()
            observe(cluster)
            registered[spec.name] = cluster
        yield registered


def replicas(cluster: Cluster) -> int | None:
    live = member_object(cluster, "apps/v1", "Deployment", "nginx")
    return None if live is None else live["spec"]["replicas"]


def test_a_copy_edited_by_hand_on_a_tls_member_is_repaired_from_its_watch_event(tls_members):
    assert all(cluster.connection().server.startswith("https://") for cluster in tls_members.values())
    apply_yaml(NGINX)
    member = tls_members["cluster-01"]
    assert replicas(member) == 2
    watcher = Watcher(resync=300.0, watch_seconds=30)
    try:

        def until(condition, seconds: float = 20.0) -> None:
            deadline = time.monotonic() + seconds
            while not condition():
                assert time.monotonic() < deadline, f"not within {seconds}s; {watcher.counters}"
                watcher.refresh_reflectors()
                watcher.drain(timeout=0.2)

        until(lambda: watcher.counters.lists >= 2)
        objects.patch_object(
            member.connection(), "apps/v1", "Deployment", "nginx", {"spec": {"replicas": 7}}, "default"
        )
        until(lambda: replicas(member) == 2)
        assert watcher.counters.lists == 2  # repaired from the encrypted watch stream, not a re-list
        assert Work.objects.get(cluster_name="cluster-01").in_sync
    finally:
        watcher.close()
