"""Workload, policy and audit pages and their REST API: the chain, role checks, rebalance, preview."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.urls import reverse

from core.models import AuditEntry
from scheduling.models import PropagationPolicy, ResourceBinding, ResourceTemplate
from scheduling.services import apply_yaml
from tests.support.members import converge

EXAMPLES = Path(__file__).parent / "examples"
NGINX = (EXAMPLES / "nginx-cluster-names.yaml").read_text()
SHOP = NGINX.split("---")[0].replace("nginx", "shop").replace("replicas: 2", "replicas: 10")
SPLIT = (
    (EXAMPLES / "static-weights-7-3.yaml")
    .read_text()
    .replace("beijing", "cluster-01")
    .replace("shanghai", "cluster-02")
)


@pytest.fixture
def propagated(members):
    apply_yaml(NGINX)
    apply_yaml(SHOP + "---\n" + SPLIT)
    converge()
    return ResourceTemplate.objects.get(name="shop")


def test_the_workload_list_shows_ready_and_desired_replicas_and_its_clusters_by_health(
    client, viewer, propagated, django_assert_max_num_queries
):
    client.force_login(viewer)
    with django_assert_max_num_queries(15):
        page = client.get(reverse("scheduling:workloads")).content.decode()
    assert "shop" in page and "nginx" in page
    assert "2 clusters" in page and "2 healthy" in page and "unhealthy" not in page
    assert "10 / 10" in page
    detail = client.get(reverse("scheduling:workload", args=[propagated.pk])).content.decode()
    assert "cluster-01" in detail and "cluster-02" in detail
    fragment = client.get(
        reverse("scheduling:workloads") + "?q=kind=Deployment+sho",
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="workload-table",
    )
    assert "shop" in fragment.content.decode() and "nginx" not in fragment.content.decode()
    assert "<html" not in fragment.content.decode()


def test_the_member_table_polls_its_clusters_without_the_rest_of_the_chain(
    client, viewer, propagated, django_assert_max_num_queries
):
    client.force_login(viewer)
    url = reverse("scheduling:workload", args=[propagated.pk])
    with django_assert_max_num_queries(8):  # session, user, template, binding: never the Works
        fragment = client.get(url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="workload-members")
    text = fragment.content.decode()
    assert "<html" not in text and "Resource template" not in text
    assert "cluster-01" in text and "cluster-02" in text and "Healthy" in text
    for ready in ("7", "3"):
        assert f'<td class="num">{ready}</td>' in text


def test_the_workload_page_shows_the_chain_from_template_to_member_objects(client, viewer, propagated):
    client.force_login(viewer)
    page = client.get(reverse("scheduling:workload", args=[propagated.pk])).content.decode()
    for part in (
        "Resource template",
        "shop-7-3",
        "matched by name",
        "shop-deployment",
        "StaticWeight",
        "karmada-es-cluster-01",
        "Member objects",
        "ScheduleBindingSucceed",
    ):
        assert part in page, part
    assert "Webster" in page or "webster" in page
    assert "Rebalance" not in page  # viewers do not get the button


def test_operators_rebalance_a_workload_and_viewers_cannot(client, viewer, operator, propagated):
    url = reverse("scheduling:workload-rebalance", args=[propagated.pk])
    client.force_login(viewer)
    assert client.post(url).status_code == 403
    client.force_login(operator)
    assert client.post(url).status_code == 302
    binding = ResourceBinding.objects.get(template=propagated)
    assert binding.reschedule_triggered_at is not None
    assert binding.last_scheduled_time >= binding.reschedule_triggered_at  # the fresh schedule ran
    assert AuditEntry.objects.filter(
        action="rebalance", username=operator.username, object_name="shop"
    ).exists()


def test_the_policy_pages_list_claimed_workloads_and_show_yaml(client, viewer, propagated):
    client.force_login(viewer)
    listing = client.get(reverse("scheduling:policies")).content.decode()
    assert "nginx-propagation" in listing and "shop-7-3" in listing
    policy = PropagationPolicy.objects.get(name="shop-7-3")
    detail = client.get(reverse("scheduling:policy", args=[policy.pk])).content.decode()
    assert "staticWeightList" in detail and "Deployment shop" in detail


def test_the_audit_log_shows_who_changed_what_and_the_placement_delta(client, viewer, operator, propagated):
    client.force_login(operator)
    apply_yaml(SHOP.replace("replicas: 10", "replicas: 11"), user=operator)
    client.force_login(viewer)
    page = client.get(reverse("scheduling:audit")).content.decode()
    assert "otto-operator" in page and "apply:configured" in page
    assert "cluster-01 7 → 8" in page


def test_the_api_lists_workloads_and_returns_the_chain(api_as, viewer, operator, propagated):
    client = api_as(viewer)
    rows = client.get("/api/v1/workloads/").json()["results"]
    shop = next(r for r in rows if r["name"] == "shop")
    assert "clusters" not in shop  # per cluster on the workload's own endpoint
    assert shop["summary"] == {
        "clusters": 2,
        "applied": 2,
        "healthy": 2,
        "unhealthy": 0,
        "unknown": 0,
        "failed": 0,
        "desired": 10,
        "ready": 10,
    }
    detail = client.get(f"/api/v1/workloads/{shop['id']}/").json()
    assert {c["cluster"]: c["desired"] for c in detail["clusters"]} == {"cluster-01": 7, "cluster-02": 3}
    assert detail["summary"] == shop["summary"]
    assert detail["why"]["matched_by"] == "name"
    assert detail["bindingDocument"]["spec"]["clusters"] == [
        {"name": "cluster-01", "replicas": 7},
        {"name": "cluster-02", "replicas": 3},
    ]
    assert all(w["applied"] for w in detail["works"])
    assert any(e["reason"] == "ScheduleBindingSucceed" and e["sentences"] for e in detail["events"])
    assert client.post(f"/api/v1/workloads/{shop['id']}/rebalance/").status_code == 403
    assert api_as(operator).post(f"/api/v1/workloads/{shop['id']}/rebalance/").json() == {"rebalanced": 1}
    policies = client.get("/api/v1/policies/").json()["results"]
    assert {p["document"]["metadata"]["name"] for p in policies} == {"nginx-propagation", "shop-7-3"}
    assert client.get("/api/v1/audit/").json()["count"] >= 3
    assert client.get("/api/v1/workloads/999999/").status_code == 404


def test_the_preview_api_plans_a_policy_without_saving_it(api_as, viewer, propagated):
    client = api_as(viewer)
    proposal = SPLIT.replace("weight: 7", "weight: 1").replace("weight: 3", "weight: 1")
    answer = client.post("/api/v1/preview/", {"policy": proposal, "workload": propagated.pk}, format="json")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert {c["name"]: c["replicas"] for c in body["plan"]["clusters"]} == {"cluster-01": 5, "cluster-02": 5}
    assert body["delta"] == {"cluster-01": {"before": 7, "after": 5}, "cluster-02": {"before": 3, "after": 5}}
    assert body["sentences"]
    assert ResourceBinding.objects.get(template=propagated).target_replicas() == {
        "cluster-01": 7,
        "cluster-02": 3,
    }
    bad = client.post(
        "/api/v1/preview/",
        {"policy": SPLIT.replace("weight: 7", "weight: 0"), "workload": propagated.pk},
        format="json",
    )
    assert bad.status_code == 400 and bad.json()["field"].startswith("spec.placement")
    assert client.post("/api/v1/preview/", {"policy": SPLIT, "workload": 0}, format="json").status_code == 400


def test_deleting_a_workload_through_the_api_removes_its_member_copies(api_as, viewer, operator, propagated):
    from tests.support.members import member_object

    url = f"/api/v1/workloads/{propagated.pk}/"
    assert api_as(viewer).delete(url).status_code == 403
    assert api_as(operator).delete(url).status_code == 202
    converge()
    assert not ResourceTemplate.objects.filter(pk=propagated.pk).exists()
    from clusters.models import Cluster

    assert member_object(Cluster.objects.get(name="cluster-01"), "apps/v1", "Deployment", "shop") is None
    assert AuditEntry.objects.filter(action="delete", object_name="shop", username=operator.username).exists()
    assert api_as(operator).delete(url).status_code == 404


def test_the_api_lists_make_as_many_queries_for_many_rows_as_for_few(api_as, viewer, operator, propagated):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = api_as(viewer)
    urls = ("/api/v1/workloads/", "/api/v1/policies/", "/api/v1/audit/")

    def counts() -> list[int]:
        found = []
        for url in urls:
            with CaptureQueriesContext(connection) as queries:
                assert client.get(url).status_code == 200
            found.append(len(queries))
        return found

    counts()  # the first request also reads the user's roles
    few = counts()
    maps = "\n---\n".join(
        f"apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: settings-{i}, namespace: default}}\n"
        for i in range(20)
    )
    apply_yaml(maps, user=operator)
    assert counts() == few
