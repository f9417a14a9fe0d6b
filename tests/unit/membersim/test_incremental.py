"""The controller follows writes: each pass looks at what changed, and node use is kept, not recounted."""

from __future__ import annotations

import json

import pytest

from membersim import api
from membersim.cluster import Cluster
from membersim.placement import pod_requests
from membersim.pods import is_active
from membersim.resources import DEPLOYMENT, JOB, POD, REPLICASET
from membersim.spec import ClusterSpec

NO_QUERY = api.Query()


@pytest.fixture
def cluster():
    return Cluster(ClusterSpec(name="inc", nodes=2, node_cpu="4", node_memory="8Gi"))


def workload(name, replicas=1, cpu="100m", kind="Deployment", **pod_spec):
    container = {
        "name": "c",
        "image": "nginx:1.27",
        "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}},
    }
    template = {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container], **pod_spec}}
    spec = {"selector": {"matchLabels": {"app": name}}, "template": template, "replicas": replicas}
    return {"kind": kind, "metadata": {"name": name}, "spec": spec}


def scale(cluster, name, replicas):
    body = json.dumps({"spec": {"replicas": replicas}}).encode()
    api.patch(cluster, DEPLOYMENT, "default", name, "", body, "application/merge-patch+json", NO_QUERY)


def recount(cluster):
    """Node use summed from scratch over the stored pods, as the scheduler needs it."""
    use = {}
    for pod in cluster.store.list(POD):
        node = pod["spec"].get("nodeName")
        if not node or not is_active(pod):
            continue
        requests = pod_requests(pod)
        cpu, memory, count, ips = use.get(node, (0, 0, 0, set()))
        ip = pod["status"].get("podIP")
        use[node] = (cpu + requests.cpu_m, memory + requests.memory, count + 1, ips | ({ip} if ip else set()))
    return use


def kept(cluster):
    return {name: (u.cpu_m, u.memory, u.pods, u.ips) for name, u in cluster.controller.usage().items()}


def test_node_use_kept_on_every_write_equals_a_recount_after_creates_scales_deletes_and_finished_jobs(
    cluster,
):
    for i in range(6):
        api.create(cluster, DEPLOYMENT, "default", workload(f"d{i}", replicas=3), NO_QUERY)
    job = workload("once", replicas=None, restartPolicy="Never", kind="Job")
    del job["spec"]["replicas"], job["spec"]["selector"]
    api.create(cluster, JOB, "default", job, NO_QUERY)
    scale(cluster, "d1", 1)
    api.delete(cluster, DEPLOYMENT, "default", "d2", None, NO_QUERY)
    cluster.set_node_ready("inc-node-1", False)
    assert kept(cluster) == recount(cluster)
    assert sum(count for _, _, count, _ in recount(cluster).values()) == 3 * 4 + 1


def test_a_usage_copy_changed_by_its_caller_leaves_the_kept_use_alone(cluster):
    api.create(cluster, DEPLOYMENT, "default", workload("web", replicas=2), NO_QUERY)
    copy = cluster.controller.usage()
    for use in copy.values():
        use.pods += 10
        use.ips.add("10.0.0.99")
    assert kept(cluster) == recount(cluster)


def test_a_pod_deleted_from_a_full_node_lets_a_pending_pod_in(cluster):
    api.create(cluster, DEPLOYMENT, "default", workload("big", replicas=2, cpu="3"), NO_QUERY)
    api.create(cluster, DEPLOYMENT, "default", workload("late", replicas=1, cpu="3"), NO_QUERY)
    (late,) = [p for p in cluster.store.list(POD, "default") if p["metadata"]["labels"]["app"] == "late"]
    assert late["status"]["phase"] == "Pending" and "nodeName" not in late["spec"]
    scale(cluster, "big", 1)
    (late,) = [p for p in cluster.store.list(POD, "default") if p["metadata"]["labels"]["app"] == "late"]
    assert late["status"]["phase"] == "Running" and late["spec"]["nodeName"]


def test_a_write_that_skipped_the_controller_is_followed_at_its_next_run(cluster):
    body = workload("bare", replicas=1)
    body["kind"] = "ReplicaSet"
    api.create(cluster, REPLICASET, "default", body, NO_QUERY)
    stored = cluster.store.get(REPLICASET, "default", "bare")
    cluster.store.put(REPLICASET, {**stored, "spec": {**stored["spec"], "replicas": 3}})
    api.create(cluster, DEPLOYMENT, "default", workload("other"), NO_QUERY)
    bare = [p for p in cluster.store.list(POD, "default") if p["metadata"]["labels"]["app"] == "bare"]
    assert len(bare) == 3 and all(p["status"]["phase"] == "Running" for p in bare)


def test_creating_a_deployment_syncs_only_that_deployment_not_every_stored_one(cluster, monkeypatch):
    for i in range(30):
        api.create(cluster, DEPLOYMENT, "default", workload(f"d{i}"), NO_QUERY)
    synced = []
    real = cluster.controller.deployments.sync

    def counting(deployment):
        synced.append(deployment["metadata"]["name"])
        return real(deployment)

    monkeypatch.setattr(cluster.controller.deployments, "sync", counting)
    api.create(cluster, DEPLOYMENT, "default", workload("new"), NO_QUERY)
    assert set(synced) == {"new"}
    assert cluster.store.get(DEPLOYMENT, "default", "new")["status"]["readyReplicas"] == 1


def test_a_reconcile_with_no_write_since_the_last_one_still_looks_at_every_deployment(cluster, monkeypatch):
    for i in range(3):
        api.create(cluster, DEPLOYMENT, "default", workload(f"d{i}"), NO_QUERY)
    synced = []
    real = cluster.controller.deployments.sync
    monkeypatch.setattr(cluster.controller.deployments, "sync", lambda d: synced.append(d) or real(d))
    cluster.controller.reconcile()
    assert sorted(d["metadata"]["name"] for d in synced) == ["d0", "d1", "d2"]


def test_after_a_failed_pass_the_next_reconcile_looks_at_everything_again(cluster, monkeypatch):
    api.create(cluster, DEPLOYMENT, "default", workload("web"), NO_QUERY)
    real = cluster.controller.run_pass

    def failing():
        raise RuntimeError("simulated controller bug")

    stored = cluster.store.get(REPLICASET, "default", cluster.store.list(REPLICASET)[0]["metadata"]["name"])
    cluster.store.put(REPLICASET, {**stored, "spec": {**stored["spec"], "replicas": 0}})
    monkeypatch.setattr(cluster.controller, "run_pass", failing)
    with pytest.raises(RuntimeError):
        cluster.controller.reconcile()
    monkeypatch.setattr(cluster.controller, "run_pass", real)
    api.create(cluster, DEPLOYMENT, "default", workload("other"), NO_QUERY)
    web = cluster.store.get(REPLICASET, "default", stored["metadata"]["name"])
    assert web["spec"]["replicas"] == 1
    assert (
        len([p for p in cluster.store.list(POD, "default") if p["metadata"]["labels"]["app"] == "web"]) == 1
    )
