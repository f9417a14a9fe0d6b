"""The staged rollout through the REST API and the page: the waves, pause, resume, abort and bad steps."""

from __future__ import annotations

import time

from scheduling.models import ResourceTemplate
from scheduling.services import apply_yaml
from tests.e2e.test_staged_rollout import web
from tests.support.members import converge, member_object

POLICY = """
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: web
  namespace: shop
  annotations: {rollout.karmada-ui.io/waves: "env=staging; *", rollout.karmada-ui.io/soak: 10m}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  placement: {replicaScheduling: {replicaSchedulingType: Duplicated}}
"""


def start_rollout(members):
    apply_yaml(POLICY + "---" + web("1.0"))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not all(
        member_object(c, "apps/v1", "Deployment", "web", "shop") for c in members.values()
    ):
        converge(1)
    apply_yaml(web("2.0"))
    return ResourceTemplate.objects.get(name="web").pk


def test_the_api_shows_the_waves_and_an_operator_pauses_resumes_and_aborts(members, api_as, operator, viewer):
    pk = start_rollout(members)
    url = f"/api/v1/workloads/{pk}/rollout/"
    body = api_as(viewer).get(url).json()
    assert body["staged"] is True
    assert body["settings"]["waves"] == ["env=staging", "*"]
    assert body["rollout"]["phase"] == "Progressing"
    assert (body["rollout"]["fromRevision"], body["rollout"]["toRevision"]) == (1, 2)
    assert body["rollout"]["released"] == ["cluster-03"]
    assert [w["clusters"] for w in body["waves"]] == [["cluster-03"], ["cluster-01", "cluster-02"]]
    assert body["waves"][1]["stages"][0]["code"] == "WaitingForWave"
    assert body["steps"] == ["pause", "abort"]

    assert api_as(viewer).post(url, {"step": "pause"}, format="json").status_code == 403
    paused = api_as(operator).post(url, {"step": "pause"}, format="json")
    assert paused.status_code == 200
    assert paused.json()["rollout"]["phase"] == "Paused"
    assert paused.json()["steps"] == ["resume", "abort"]

    refused = api_as(operator).post(url, {"step": "pause"}, format="json")
    assert refused.status_code == 400
    assert refused.json()["field"] == "step"
    assert "a paused rollout cannot be told to pause" in refused.json()["reason"]
    unknown = api_as(operator).post(url, {"step": "restart"}, format="json")
    assert unknown.status_code == 400 and unknown.json()["field"] == "step"

    assert (
        api_as(operator).post(url, {"step": "resume"}, format="json").json()["rollout"]["phase"]
        == "Progressing"
    )
    aborted = api_as(operator).post(url, {"step": "abort"}, format="json").json()
    assert aborted["rollout"]["phase"] == "Aborted"
    assert aborted["waves"][0]["stages"][0]["state"] == "rolledBack"
    staging = member_object(members["cluster-03"], "apps/v1", "Deployment", "web", "shop")
    assert staging["spec"]["template"]["spec"]["containers"][0]["image"] == "shop/web:1.0"


def test_a_workload_without_a_rollout_refuses_a_step_and_its_page_says_how_to_stage_one(
    members, api_as, operator, client
):
    apply_yaml(POLICY.replace("rollout.karmada-ui.io/waves", "note") + "---" + web("1.0"))
    pk = ResourceTemplate.objects.get(name="web").pk
    answer = api_as(operator).post(f"/api/v1/workloads/{pk}/rollout/", {"step": "abort"}, format="json")
    assert answer.status_code == 400
    assert answer.json()["field"] == "step"
    client.force_login(operator)
    page = client.get(f"/workloads/{pk}/rollout/")
    assert page.status_code == 200
    assert "does not stage rollouts" in page.content.decode()
    assert client.post(f"/workloads/{pk}/rollout/step/", {"step": "abort"}).status_code == 400


def test_the_rollout_page_reads_a_bounded_number_of_rows(
    members, client, operator, django_assert_max_num_queries
):
    pk = start_rollout(members)
    client.force_login(operator)
    with django_assert_max_num_queries(16):
        page = client.get(f"/workloads/{pk}/rollout/")
    assert page.status_code == 200
    assert 'data-cluster="cluster-03"' in page.content.decode()
