"""The preinstalled kubectl, at the oldest and newest bundled minor, works against membersim unchanged."""

from __future__ import annotations

import json
import queue
import threading
import time

import pytest

pytestmark = [pytest.mark.contract, pytest.mark.xdist_group("membersim-kubectl")]


def deployment(name: str, replicas: int = 2, image: str = "nginx:1.27", cpu: str = "500m") -> str:
    return f"""
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  labels: {{app: {name}}}
spec:
  replicas: {replicas}
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      containers:
      - name: web
        image: {image}
        ports: [{{containerPort: 80}}]
        resources:
          requests: {{cpu: {cpu}, memory: 128Mi}}
---
apiVersion: v1
kind: Service
metadata:
  name: {name}
spec:
  selector: {{app: {name}}}
  ports: [{{port: 80, targetPort: 80}}]
"""


def test_the_dispatcher_runs_the_kubectl_minor_the_server_reports(kubectl):
    versions = json.loads(kubectl.run("version", "-o", "json").stdout)
    assert f"{versions['clientVersion']['major']}.{versions['clientVersion']['minor']}" == kubectl.minor
    assert versions["serverVersion"]["gitVersion"].startswith(f"v{kubectl.minor}.")


def test_apply_with_default_validation_creates_objects_that_get_returns_as_json(kubectl):
    result = kubectl.run("apply", "-f", "-", input=deployment("shop"))
    assert "deployment.apps/shop created" in result.stdout and "service/shop created" in result.stdout
    got = kubectl.json("get", "deployment", "shop")
    assert got["spec"]["template"]["spec"]["containers"][0]["ports"] == [
        {"containerPort": 80, "protocol": "TCP"}
    ]
    assert got["status"]["readyReplicas"] == 2
    service = kubectl.json("get", "service", "shop")
    assert service["spec"]["clusterIP"].startswith("10.")
    pods = kubectl.json("get", "pods", "-l", "app=shop")
    assert len(pods["items"]) == 2 and {p["status"]["phase"] for p in pods["items"]} == {"Running"}


def test_apply_reports_the_servers_field_errors_for_an_invalid_manifest(kubectl):
    broken = deployment("broken").replace("        image: nginx:1.27\n", "")
    result = kubectl.run("apply", "-f", "-", input=broken, check=False)
    assert result.returncode != 0
    assert "spec.template.spec.containers[0].image: Required value" in result.stderr


def test_get_watch_prints_pods_until_they_are_ready(kubectl):
    watcher = kubectl.popen("get", "pods", "-l", "app=watched", "--watch")
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in watcher.stdout], daemon=True).start()
    try:
        time.sleep(0.5)
        kubectl.run("apply", "-f", "-", input=deployment("watched", replicas=3))
        running: set[str] = set()
        deadline = time.monotonic() + 20
        while len(running) < 3 and time.monotonic() < deadline:
            try:
                line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                break
            fields = line.split()
            if len(fields) >= 3 and fields[1] == "1/1" and fields[2] == "Running":
                running.add(fields[0])
        assert len(running) == 3, f"saw only {running}"
    finally:
        watcher.kill()
        watcher.wait(5)


def test_scale_then_rollout_status_reports_success(kubectl):
    kubectl.run("apply", "-f", "-", input=deployment("scaled", replicas=1))
    assert "scaled" in kubectl.run("scale", "deployment/scaled", "--replicas=4").stdout
    status = kubectl.run("rollout", "status", "deployment/scaled", "--timeout=20s")
    assert 'deployment "scaled" successfully rolled out' in status.stdout
    got = kubectl.json("get", "deployment", "scaled")
    assert (got["spec"]["replicas"], got["status"]["availableReplicas"]) == (4, 4)


def test_reapplying_a_new_image_rolls_every_pod_and_keeps_the_container_ports(kubectl):
    kubectl.run("apply", "-f", "-", input=deployment("rolled", replicas=2))
    before = {p["metadata"]["name"] for p in kubectl.json("get", "pods", "-l", "app=rolled")["items"]}
    kubectl.run("apply", "-f", "-", input=deployment("rolled", replicas=2, image="nginx:1.28"))
    kubectl.run("rollout", "status", "deployment/rolled", "--timeout=20s")
    pods = kubectl.json("get", "pods", "-l", "app=rolled")["items"]
    assert len(pods) == 2 and not before & {p["metadata"]["name"] for p in pods}
    containers = kubectl.json("get", "deployment", "rolled")["spec"]["template"]["spec"]["containers"]
    assert containers[0]["image"] == "nginx:1.28" and containers[0]["ports"][0]["containerPort"] == 80


def test_top_nodes_shows_usage_derived_from_pod_requests(kubectl):
    kubectl.run("apply", "-f", "-", input=deployment("busy", replicas=1, cpu="2"))
    pod = kubectl.json("get", "pods", "-l", "app=busy")["items"][0]
    rows = {
        line.split()[0]: line.split()
        for line in kubectl.run("top", "nodes", "--no-headers").stdout.splitlines()
    }
    assert set(rows) == {"member-node-1", "member-node-2", "member-node-3"}
    busiest = max(rows.values(), key=lambda row: int(row[1].rstrip("m")))
    assert int(busiest[1].rstrip("m")) >= 2100
    assert pod["spec"]["nodeName"] == busiest[0]


def test_delete_removes_the_deployment_and_its_pods(kubectl):
    manifest = deployment("doomed", replicas=2)
    kubectl.run("apply", "-f", "-", input=manifest)
    result = kubectl.run("delete", "-f", "-", input=manifest)
    assert 'deployment.apps "doomed" deleted' in result.stdout
    assert kubectl.json("get", "pods", "-l", "app=doomed")["items"] == []
    missing = kubectl.run("get", "deployment", "doomed", check=False)
    assert missing.returncode != 0 and "NotFound" in missing.stderr


def test_server_side_apply_creates_then_updates(kubectl):
    assert (
        "serverside-applied"
        in kubectl.run("apply", "--server-side", "-f", "-", input=deployment("ssa", replicas=1)).stdout
    )
    kubectl.run("apply", "--server-side", "-f", "-", input=deployment("ssa", replicas=3))
    assert kubectl.json("get", "deployment", "ssa")["status"]["readyReplicas"] == 3


def test_drain_evicts_pods_which_come_back_on_other_nodes(kubectl):
    # No CPU request: the module's earlier tests may have filled the other nodes' CPU, and where the
    # replacements can go is not what this test is about.
    kubectl.run("apply", "-f", "-", input=deployment("drained", replicas=3, cpu="0"))
    node = kubectl.json("get", "pods", "-l", "app=drained")["items"][0]["spec"]["nodeName"]
    try:
        result = kubectl.run("drain", node, "--ignore-daemonsets", "--timeout=20s")
        assert f"node/{node} drained" in result.stdout
        # The replacements are created and bound by the controller after the evictions return.
        deadline = time.monotonic() + 15
        while True:
            pods = kubectl.json("get", "pods", "-l", "app=drained")["items"]
            placed = [p["spec"].get("nodeName") for p in pods]
            if (len(pods) == 3 and all(placed)) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert len(pods) == 3 and all(placed) and node not in placed
    finally:
        kubectl.run("uncordon", node)


def test_imperative_create_commands_work_including_protobuf_bodies_from_newer_kubectl(kubectl):
    # From 1.32, kubectl sends the objects these commands build as protobuf.
    kubectl.run("create", "deployment", "made", "--image=nginx:1.27", "--port=80", "--replicas=2")
    kubectl.run("create", "configmap", "made-config", "--from-literal=colour=blue")
    kubectl.run("create", "secret", "generic", "made-secret", "--from-literal=password=hunter2")
    kubectl.run("create", "service", "nodeport", "made-service", "--tcp=8080:80")
    kubectl.run("run", "made-pod", "--image=busybox", "--env=MODE=test", "--labels=role=probe")
    deployment = kubectl.json("get", "deployment", "made")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert (deployment["spec"]["replicas"], container["image"], container["ports"][0]["containerPort"]) == (
        2,
        "nginx:1.27",
        80,
    )
    assert deployment["status"]["readyReplicas"] == 2
    assert kubectl.json("get", "configmap", "made-config")["data"] == {"colour": "blue"}
    assert kubectl.json("get", "secret", "made-secret")["data"] == {"password": "aHVudGVyMg=="}
    port = kubectl.json("get", "service", "made-service")["spec"]["ports"][0]
    assert (port["port"], port["targetPort"], port["nodePort"] >= 30000) == (8080, 80, True)
    pod = kubectl.json("get", "pod", "made-pod")
    assert pod["metadata"]["labels"] == {"role": "probe"} and pod["spec"]["containers"][0]["env"] == [
        {"name": "MODE", "value": "test"}
    ]


def test_describe_deployment_shows_its_events(kubectl):
    kubectl.run("apply", "-f", "-", input=deployment("told", replicas=1))
    assert "Scaled up replica set told-" in kubectl.run("describe", "deployment", "told").stdout
    events = kubectl.run(
        "get", "events", "--field-selector", "involvedObject.kind=Deployment,involvedObject.name=told"
    ).stdout
    assert "ScalingReplicaSet" in events


def test_apply_rejects_unknown_fields_as_strict_validation_does(kubectl):
    typo = deployment("typo").replace(
        "        image: nginx:1.27\n", "        image: nginx:1.27\n        imagePullPolice: Always\n"
    )
    result = kubectl.run("apply", "-f", "-", input=typo, check=False)
    assert result.returncode != 0
    assert (
        'strict decoding error: unknown field "spec.template.spec.containers[0].imagePullPolice"'
        in result.stderr
    )
