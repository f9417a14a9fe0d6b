"""Drift of member copies: a change by hand with kubectl is found with the field manager that made it,
kept as a drift event with its diff, and put back; with dispatching suspended the live diff stays, held,
until an operator re-applies; the fleet and cluster pages count it."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from clusters.k8s import objects
from core.models import AuditEntry
from scheduling import services
from scheduling.members.drift import copies_drift, drift_counts
from scheduling.models import DriftEvent, ResourceBinding, ResourceTemplate
from tests.integration.scheduling.test_across_clusters import TWO_CONTAINERS
from tests.support.members import converge, member_object

pytestmark = pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl edits the member copy")


@pytest.fixture
def shop(members):
    services.apply_yaml(TWO_CONTAINERS)
    converge(1)
    return ResourceTemplate.objects.get(name="shop")


@pytest.fixture
def by_hand(member_sim, member_kubeconfig):
    """Run kubectl against one simulated member, as a person at a terminal would."""
    kubeconfig = member_kubeconfig(member_sim)

    def run(cluster: str, *args: str) -> None:
        subprocess.run(
            ["kubectl", "--kubeconfig", str(kubeconfig), "--context", cluster, *args],
            check=True,
            capture_output=True,
            text=True,
            timeout=60,
        )

    return run


IMAGE_PATH = "spec.template.spec.containers[name=web].image"


def test_a_change_by_hand_is_kept_with_its_manager_and_diff_and_put_back(shop, members, by_hand):
    by_hand("cluster-01", "set", "image", "deployment/shop", "web=nginx:hacked")
    converge(1)
    (event,) = DriftEvent.objects.all()
    assert (event.cluster_name, event.object_kind, event.object_name) == ("cluster-01", "Deployment", "shop")
    (change,) = event.changes
    assert (change["path"], change["desired"], change["live"]) == (IMAGE_PATH, "nginx:1.27", "nginx:hacked")
    assert change["managers"] == ["kubectl-set"]
    assert [m["manager"] for m in event.managers] == ["kubectl-set"] and event.managers[0]["time"]
    assert "-      - image: nginx:1.27" in event.diff and "+      - image: nginx:hacked" in event.diff
    assert event.state == DriftEvent.PUT_BACK and event.put_back_at and event.put_back_by == "karmada-ui"
    live = member_object(members["cluster-01"], "apps/v1", "Deployment", "shop")
    assert live["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.27"
    assert drift_counts("cluster-01") == {"total": 1, "put_back": 1, "held": 0}
    assert drift_counts("cluster-02")["total"] == 0
    converge(1)
    assert DriftEvent.objects.count() == 1  # nothing new once it is back


def test_with_dispatching_suspended_the_live_diff_stays_held_until_an_operator_reapplies(
    shop, members, by_hand, operator
):
    binding = ResourceBinding.objects.get(template=shop)
    services.set_hold(binding, services.DISPATCHING, True, user=operator)
    by_hand("cluster-02", "scale", "deployment/shop", "--replicas=5")
    converge(1)
    rows = {row.cluster: row for row in copies_drift(shop)}
    held = rows["cluster-02"]
    assert held.held == "dispatching is suspended"
    assert [(c["path"], c["desired"], c["live"]) for c in held.changes] == [("spec.replicas", 2, 5)]
    assert "+  replicas: 5" in held.diff
    assert rows["cluster-01"].changes == [] and rows["cluster-01"].held == ""
    assert member_object(members["cluster-02"], "apps/v1", "Deployment", "shop")["spec"]["replicas"] == 5

    result = services.reapply_copy(binding, "cluster-02", user=operator)
    assert result.ok and result.action == "updated"
    assert member_object(members["cluster-02"], "apps/v1", "Deployment", "shop")["spec"]["replicas"] == 2
    assert AuditEntry.objects.filter(action="reapply", object_name="shop").count() == 1
    assert {row.cluster: row.changes for row in copies_drift(shop)} == {"cluster-01": [], "cluster-02": []}


def test_the_pages_show_the_diff_the_hold_and_the_counts(shop, by_hand, client, viewer, operator):
    binding = ResourceBinding.objects.get(template=shop)
    by_hand("cluster-01", "set", "image", "deployment/shop", "web=nginx:hacked")
    converge(1)
    services.set_hold(binding, services.DISPATCHING, True, user=operator)
    by_hand("cluster-02", "set", "image", "deployment/shop", "sidecar=envoy:evil")
    client.force_login(viewer)
    html = client.get(f"/workloads/{shop.pk}/drift/").content.decode()
    assert 'data-drift="drifted"' in html and "dispatching is suspended" in html
    assert "kubectl-set" in html and "envoy:evil" in html and 'data-drift-event="put-back"' in html
    assert "Re-apply now" not in html  # viewers see the hold, operators act on it
    assert client.post(f"/workloads/{shop.pk}/reapply/", {"cluster": "cluster-02"}).status_code == 403
    fleet = client.get("/workloads/drift-counts/").content.decode()
    assert 'data-drift-total="1"' in fleet and "cluster-01</a> 1" in fleet
    client.force_login(operator)
    assert "Re-apply now" in client.get(f"/workloads/{shop.pk}/drift/").content.decode()
    answer = client.post(f"/workloads/{shop.pk}/reapply/", {"cluster": "cluster-02"})
    assert answer.status_code == 302
    assert client.post(f"/workloads/{shop.pk}/reapply/", {"cluster": "nowhere"}).status_code == 400


def test_the_api_gives_each_copys_manifest_live_diff_hold_and_events(shop, by_hand, api_as, viewer, operator):
    binding = ResourceBinding.objects.get(template=shop)
    by_hand("cluster-01", "set", "image", "deployment/shop", "web=nginx:hacked")
    converge(1)
    services.set_hold(binding, services.DISPATCHING, True, user=operator)
    by_hand("cluster-02", "scale", "deployment/shop", "--replicas=4")
    rows = {row["cluster"]: row for row in api_as(viewer).get(f"/api/v1/workloads/{shop.pk}/drift/").json()}
    assert rows["cluster-01"]["changes"] == [] and rows["cluster-01"]["held"] == ""
    (event,) = rows["cluster-01"]["events"]
    assert event["state"] == "put-back" and event["changes"][0]["managers"] == ["kubectl-set"]
    assert event["putBackBy"] == "karmada-ui" and event["managers"][0]["manager"] == "kubectl-set"
    assert rows["cluster-02"]["held"] == "dispatching is suspended"
    assert [c["path"] for c in rows["cluster-02"]["changes"]] == ["spec.replicas"]
    assert rows["cluster-02"]["manifest"]["metadata"]["labels"]["karmada.io/managed"] == "true"


def test_an_object_someone_else_owns_is_a_held_diff_not_a_drift_event(members, operator):
    conn = members["cluster-01"].connection()
    theirs = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "shop", "namespace": "default"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "shop"}},
            "template": {
                "metadata": {"labels": {"app": "shop"}},
                "spec": {"containers": [{"name": "web", "image": "theirs:1"}]},
            },
        },
    }
    objects.apply_object(conn, theirs)
    services.apply_yaml(TWO_CONTAINERS)
    converge(2)
    assert DriftEvent.objects.filter(cluster_name="cluster-01").count() == 0
    shop = ResourceTemplate.objects.get(name="shop")
    row = {r.cluster: r for r in copies_drift(shop)}["cluster-01"]
    assert row.held.startswith("conflictResolution is Abort")
    assert any(c["path"].endswith("containers[name=web].image") for c in row.changes)


OVERRIDE = """
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: beijing-mirror, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: shop}]
  overrideRules:
  - targetCluster: {clusterNames: [cluster-01]}
    overriders:
      imageOverrider:
      - {component: Registry, operator: replace, value: mirror.example.com}
"""


def test_an_override_is_checked_by_looking_at_each_clusters_effective_manifest(members, client, viewer):
    services.apply_yaml(OVERRIDE + "---\n" + TWO_CONTAINERS)
    converge(1)
    shop = ResourceTemplate.objects.get(name="shop")
    client.force_login(viewer)
    html = client.get(f"/workloads/{shop.pk}/drift/").content.decode()
    beijing = html.split('data-cluster="cluster-01"')[1].split('data-cluster="cluster-02"')[0]
    assert "OverridePolicy beijing-mirror" in beijing and "image: mirror.example.com/nginx:1.27" in beijing
    shanghai = html.split('data-cluster="cluster-02"')[1]
    assert "beijing-mirror" not in shanghai and "image: nginx:1.27" in shanghai
    assert html.count('data-drift="in-sync"') == 2  # each copy is as its own effective manifest says
