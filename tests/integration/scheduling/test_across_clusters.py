"""A workload across its member clusters (pods, events, an unreachable cluster in its own row) and its pods'
logs, through the REST API and the page fragments, against simulated members."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from scheduling.models import ResourceTemplate
from scheduling.services import apply_yaml
from tests.support.members import converge

EXAMPLES = Path(__file__).parent / "examples"
TWO_CONTAINERS = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: shop, namespace: default, labels: {app: shop}}
spec:
  replicas: 2
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec:
      containers:
      - {name: web, image: "nginx:1.27", ports: [{containerPort: 80}]}
      - {name: sidecar, image: "envoy:1.30"}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: shop, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: shop}]
  placement:
    clusterAffinity: {clusterNames: [cluster-01, cluster-02]}
    replicaScheduling: {replicaSchedulingType: Duplicated}
"""


@pytest.fixture
def shop(members):
    apply_yaml(TWO_CONTAINERS)
    converge(1)
    return ResourceTemplate.objects.get(name="shop")


def test_the_api_lists_each_clusters_copy_its_pods_and_the_events_newest_first(shop, api_as, viewer):
    answer = api_as(viewer).get(f"/api/v1/workloads/{shop.pk}/members/")
    assert answer.status_code == 200, answer.content
    rows = {row["cluster"]: row for row in answer.json()["clusters"]}
    assert set(rows) == {"cluster-01", "cluster-02"}
    for row in rows.values():
        assert row["reachable"] and row["found"] and row["health"] == "Healthy"
        assert row["status"]["readyReplicas"] == 2
        assert len(row["pods"]) == 2
        pod = row["pods"][0]
        assert pod["name"].startswith("shop-") and pod["phase"] == "Running" and pod["ready"] == "2/2"
        assert (
            pod["isReady"] and pod["reason"] == "" and pod["node"] and pod["containers"] == ["web", "sidecar"]
        )
    events = answer.json()["events"]
    assert {e["cluster"] for e in events} == {"cluster-01", "cluster-02"}
    assert {e["object"]["kind"] for e in events} >= {"Pod", "Deployment"}
    seen = [e["lastSeen"] for e in events]
    assert seen == sorted(seen, reverse=True)


def test_a_cluster_that_hangs_shows_unreachable_in_its_own_row_while_the_others_answer(
    shop, member_sim, api_as, viewer
):
    member_sim.control("cluster-02", "down")
    started = time.monotonic()
    answer = api_as(viewer).get(f"/api/v1/workloads/{shop.pk}/members/")
    took = time.monotonic() - started
    rows = {row["cluster"]: row for row in answer.json()["clusters"]}
    assert rows["cluster-02"]["reachable"] is False and rows["cluster-02"]["error"]
    assert rows["cluster-01"]["reachable"] and len(rows["cluster-01"]["pods"]) == 2
    assert took < 4.0


def test_the_page_fragment_names_each_cluster_with_its_pods(shop, client, viewer):
    client.force_login(viewer)
    html = client.get(f"/workloads/{shop.pk}/across/").content.decode()
    assert 'data-cluster="cluster-01"' in html and 'data-cluster="cluster-02"' in html
    assert html.count("data-pod=") == 4 and "Events in the member clusters" in html


def test_a_viewer_reads_one_containers_tail_and_every_pods_lines_prefixed(shop, api_as, viewer):
    api = api_as(viewer)
    pods = api.get(f"/api/v1/workloads/{shop.pk}/members/").json()["clusters"][0]["pods"]
    one = api.get(f"/api/v1/workloads/{shop.pk}/logs/?cluster=cluster-01&pod={pods[0]['name']}&container=web")
    assert one.status_code == 200 and one["Content-Type"].startswith("text/plain")
    assert one.content.decode().splitlines()[-1] == "ready to serve"
    tail = api.get(
        f"/api/v1/workloads/{shop.pk}/logs/?cluster=cluster-01&pod={pods[0]['name']}&container=sidecar&tail=1"
    )
    assert tail.content.decode() == "ready to serve\n"
    every = api.get(f"/api/v1/workloads/{shop.pk}/logs/?cluster=cluster-01").content.decode().splitlines()
    assert {line.split(" ", 1)[0] for line in every} == {f"[pod/{p['name']}/web]" for p in pods}


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("cluster=cluster-01&tail=0", "tail"),
        ("cluster=cluster-01&tail=many", "tail"),
        ("cluster=cluster-03", "cluster"),
        ("cluster=cluster-01&pod=kube-apiserver", "pod"),
        ("", "cluster"),
    ],
)
def test_bad_log_queries_are_a_400_naming_the_field(shop, api_as, viewer, query, field):
    answer = api_as(viewer).get(f"/api/v1/workloads/{shop.pk}/logs/?{query}")
    assert answer.status_code == 400 and answer.json()["field"] == field


def test_a_container_the_pod_lacks_is_refused_and_the_page_says_why(shop, client, viewer, api_as):
    pods = api_as(viewer).get(f"/api/v1/workloads/{shop.pk}/members/").json()["clusters"][0]["pods"]
    client.force_login(viewer)
    page = client.get(f"/workloads/{shop.pk}/logs/?cluster=cluster-01&pod={pods[0]['name']}&container=nope")
    assert page.status_code == 400 and "has no container" in page.content.decode()
    fine = client.get(f"/workloads/{shop.pk}/logs/?cluster=cluster-01&pod={pods[0]['name']}")
    assert fine.status_code == 200 and "ready to serve" in fine.content.decode()


def test_follow_streams_the_tail_as_server_sent_events(shop, client, viewer, api_as):
    pods = api_as(viewer).get(f"/api/v1/workloads/{shop.pk}/members/").json()["clusters"][0]["pods"]
    client.force_login(viewer)
    answer = client.get(f"/workloads/{shop.pk}/logs/follow/?cluster=cluster-01&pod={pods[0]['name']}&tail=2")
    assert answer["Content-Type"] == "text/event-stream"
    first = next(iter(answer.streaming_content)).decode()
    assert first.startswith("data: ")
    answer.close()


CRASHY = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: crashy, namespace: default}
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
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: crashy, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: crashy}]
  placement: {clusterAffinity: {clusterNames: [cluster-01]}}
"""


def test_a_crash_looping_pod_says_why_it_is_not_ready_and_its_previous_run_can_be_read(
    members, shop, api_as, viewer
):
    apply_yaml(CRASHY)
    converge(1)
    crashy = ResourceTemplate.objects.get(name="crashy")
    api = api_as(viewer)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        (row,) = api.get(f"/api/v1/workloads/{crashy.pk}/members/").json()["clusters"]
        if row["pods"] and row["pods"][0]["restarts"] >= 1:
            break
        time.sleep(0.5)
    (pod,) = row["pods"]
    assert not pod["isReady"] and pod["reason"] in ("CrashLoopBackOff", "Error", "Error (restarted)")
    answer = api.get(
        f"/api/v1/workloads/{crashy.pk}/logs/?cluster=cluster-01&pod={pod['name']}&previous=true"
    )
    assert answer.status_code == 200 and answer.content.decode().strip()
    shop_pod = api.get(f"/api/v1/workloads/{shop.pk}/members/").json()["clusters"][0]["pods"][0]["name"]
    never = api.get(f"/api/v1/workloads/{shop.pk}/logs/?cluster=cluster-01&pod={shop_pod}&previous=true")
    assert never.status_code == 400 and never.json()["field"] == "previous"
