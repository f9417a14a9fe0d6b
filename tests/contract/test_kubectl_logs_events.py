"""kubectl reads membersim's pod logs and events as a real cluster's: logs with -c, --tail, --previous,
-f, --all-containers and -l; describe pod, get events --field-selector and kubectl events."""

from __future__ import annotations

import json
import subprocess
import time

import pytest

pytestmark = [pytest.mark.contract, pytest.mark.xdist_group("membersim-kubectl-logs")]

SHOP = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec:
      containers:
      - {name: web, image: "nginx:1.27", ports: [{containerPort: 80}]}
      - {name: sidecar, image: "envoy:1.30"}
"""
CRASHY = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: crashy}
spec:
  replicas: 1
  selector: {matchLabels: {app: crashy}}
  template:
    metadata:
      labels: {app: crashy}
      annotations: {membersim.io/fail: CrashLoopBackOff, membersim.io/backoff-seconds: "1"}
    spec:
      containers:
      - {name: app, image: "busybox:1.36"}
"""


@pytest.fixture(scope="module")
def shop(kubectl):
    kubectl.run("apply", "-f", "-", input=SHOP)
    return sorted(p["metadata"]["name"] for p in kubectl.json("get", "pods", "-l", "app=shop")["items"])


@pytest.fixture(scope="module")
def crashy(kubectl):
    """The crash-looping pod once it has restarted at least twice."""
    kubectl.run("apply", "-f", "-", input=CRASHY)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        (pod,) = kubectl.json("get", "pods", "-l", "app=crashy")["items"]
        if pod["status"]["containerStatuses"][0]["restartCount"] >= 2:
            return pod
        time.sleep(0.5)
    raise AssertionError(f"the crash-looping pod did not restart twice: {pod['status']}")


def test_logs_of_one_container_and_its_tail(kubectl, shop):
    lines = kubectl.run("logs", shop[0], "-c", "web").stdout.splitlines()
    assert lines[0].startswith("starting web (nginx:1.27) on member-node-")
    assert lines[1:] == ["listening on :80/TCP", "ready to serve"]
    assert kubectl.run("logs", shop[0], "-c", "sidecar", "--tail=1").stdout == "ready to serve\n"
    stamped = kubectl.run("logs", shop[0], "-c", "web", "--timestamps").stdout.splitlines()
    assert all(line.split(" ", 1)[0].endswith("Z") and len(line.split(" ", 1)[0]) == 30 for line in stamped)


def test_logs_without_a_container_default_to_the_first_and_all_containers_prints_each(kubectl, shop):
    default = kubectl.run("logs", shop[0])
    assert default.stdout.startswith("starting web") and 'Defaulted container "web"' in default.stderr
    every = kubectl.run("logs", shop[0], "--all-containers", "--prefix").stdout.splitlines()
    assert (
        f"[pod/{shop[0]}/web] ready to serve" in every and f"[pod/{shop[0]}/sidecar] ready to serve" in every
    )


def test_logs_by_label_read_every_matching_pod(kubectl, shop):
    lines = kubectl.run("logs", "-l", "app=shop", "-c", "web", "--prefix").stdout.splitlines()
    assert {line.split("]")[0] for line in lines} == {f"[pod/{name}/web" for name in shop}


def test_a_crash_looping_pod_counts_restarts_and_previous_reads_the_run_that_crashed(kubectl, crashy):
    name = crashy["metadata"]["name"]
    row = kubectl.run("get", "pod", name, "--no-headers").stdout.split()
    assert row[1] == "0/1" and row[2] in ("CrashLoopBackOff", "Running") and int(row[3]) >= 2
    previous = kubectl.run("logs", name, "--previous").stdout
    assert previous.startswith("starting app (busybox:1.36)")
    assert previous.endswith(
        "fatal: simulated crash (membersim.io/fail=CrashLoopBackOff), exiting with code 1\n"
    )


def test_previous_of_a_container_that_never_restarted_is_refused_as_kubernetes_words_it(kubectl, shop):
    result = kubectl.run("logs", shop[0], "-c", "web", "--previous", check=False)
    assert result.returncode != 0
    assert f'previous terminated container "web" in pod "{shop[0]}" not found' in result.stderr


def test_follow_streams_until_the_pod_is_deleted(kubectl):
    kubectl.run("run", "followed", "--image=nginx:1.27")
    follower = kubectl.popen("logs", "-f", "followed")
    try:
        time.sleep(1)
        assert follower.poll() is None, "a followed log of a running container stays open"
        kubectl.run("delete", "pod", "followed", "--wait=false")
        out, _ = follower.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        follower.kill()
        raise
    assert out.splitlines()[-2:] == ["ready to serve", "received SIGTERM, shutting down"]
    assert follower.returncode == 0


def test_follow_of_a_crash_looping_container_ends_when_its_run_crashes(kubectl, crashy):
    result = kubectl.run("logs", "-f", crashy["metadata"]["name"], timeout=20)
    assert result.stdout.startswith("starting app")


def test_describe_pod_lists_the_scheduler_and_kubelet_events_with_repeats_counted(kubectl, crashy):
    described = kubectl.run("describe", "pod", crashy["metadata"]["name"]).stdout
    events = described.split("Events:", 1)[1]
    for reason, source in [("Scheduled", "default-scheduler"), ("Pulled", "kubelet"), ("Started", "kubelet")]:
        assert any(reason in line and source in line for line in events.splitlines()), events
    backoff = next(line for line in events.splitlines() if "BackOff" in line)
    assert "Warning" in backoff and "(x" in backoff and "Back-off restarting failed container app" in backoff


def test_get_events_filters_by_involved_object_type_and_reason(kubectl, crashy):
    name = crashy["metadata"]["name"]
    events = kubectl.json("get", "events", "--field-selector", f"involvedObject.name={name},type=Warning")[
        "items"
    ]
    assert events and {e["reason"] for e in events} == {"BackOff"}
    assert all(e["involvedObject"]["uid"] == crashy["metadata"]["uid"] for e in events)
    started = kubectl.json(
        "get", "events", "--field-selector", f"involvedObject.uid={crashy['metadata']['uid']},reason=Started"
    )["items"]
    assert len(started) == 1 and started[0]["count"] >= 3 and started[0]["source"]["component"] == "kubelet"


def test_kubectl_events_for_a_pod(kubectl, crashy):
    name = crashy["metadata"]["name"]
    lines = kubectl.run("events", "--for", f"pod/{name}").stdout.splitlines()
    assert lines[0].split()[:2] == ["LAST", "SEEN"]
    assert {"Scheduled", "Started", "BackOff"} <= {word for line in lines[1:] for word in line.split()}
    listed = json.loads(kubectl.run("events", "--for", f"pod/{name}", "-o", "json").stdout)
    assert {e["involvedObject"]["name"] for e in listed["items"]} == {name}
