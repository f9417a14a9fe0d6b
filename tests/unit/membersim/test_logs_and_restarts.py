"""The kubelets write container logs as pods start, crash and restart; pods/log reads them as a real
cluster serves them; events say what happened, counted again when it happens again."""

from __future__ import annotations

import time

import pytest

from membersim import api
from membersim.cluster import Cluster
from membersim.errors import ApiError
from membersim.events import EventRecorder
from membersim.logs import MAX_LINES, LogStore
from membersim.pod_logs import find_run, options, render
from membersim.resources import DEPLOYMENT, EVENT, JOB, POD
from membersim.spec import ClusterSpec

NO_QUERY = api.Query()


@pytest.fixture
def cluster():
    return Cluster(ClusterSpec(name="logs", nodes=2))


def deployment(name="web", annotations=None, containers=None):
    containers = containers or [{"name": "app", "image": "nginx:1.27", "ports": [{"containerPort": 8080}]}]
    template = {
        "metadata": {"labels": {"app": name}, "annotations": annotations or {}},
        "spec": {"containers": containers},
    }
    return {
        "metadata": {"name": name},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": name}}, "template": template},
    }


def only_pod(cluster, app="web"):
    (pod,) = [p for p in cluster.store.list(POD, "default") if p["metadata"]["labels"].get("app") == app]
    return pod


def read(cluster, pod, **params):
    chosen = options(api.Query({k: str(v) for k, v in params.items()}), pod)
    run = find_run(cluster.logs, pod, chosen)
    return b"".join(render(run.since(0)[0], chosen)).decode() if run else ""


def events_about(cluster, pod):
    return {
        e["reason"]: e
        for e in cluster.store.list(EVENT, "default")
        if e["involvedObject"]["uid"] == pod["metadata"]["uid"]
    }


def test_a_started_container_logs_its_start_and_the_kubelet_reports_scheduled_pulled_created_started(cluster):
    api.create(cluster, DEPLOYMENT, "default", deployment(), NO_QUERY)
    pod = only_pod(cluster)
    lines = read(cluster, pod).splitlines()
    assert lines[0].startswith("starting app (nginx:1.27) on logs-node-") and lines[1:] == [
        "listening on :8080/TCP",
        "ready to serve",
    ]
    stamped = read(cluster, pod, timestamps="true").splitlines()
    assert all(len(line.split()[0]) == 30 and line.split()[0].endswith("Z") for line in stamped)
    assert read(cluster, pod, tailLines=1) == "ready to serve\n"
    assert read(cluster, pod, tailLines=0) == ""
    assert set(events_about(cluster, pod)) == {"Scheduled", "Pulling", "Pulled", "Created", "Started"}
    assert events_about(cluster, pod)["Started"]["source"] == {
        "component": "kubelet",
        "host": pod["spec"]["nodeName"],
    }


def test_log_options_are_refused_as_the_api_server_refuses_them(cluster):
    api.create(cluster, DEPLOYMENT, "default", deployment(), NO_QUERY)
    pod = only_pod(cluster)
    for params, code, text in [
        ({"tailLines": -1}, 422, "tailLines: Invalid value: -1: must be greater than or equal to 0"),
        ({"limitBytes": 0}, 422, "limitBytes: Invalid value: 0: must be greater than 0"),
        (
            {"sinceSeconds": 5, "sinceTime": "2025-01-01T00:00:00Z"},
            422,
            "at most one of `sinceTime` or `sinceSeconds`",
        ),
        ({"tailLines": "many"}, 400, "must be an integer"),
        ({"container": "nope"}, 400, f"container nope is not valid for pod {pod['metadata']['name']}"),
        (
            {"previous": "true"},
            400,
            f'previous terminated container "app" in pod "{pod["metadata"]["name"]}" not found',
        ),
    ]:
        with pytest.raises(ApiError) as caught:
            read(cluster, pod, **params)
        assert caught.value.code == code and text in caught.value.message


def test_since_time_and_limit_bytes_cut_the_log(cluster):
    api.create(cluster, DEPLOYMENT, "default", deployment(), NO_QUERY)
    pod = only_pod(cluster)
    assert read(cluster, pod, sinceTime="2999-01-01T00:00:00Z") == ""
    assert read(cluster, pod, sinceSeconds=60).endswith("ready to serve\n")
    chosen = options(api.Query({"limitBytes": "5"}), pod)
    from membersim.pod_logs import limited

    chunks, _ = limited(render(find_run(cluster.logs, pod, chosen).since(0)[0], chosen), chosen.limit_bytes)
    assert b"".join(chunks) == b"start"


def test_a_multi_container_pod_needs_the_container_named_as_kubernetes_says(cluster):
    containers = [{"name": "app", "image": "nginx:1.27"}, {"name": "sidecar", "image": "envoy:1.30"}]
    api.create(cluster, DEPLOYMENT, "default", deployment(containers=containers), NO_QUERY)
    pod = only_pod(cluster)
    with pytest.raises(ApiError) as caught:
        read(cluster, pod)
    name = pod["metadata"]["name"]
    assert caught.value.code == 400
    assert (
        caught.value.message
        == f"a container name must be specified for pod {name}, choose one of: [app sidecar]"
    )
    assert read(cluster, pod, container="sidecar").startswith("starting sidecar (envoy:1.30)")


def test_a_crash_looping_container_fails_restarts_after_its_back_off_and_keeps_the_last_run_for_previous(
    cluster,
):
    annotations = {"membersim.io/fail": "CrashLoopBackOff", "membersim.io/backoff-seconds": "1"}
    api.create(cluster, DEPLOYMENT, "default", deployment("crashy", annotations), NO_QUERY)
    pod = only_pod(cluster, "crashy")
    assert cluster.controller.context.next_due() is not None
    deadline = time.monotonic() + 10
    restarts = 0
    while restarts < 2 and time.monotonic() < deadline:
        time.sleep(0.3)
        cluster.controller.tick(time.time())
        restarts = only_pod(cluster, "crashy")["status"]["containerStatuses"][0]["restartCount"]
    pod = only_pod(cluster, "crashy")
    container = pod["status"]["containerStatuses"][0]
    assert container["restartCount"] == 2 and not container["ready"]
    assert (
        container["lastState"]["terminated"]["reason"] == "Error"
        and container["lastState"]["terminated"]["exitCode"] == 1
    )
    previous = read(cluster, pod, previous="true")
    assert previous.startswith("starting app") and previous.endswith(
        "fatal: simulated crash (membersim.io/fail=CrashLoopBackOff), exiting with code 1\n"
    )
    assert read(cluster, pod).startswith("starting app")
    backoff = events_about(cluster, pod)["BackOff"]
    assert (
        backoff["type"] == "Warning"
        and backoff["count"] >= 2
        and backoff["firstTimestamp"] <= backoff["lastTimestamp"]
    )
    assert events_about(cluster, pod)["Started"]["count"] >= 2


def test_a_failing_job_pod_writes_its_error_and_an_image_pull_failure_has_no_log_yet(cluster):
    job = {
        "metadata": {"name": "once"},
        "spec": {
            "backoffLimit": 0,
            "template": {
                "metadata": {"annotations": {"membersim.io/fail": "Error"}},
                "spec": {"restartPolicy": "Never", "containers": [{"name": "task", "image": "busybox"}]},
            },
        },
    }
    api.create(cluster, JOB, "default", job, NO_QUERY)
    (pod,) = [p for p in cluster.store.list(POD, "default") if p["metadata"]["name"].startswith("once-")]
    assert read(cluster, pod).endswith(
        "error: simulated failure (membersim.io/fail=Error), exiting with code 1\n"
    )
    api.create(
        cluster,
        DEPLOYMENT,
        "default",
        deployment("pull", {"membersim.io/fail": "ImagePullBackOff"}),
        NO_QUERY,
    )
    with pytest.raises(ApiError) as caught:
        read(cluster, only_pod(cluster, "pull"))
    assert "is waiting to start: trying and failing to pull image" in caught.value.message
    assert {"Pulling", "Failed", "BackOff"} <= set(events_about(cluster, only_pod(cluster, "pull")))


def test_a_deleted_pod_says_sigterm_to_its_followers_and_its_logs_go(cluster):
    api.create(cluster, DEPLOYMENT, "default", deployment(), NO_QUERY)
    pod = only_pod(cluster)
    run = find_run(cluster.logs, pod, options(NO_QUERY, pod))
    api.delete(cluster, POD, "default", pod["metadata"]["name"], None, NO_QUERY)
    assert run.gone and run.lines[-1].endswith("received SIGTERM, shutting down")
    assert cluster.logs.instance("default", pod["metadata"]["name"], "app", run.container_id) is None
    killing = [e for e in cluster.store.list(EVENT, "default") if e["reason"] == "Killing"]
    assert killing and killing[0]["message"] == "Stopping container app"


def test_a_log_keeps_only_its_newest_lines():
    logs = LogStore()
    logs.start("ns", "pod", "c", "id-1")
    for index in range(MAX_LINES + 10):
        logs.write("ns", "pod", "c", f"line {index}")
    run = logs.instance("ns", "pod", "c", "id-1")
    lines, position = run.since(0)
    assert len(lines) == MAX_LINES and lines[0].endswith("line 10") and position == MAX_LINES + 10
    assert run.since(position - 1)[0][0].endswith(f"line {MAX_LINES + 9}")


def test_events_repeat_as_one_counted_event_expire_after_their_ttl_and_are_capped(cluster):
    node = cluster.store.get(api.NODE, "", "logs-node-1")
    recorder = EventRecorder(cluster.store, ttl=0.2, limit=5)
    recorder.record(node, "Warning", "Flap", "it flapped", "test")
    recorder.record(node, "Warning", "Flap", "it flapped", "test")
    (event,) = [e for e in cluster.store.list(EVENT) if e["reason"] == "Flap"]
    assert event["count"] == 2 and event["involvedObject"]["kind"] == "Node"
    time.sleep(0.3)
    recorder.record(node, "Normal", "Other", "later", "test")
    assert [e["reason"] for e in cluster.store.list(EVENT) if e["reason"] in ("Flap", "Other")] == ["Other"]
    for index in range(10):
        recorder.record(node, "Normal", "Many", f"message {index}", "test")
    many = [e["message"] for e in cluster.store.list(EVENT) if e["reason"] == "Many"]
    assert len(many) == 5 and "message 9" in many and "message 0" not in many
