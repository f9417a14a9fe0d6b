"""The in-process controller: workloads become pods placed on fitting nodes, with statuses that follow."""

from __future__ import annotations

import pytest

from membersim import api, metrics, usage
from membersim.cluster import Cluster
from membersim.errors import ApiError
from membersim.resources import DAEMONSET, DEPLOYMENT, JOB, POD, REPLICASET, STATEFULSET
from membersim.spec import ClusterSpec
from membersim.usage import CONTAINER_BASE_CPU_M, NODE_BASE_CPU_M

NO_QUERY = api.Query()


@pytest.fixture
def cluster():
    return Cluster(
        ClusterSpec(
            name="test", nodes=3, node_cpu="4", node_memory="8Gi", ssd_nodes=1, zones=["a", "b"], region="r1"
        )
    )


def workload(kind="Deployment", name="web", replicas=2, cpu="1", **pod_spec):
    container = {
        "name": "c",
        "image": "nginx:1.27",
        "resources": {"requests": {"cpu": cpu, "memory": "256Mi"}},
    }
    template = {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container], **pod_spec}}
    spec = {"selector": {"matchLabels": {"app": name}}, "template": template}
    if kind != "DaemonSet":
        spec["replicas"] = replicas
    return {"kind": kind, "metadata": {"name": name}, "spec": spec}


def pods(cluster, app="web"):
    return [p for p in cluster.store.list(POD, "default") if p["metadata"]["labels"].get("app") == app]


def test_a_deployment_gets_a_replicaset_and_running_ready_pods_spread_over_nodes(cluster):
    api.create(cluster, DEPLOYMENT, "default", workload(replicas=3), NO_QUERY)
    running = pods(cluster)
    assert len(running) == 3
    assert {p["spec"]["nodeName"] for p in running} == {"test-node-1", "test-node-2", "test-node-3"}
    assert all(
        p["status"]["phase"] == "Running" and p["status"]["podIP"].startswith("10.244.") for p in running
    )
    (replica_set,) = cluster.store.list(REPLICASET, "default")
    assert running[0]["metadata"]["ownerReferences"][0]["uid"] == replica_set["metadata"]["uid"]
    status = cluster.store.get(DEPLOYMENT, "default", "web")["status"]
    assert (
        status["replicas"],
        status["readyReplicas"],
        status["availableReplicas"],
        status["updatedReplicas"],
    ) == (3, 3, 3, 3)
    assert {c["type"]: c["status"] for c in status["conditions"]} == {
        "Available": "True",
        "Progressing": "True",
    }


def test_pods_that_fit_nowhere_stay_pending_with_an_unschedulable_condition(cluster):
    api.create(cluster, DEPLOYMENT, "default", workload(replicas=5, cpu="3"), NO_QUERY)
    pending = [p for p in pods(cluster) if not p["spec"].get("nodeName")]
    assert len(pending) == 2
    condition = pending[0]["status"]["conditions"][0]
    assert (condition["type"], condition["status"], condition["reason"]) == (
        "PodScheduled",
        "False",
        "Unschedulable",
    )
    assert condition["message"] == "0/3 nodes are available: 3 Insufficient cpu."
    status = cluster.store.get(DEPLOYMENT, "default", "web")["status"]
    assert (status["replicas"], status["availableReplicas"], status["unavailableReplicas"]) == (5, 3, 2)
    assert {c["type"]: c["status"] for c in status["conditions"]}["Available"] == "False"


def test_pending_pods_are_placed_when_a_node_joins(cluster):
    api.create(cluster, DEPLOYMENT, "default", workload(replicas=4, cpu="3"), NO_QUERY)
    cluster.add_node()
    assert all(p["spec"].get("nodeName") for p in pods(cluster))
    assert cluster.store.get(DEPLOYMENT, "default", "web")["status"]["readyReplicas"] == 4


def test_node_selector_for_ssd_lands_only_on_ssd_nodes(cluster):
    api.create(
        cluster,
        DEPLOYMENT,
        "default",
        workload(replicas=2, cpu="1", nodeSelector={"disk-type": "ssd"}),
        NO_QUERY,
    )
    assert {p["spec"]["nodeName"] for p in pods(cluster)} == {"test-node-1"}


def test_a_template_change_rolls_every_pod_and_scale_down_deletes_pods(cluster):
    api.create(cluster, DEPLOYMENT, "default", workload(replicas=3), NO_QUERY)
    before = {p["metadata"]["name"] for p in pods(cluster)}
    patch = b'{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"nginx:1.28"}]}}}}'
    api.patch(cluster, DEPLOYMENT, "default", "web", "", patch, api.STRATEGIC_PATCH, NO_QUERY)
    after = pods(cluster)
    assert len(after) == 3 and not before & {p["metadata"]["name"] for p in after}
    assert {p["spec"]["containers"][0]["image"] for p in after} == {"nginx:1.28"}
    assert [
        rs["spec"]["replicas"]
        for rs in sorted(
            cluster.store.list(REPLICASET, "default"),
            key=lambda r: r["metadata"]["annotations"]["deployment.kubernetes.io/revision"],
        )
    ] == [0, 3]
    api.patch(
        cluster, DEPLOYMENT, "default", "web", "scale", b'{"spec":{"replicas":1}}', api.MERGE_PATCH, NO_QUERY
    )
    assert len(pods(cluster)) == 1
    status = cluster.store.get(DEPLOYMENT, "default", "web")["status"]
    assert (status["replicas"], status["observedGeneration"]) == (1, 3)


def test_a_not_ready_node_makes_its_pods_not_ready_and_new_pods_avoid_it(cluster):
    api.create(cluster, DEPLOYMENT, "default", workload(replicas=3), NO_QUERY)
    cluster.set_node_ready("test-node-2", False)
    on_node = [p for p in pods(cluster) if p["spec"]["nodeName"] == "test-node-2"]
    assert on_node and all(
        c["status"] == "False" for p in on_node for c in p["status"]["conditions"] if c["type"] == "Ready"
    )
    assert cluster.store.get(DEPLOYMENT, "default", "web")["status"]["readyReplicas"] == 2
    api.patch(
        cluster, DEPLOYMENT, "default", "web", "scale", b'{"spec":{"replicas":6}}', api.MERGE_PATCH, NO_QUERY
    )
    assert sum(1 for p in pods(cluster) if p["spec"]["nodeName"] == "test-node-2") == len(on_node)
    cluster.set_node_ready("test-node-2", True)
    assert cluster.store.get(DEPLOYMENT, "default", "web")["status"]["readyReplicas"] == 6


def test_deleting_a_deployment_cascades_to_its_replicasets_and_pods(cluster):
    api.create(cluster, DEPLOYMENT, "default", workload(replicas=2), NO_QUERY)
    api.delete(cluster, DEPLOYMENT, "default", "web", None, NO_QUERY)
    assert cluster.store.list(REPLICASET, "default") == [] and pods(cluster) == []


def test_orphan_propagation_keeps_the_dependents(cluster):
    api.create(cluster, DEPLOYMENT, "default", workload(replicas=2), NO_QUERY)
    api.delete(cluster, DEPLOYMENT, "default", "web", {"propagationPolicy": "Orphan"}, NO_QUERY)
    (replica_set,) = cluster.store.list(REPLICASET, "default")
    assert "ownerReferences" not in replica_set["metadata"] and len(pods(cluster)) == 2


def test_statefulset_pods_have_ordinal_names(cluster):
    api.create(cluster, STATEFULSET, "default", workload("StatefulSet", "db", replicas=3), NO_QUERY)
    assert sorted(p["metadata"]["name"] for p in pods(cluster, "db")) == ["db-0", "db-1", "db-2"]
    status = cluster.store.get(STATEFULSET, "default", "db")["status"]
    assert status["readyReplicas"] == 3 and status["currentRevision"] == status["updateRevision"]


def test_daemonset_runs_one_pod_per_matching_node(cluster):
    api.create(
        cluster,
        DAEMONSET,
        "default",
        workload("DaemonSet", "agent", cpu="100m", nodeSelector={"topology.kubernetes.io/zone": "a"}),
        NO_QUERY,
    )
    assert sorted(p["spec"]["nodeName"] for p in pods(cluster, "agent")) == ["test-node-1", "test-node-3"]
    assert cluster.store.get(DAEMONSET, "default", "agent")["status"]["numberReady"] == 2


def test_a_job_runs_its_completions_and_reports_complete(cluster):
    job = workload("Job", "batch", replicas=0, restartPolicy="Never")
    job["spec"] = {"completions": 3, "parallelism": 2, "template": job["spec"]["template"]}
    api.create(cluster, JOB, "default", job, NO_QUERY)
    status = cluster.store.get(JOB, "default", "batch")["status"]
    assert status["succeeded"] == 3
    assert any(c["type"] == "Complete" and c["status"] == "True" for c in status["conditions"])
    assert {p["status"]["phase"] for p in pods(cluster, "batch")} == {"Succeeded"}


def test_a_job_without_a_restart_policy_is_invalid(cluster):
    job = workload("Job", "batch")
    job["spec"].pop("selector")
    with pytest.raises(ApiError) as raised:
        api.create(cluster, JOB, "default", job, NO_QUERY)
    assert raised.value.code == 422
    assert raised.value.details["causes"][0]["field"] == "spec.template.spec.restartPolicy"


def test_node_metrics_are_requests_times_load_plus_a_base(cluster):
    api.create(cluster, DEPLOYMENT, "default", workload(replicas=1, cpu="2"), NO_QUERY)
    cluster.load = 1.5
    usage = {m["metadata"]["name"]: m["usage"] for m in metrics.node_metrics(cluster)}
    node_name = pods(cluster)[0]["spec"]["nodeName"]
    expected = (2000 * 1.5 + CONTAINER_BASE_CPU_M + NODE_BASE_CPU_M) * 1_000_000
    assert usage[node_name]["cpu"] == f"{int(expected)}n"
    idle = next(name for name in usage if name != node_name)
    assert usage[idle]["cpu"] == f"{NODE_BASE_CPU_M * 1_000_000}n"
    cluster.load = 100
    assert usage != {m["metadata"]["name"]: m["usage"] for m in metrics.node_metrics(cluster)}
    capped = {m["metadata"]["name"]: m["usage"]["cpu"] for m in metrics.node_metrics(cluster)}
    assert capped[node_name] == "4000000000n"


def _cpu_by_node(cluster):
    return {m["metadata"]["name"]: m["usage"]["cpu"] for m in metrics.node_metrics(cluster)}


def test_node_metrics_are_summed_again_only_after_a_pod_write_or_a_load_change(cluster):
    api.create(cluster, DEPLOYMENT, "default", workload(replicas=2, cpu="1"), NO_QUERY)
    with cluster.store.lock:
        first = cluster.running_usage.per_node(cluster.store, cluster.load)
        # Nothing written since: the same sums, not summed again.
        assert cluster.running_usage.per_node(cluster.store, cluster.load) is first
    before = _cpu_by_node(cluster)
    api.create(cluster, DEPLOYMENT, "default", workload(name="more", replicas=3, cpu="1"), NO_QUERY)
    after = _cpu_by_node(cluster)
    assert sum(int(v[:-1]) for v in after.values()) - sum(int(v[:-1]) for v in before.values()) == (
        3 * (1000 + CONTAINER_BASE_CPU_M) * 1_000_000
    )
    # A write no watcher sees (a lost event) still changes what metrics report.
    pod = pods(cluster, "more")[0]
    cluster.store.put_unseen(POD, {**pod, "status": {**pod["status"], "phase": "Succeeded"}})
    node = pod["spec"]["nodeName"]
    assert int(_cpu_by_node(cluster)[node][:-1]) == int(after[node][:-1]) - 1001 * 1_000_000
    cluster.load = 2.0
    running_there = sum(1 for p in cluster.store.list(POD) if p["spec"].get("nodeName") == node) - 1
    expected = (running_there * (1000 * 2.0 + CONTAINER_BASE_CPU_M) + NODE_BASE_CPU_M) * 1e6
    assert _cpu_by_node(cluster)[node] == f"{int(expected)}n"


def _summed_from_every_pod(cluster):
    """Node usage summed from every running pod, as node metrics once did on each read."""
    per_node: dict[str, list[int]] = {}
    for pod in usage.running(cluster.store):
        totals = per_node.setdefault(pod["spec"]["nodeName"], [0, 0])
        for container in pod["spec"]["containers"]:
            cpu, memory = usage.container_usage(container, cluster.load)
            totals[0], totals[1] = totals[0] + cpu, totals[1] + memory
    return {node: tuple(totals) for node, totals in per_node.items()}


def test_node_usage_kept_as_pods_are_written_equals_a_sum_over_every_pod(cluster):
    api.create(cluster, DEPLOYMENT, "default", workload(name="a", replicas=3, cpu="250m"), NO_QUERY)
    api.create(cluster, DEPLOYMENT, "default", workload(name="b", replicas=2, cpu="1"), NO_QUERY)
    cluster.load = 1.7
    for pod in pods(cluster, "a")[:2]:  # one deleted, one no longer running, neither seen by a watcher
        cluster.store.put_unseen(POD, {**pod, "status": {**pod["status"], "phase": "Failed"}})
    cluster.store.remove(POD, "default", pods(cluster, "b")[0]["metadata"]["name"])
    with cluster.store.lock:
        kept = cluster.running_usage.per_node(cluster.store, cluster.load)
        assert kept == _summed_from_every_pod(cluster)
        # a usage counted as pods are written, from the pods a cluster held before, too
        assert usage.RunningUsage(cluster.store).per_node(cluster.store, cluster.load) == kept


def test_nodes_carry_topology_provider_cidr_and_ssd_labels():
    cluster = Cluster(
        ClusterSpec(
            name="bj",
            nodes=3,
            region="cn-north",
            zones=["a", "b"],
            provider="aliyun",
            ssd_nodes=2,
            pod_cidr="10.1.0.0/16",
            labels={"env": "prod"},
        )
    )
    nodes = cluster.store.list(api.NODE)
    assert [n["metadata"]["labels"]["topology.kubernetes.io/zone"] for n in nodes] == ["a", "b", "a"]
    assert [n["metadata"]["labels"].get("disk-type") for n in nodes] == ["ssd", "ssd", None]
    assert [n["spec"]["podCIDR"] for n in nodes] == ["10.1.0.0/24", "10.1.1.0/24", "10.1.2.0/24"]
    assert nodes[0]["spec"]["providerID"] == "aliyun://cn-north/bj-node-1"
    assert all(n["metadata"]["labels"]["env"] == "prod" for n in nodes)


def test_events_are_capped_and_their_index_does_not_grow_without_bound(cluster):
    from membersim.events import MAX_EVENTS
    from membersim.resources import EVENT

    node = cluster.store.get(api.NODE, "", "test-node-1")
    for index in range(3 * MAX_EVENTS):
        cluster.events.record(node, "Normal", "Test", f"message {index}", "test")
    assert cluster.store.count(EVENT) == MAX_EVENTS
    assert len(cluster.events._index) <= 2 * MAX_EVENTS
    cluster.events.record(node, "Normal", "Test", f"message {3 * MAX_EVENTS - 1}", "test")
    newest = max(cluster.store.list(EVENT, "default"), key=lambda e: int(e["metadata"]["resourceVersion"]))
    assert newest["count"] == 2


def test_a_crash_looping_template_gives_running_pods_that_are_never_ready(cluster):
    deployment = workload(replicas=2)
    deployment["spec"]["template"]["metadata"]["annotations"] = {"membersim.io/fail": "CrashLoopBackOff"}
    api.create(cluster, DEPLOYMENT, "default", deployment, NO_QUERY)
    crashing = pods(cluster)
    assert len(crashing) == 2 and {p["status"]["phase"] for p in crashing} == {"Running"}
    container = crashing[0]["status"]["containerStatuses"][0]
    assert "running" in container["state"] and not container["ready"] and container["restartCount"] == 0
    status = cluster.store.get(DEPLOYMENT, "default", "web")["status"]
    assert "readyReplicas" not in status and status["unavailableReplicas"] == 2
    cluster.set_node_ready("test-node-3", False)
    cluster.set_node_ready("test-node-3", True)
    assert not any(
        c["status"] == "True"
        for p in pods(cluster)
        for c in p["status"]["conditions"]
        if c["type"] == "Ready"
    )


def test_a_crash_looping_container_runs_a_full_second_though_its_start_time_keeps_whole_seconds(
    cluster, monkeypatch
):
    from types import SimpleNamespace

    from membersim import meta
    from membersim.controllers import kubelet

    deployment = workload(replicas=1)
    deployment["spec"]["template"]["metadata"]["annotations"] = {"membersim.io/fail": "CrashLoopBackOff"}
    api.create(cluster, DEPLOYMENT, "default", deployment, NO_QUERY)
    (pod,) = pods(cluster)
    started = meta.parse_time(pod["status"]["containerStatuses"][0]["state"]["running"]["startedAt"])

    def state_at(moment):
        monkeypatch.setattr(kubelet, "time", SimpleNamespace(time=lambda: moment))
        cluster.controller.tick(moment + 60)
        return pods(cluster)[0]["status"]["containerStatuses"][0]["state"]

    # A start at the very end of its second may still be running a whole second after that second.
    assert "running" in state_at(started + 1.5)
    assert state_at(started + 2.01)["waiting"]["reason"] == "CrashLoopBackOff"


def test_image_pull_failures_leave_pods_pending(cluster):
    deployment = workload(replicas=1)
    deployment["spec"]["template"]["metadata"]["annotations"] = {"membersim.io/fail": "ImagePullBackOff"}
    api.create(cluster, DEPLOYMENT, "default", deployment, NO_QUERY)
    (pod,) = pods(cluster)
    assert pod["status"]["phase"] == "Pending" and pod["spec"]["nodeName"]
    assert pod["status"]["containerStatuses"][0]["state"]["waiting"]["reason"] == "ImagePullBackOff"


def test_a_failing_job_retries_up_to_its_backoff_limit_then_fails(cluster):
    job = workload("Job", "flaky", restartPolicy="Never")
    job["spec"] = {"backoffLimit": 2, "template": job["spec"]["template"]}
    job["spec"]["template"]["metadata"]["annotations"] = {"membersim.io/fail": "Error"}
    api.create(cluster, JOB, "default", job, NO_QUERY)
    assert [p["status"]["phase"] for p in pods(cluster, "flaky")] == ["Failed"] * 3
    status = cluster.store.get(JOB, "default", "flaky")["status"]
    assert status["failed"] == 3 and "active" not in status
    assert {c["type"]: c["reason"] for c in status["conditions"]}["Failed"] == "BackoffLimitExceeded"


def test_selectors_job_templates_and_cluster_ips_are_immutable(cluster):
    api.create(cluster, DEPLOYMENT, "default", workload(), NO_QUERY)
    change = (
        b'{"spec":{"selector":{"matchLabels":{"app":"other"}},'
        b'"template":{"metadata":{"labels":{"app":"other"}}}}}'
    )
    with pytest.raises(ApiError) as selector:
        api.patch(cluster, DEPLOYMENT, "default", "web", "", change, api.MERGE_PATCH, NO_QUERY)
    assert selector.value.details["causes"][0]["field"] == "spec.selector"
    job = workload("Job", "once", restartPolicy="Never")
    job["spec"].pop("selector")
    api.create(cluster, JOB, "default", job, NO_QUERY)
    image = b'{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"other"}]}}}}'
    with pytest.raises(ApiError) as template:
        api.patch(cluster, JOB, "default", "once", "", image, api.STRATEGIC_PATCH, NO_QUERY)
    assert template.value.details["causes"][0]["field"] == "spec.template"
    api.patch(
        cluster,
        JOB,
        "default",
        "once",
        "",
        b'{"metadata":{"labels":{"ok":"yes"}}}',
        api.MERGE_PATCH,
        NO_QUERY,
    )
    service = {"metadata": {"name": "svc"}, "spec": {"ports": [{"port": 80}]}}
    created = api.create(cluster, api.SERVICE, "default", service, NO_QUERY)
    moved = {**created, "spec": {**created["spec"], "clusterIP": "10.96.0.99", "clusterIPs": ["10.96.0.99"]}}
    with pytest.raises(ApiError) as cluster_ip:
        api.replace(cluster, api.SERVICE, "default", "svc", "", moved, NO_QUERY)
    assert cluster_ip.value.details["causes"][0]["field"] == "spec.clusterIPs[0]"


def test_a_deployment_that_cannot_progress_times_out_after_its_deadline(cluster):
    import time

    deployment = workload(replicas=5, cpu="3")
    deployment["spec"]["progressDeadlineSeconds"] = 1
    api.create(cluster, DEPLOYMENT, "default", deployment, NO_QUERY)
    progressing = {
        c["type"]: c for c in cluster.store.get(DEPLOYMENT, "default", "web")["status"]["conditions"]
    }["Progressing"]
    assert (progressing["status"], progressing["reason"]) == ("True", "ReplicaSetUpdated")
    assert cluster.controller.needs_ticks()
    time.sleep(2.1)
    cluster.controller.reconcile()
    progressing = {
        c["type"]: c for c in cluster.store.get(DEPLOYMENT, "default", "web")["status"]["conditions"]
    }["Progressing"]
    assert (progressing["status"], progressing["reason"]) == ("False", "ProgressDeadlineExceeded")
    assert cluster.controller.needs_ticks()  # its pods still wait for a node, so ticks keep retrying them
    cluster.add_node()
    cluster.add_node()
    progressing = {
        c["type"]: c for c in cluster.store.get(DEPLOYMENT, "default", "web")["status"]["conditions"]
    }["Progressing"]
    assert (progressing["status"], progressing["reason"]) == ("True", "NewReplicaSetAvailable")


def test_pods_leave_a_not_ready_node_when_their_toleration_runs_out(cluster):
    import time

    toleration = {
        "key": "node.kubernetes.io/unreachable",
        "operator": "Exists",
        "effect": "NoExecute",
        "tolerationSeconds": 1,
    }
    api.create(cluster, DEPLOYMENT, "default", workload(replicas=3, tolerations=[toleration]), NO_QUERY)
    api.create(cluster, DAEMONSET, "default", workload("DaemonSet", "agent", cpu="100m"), NO_QUERY)
    cluster.set_node_ready("test-node-1", False)
    assert any(p["spec"]["nodeName"] == "test-node-1" for p in pods(cluster))
    assert cluster.controller.needs_ticks()
    time.sleep(1.2)
    cluster.controller.reconcile()
    assert all(p["spec"]["nodeName"] != "test-node-1" for p in pods(cluster)) and len(pods(cluster)) == 3
    assert "test-node-1" in {p["spec"]["nodeName"] for p in pods(cluster, "agent")}


def test_a_no_execute_taint_without_a_toleration_evicts_at_once_and_the_default_gives_300_seconds(cluster):
    api.create(cluster, DEPLOYMENT, "default", workload(replicas=3), NO_QUERY)
    cluster.set_node_ready("test-node-2", False)
    assert any(p["spec"]["nodeName"] == "test-node-2" for p in pods(cluster))
    taint = b'{"spec":{"taints":[{"key":"maintenance","effect":"NoExecute"}]}}'
    api.patch(cluster, api.NODE, "", "test-node-3", "", taint, api.MERGE_PATCH, NO_QUERY)
    assert all(p["spec"]["nodeName"] != "test-node-3" for p in pods(cluster))
