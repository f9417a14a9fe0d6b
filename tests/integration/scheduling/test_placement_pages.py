"""The quota panel, pause and resume on the workload page, badges, and their REST API."""

from __future__ import annotations

import pytest
import yaml
from django.urls import reverse

from core.models import AuditEntry
from scheduling.models import ResourceBinding
from scheduling.services import SCHEDULING, apply_yaml, set_hold
from tests.integration.editor.test_review_and_apply import editor_post

from .test_placement_features import SPLIT, deployment, docs, policy, quota


@pytest.fixture
def shop(members):
    apply_yaml(docs(quota("1"), deployment("web", 4), policy("web", SPLIT)))
    apply_yaml(docs(deployment("api", 2), policy("api", SPLIT)))
    return {b.template.name: b for b in ResourceBinding.objects.select_related("template")}


def test_the_quota_panel_shows_used_against_limit_the_users_and_the_refused(client, viewer, shop):
    client.force_login(viewer)
    page = client.get(reverse("scheduling:quotas")).content.decode()
    assert 'data-namespace="shop"' in page
    assert 'data-resource="cpu"' in page and "800m" in page and "80%" in page
    assert 'data-workload="web"' in page and "cpu 800m" in page
    assert 'data-workload="api"' in page and "QuotaExceeded" in page
    assert "requested sum 1200m, limit 1" in page
    empty = client.get(reverse("scheduling:quotas") + "?namespace=billing").content.decode()
    assert "No FederatedResourceQuota in namespace billing" in empty


def test_a_quota_key_karmada_never_counts_is_flagged(client, viewer, db):
    apply_yaml(quota("1").replace("cpu:", "requests.cpu:"))
    client.force_login(viewer)
    page = client.get(reverse("scheduling:quotas")).content.decode()
    assert "never counted" in page


def test_an_operator_pauses_and_resumes_from_the_workload_page_and_the_audit_log_records_it(
    client, operator, shop
):
    client.force_login(operator)
    url = reverse("scheduling:workload", args=[shop["web"].template_id])
    page = client.get(url).content.decode()
    assert "Pause scheduling" in page and "Pause on cluster-02" in page
    hold = reverse("scheduling:workload-hold", args=[shop["web"].template_id])
    response = client.post(hold, {"what": "scheduling", "action": "pause"}, follow=True)
    page = response.content.decode()
    assert "Scheduling paused" in page and "Resume scheduling" in page and "suspended" in page
    assert ResourceBinding.objects.get(pk=shop["web"].pk).suspension == {"scheduling": True}
    client.post(hold, {"what": "dispatching", "action": "pause", "cluster": "cluster-02"})
    assert ResourceBinding.objects.get(pk=shop["web"].pk).suspension == {
        "dispatchingOnClusters": {"clusterNames": ["cluster-02"]},
        "scheduling": True,
    }
    listing = client.get(reverse("scheduling:workloads")).content.decode()
    assert "suspended-badge" in listing
    on_cluster = client.get(reverse("scheduling:cluster_workloads", args=["cluster-02"])).content.decode()
    assert "Scheduling and dispatching are suspended" in on_cluster
    client.post(hold, {"what": "scheduling", "action": "resume"})
    actions = set(AuditEntry.objects.values_list("action", flat=True))
    assert {"pause-scheduling", "pause-dispatching", "resume-scheduling"} <= actions


@pytest.mark.parametrize(
    "data",
    [
        {"what": "propagation", "action": "pause"},
        {"what": "scheduling", "action": "stop"},
        {"what": "scheduling", "action": "pause", "cluster": "cluster-01"},
        {"what": "dispatching", "action": "pause", "cluster": "cluster-03"},
    ],
)
def test_a_bad_hold_request_is_refused_with_400(client, operator, shop, data):
    client.force_login(operator)
    response = client.post(reverse("scheduling:workload-hold", args=[shop["web"].template_id]), data)
    assert response.status_code == 400
    assert ResourceBinding.objects.get(pk=shop["web"].pk).suspension is None


def test_viewers_see_the_state_but_no_pause_buttons_and_cannot_post(client, viewer, shop):
    client.force_login(viewer)
    page = client.get(reverse("scheduling:workload", args=[shop["web"].template_id])).content.decode()
    assert "Priority and suspension" in page and "Pause scheduling" not in page
    response = client.post(
        reverse("scheduling:workload-hold", args=[shop["web"].template_id]),
        {"what": "scheduling", "action": "pause"},
    )
    assert response.status_code == 403


def test_the_api_pauses_and_resumes_and_lists_quotas(api_as, operator, viewer, shop):
    api = api_as(operator)
    url = f"/api/v1/workloads/{shop['web'].template_id}/suspension/"
    response = api.post(url, {"dispatching": True}, format="json")
    assert response.status_code == 200
    assert response.json()["dispatching"] is True and response.json()["byOperator"] == {"dispatching": True}
    detail = api.get(f"/api/v1/workloads/{shop['web'].template_id}/").json()
    assert detail["suspension"]["dispatching"] is True
    assert detail["bindingDocument"]["spec"]["suspension"] == {"dispatching": True}
    assert api.post(url, {"dispatching": False}, format="json").json()["suspended"] is False
    assert api_as(viewer).post(url, {"scheduling": True}, format="json").status_code == 403
    quotas = api_as(viewer).get("/api/v1/quotas/").json()
    assert quotas["count"] == 1
    item = quotas["results"][0]
    assert item["document"]["status"]["overallUsed"] == {"cpu": "800m"}
    assert {w["name"]: w.get("refused", "") != "" for w in item["workloads"]} == {"api": True, "web": False}
    one = api_as(viewer).get("/api/v1/quotas/shop/team/")
    assert one.status_code == 200 and one.json()["resources"][0]["resource"] == "cpu"
    assert api_as(viewer).get("/api/v1/quotas/shop/other/").status_code == 404


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "scheduling"),
        ({"scheduling": True, "dispatching": True}, "scheduling"),
        ({"scheduling": "yes"}, "scheduling"),
        ({"scheduling": True, "cluster": "cluster-01"}, "cluster"),
        ({"dispatching": True, "cluster": "nowhere"}, "cluster"),
        ({"dispatching": True, "until": "tomorrow"}, "until"),
    ],
)
def test_a_bad_suspension_request_gets_400_with_the_field(api_as, operator, shop, body, field):
    response = api_as(operator).post(
        f"/api/v1/workloads/{shop['web'].template_id}/suspension/", body, format="json"
    )
    assert response.status_code == 400
    assert response.json()["field"] == field


def test_the_api_preview_shows_the_quota_overrun_and_the_cost(api_as, operator, shop, members):
    members["cluster-01"].labels = {**members["cluster-01"].labels, "cost.karmada-ui.io/cpu-hour": "0.04"}
    members["cluster-01"].save()
    members["cluster-02"].labels = {**members["cluster-02"].labels, "cost.karmada-ui.io/cpu-hour": "0.02"}
    members["cluster-02"].save()
    text = policy("api", SPLIT)
    response = api_as(operator).post(
        "/api/v1/preview/", {"policy": text, "workload": shop["api"].template_id}, format="json"
    )
    body = response.json()
    assert body["plan"]["error"]["reason"] == "QuotaExceeded"
    assert body["quota"]["proposed"] == [
        {"name": "cluster-01", "replicas": 1},
        {"name": "cluster-02", "replicas": 1},
    ]
    assert body["cost"]["hour"] == pytest.approx(0.2 * 0.04 + 0.2 * 0.02)


def test_the_review_before_apply_marks_a_suspended_workload(client, operator, shop):
    set_hold(ResourceBinding.objects.get(pk=shop["web"].pk), SCHEDULING, True)
    client.force_login(operator)
    doc = yaml.safe_load(policy("web", SPLIT))
    body = client.post(reverse("scheduling:policy_review"), editor_post(doc)).content.decode()
    assert "Deployment shop/web" in body
    assert body.count("suspended-badge") == 1


def test_the_editor_preview_keeps_a_draft_anti_affinity_group_off_its_members_clusters(
    client, operator, members
):
    grouped = {"apiVersion": "apps/v1", "kind": "Deployment", "labelSelector": {"matchLabels": {"ha": "db"}}}
    placement = {
        "workloadAffinity": {"antiAffinity": {"groupByLabelKey": "ha"}},
        "spreadConstraints": [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1}],
    }
    apply_yaml(docs(policy("ha", placement, selector=grouped), deployment("db-a", 1, labels={"ha": "db"})))
    taken = next(iter(ResourceBinding.objects.get(name="db-a-deployment").target_replicas()))
    apply_yaml(deployment("db-b", 1, labels={"ha": "db"}))  # the ha policy places it apart from db-a
    draft = yaml.safe_load(
        policy("db-b", placement, selector={"apiVersion": "apps/v1", "kind": "Deployment", "name": "db-b"})
    )
    client.force_login(operator)
    data = editor_post(draft)
    data["workload"] = [str(ResourceBinding.objects.get(name="db-b-deployment").template_id)]
    body = client.post(reverse("scheduling:policy_preview"), data).content.decode()
    assert f'<li data-cluster="{taken}"><strong>{taken}</strong>' in body
    assert "Deployment shop/db-a of the workload anti-affinity group ha=db already runs here" in body
