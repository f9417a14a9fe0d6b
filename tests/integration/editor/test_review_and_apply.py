"""Review & apply against simulated members: the what-if diff, the apply, the audit entry, 7 and 3 running."""

from __future__ import annotations

import html
import json
import re

from django.urls import reverse

from core.models import AuditEntry
from scheduling.editor.formstate import form_from_policy
from scheduling.editor.models import PolicyDraft
from scheduling.models import ResourceBinding, ResourceTemplate
from scheduling.services import apply_yaml
from tests.support.members import member_object
from tests.unit.editor.seed import POLICY_7_3, policy_with_weights
from tests.unit.editor.test_form_conversion import submitted

SHOP = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: shop, namespace: default, labels: {app: shop}}
spec:
  replicas: 10
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec:
      containers: [{name: shop, image: nginx:1.27, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
"""


def editor_post(doc: dict) -> dict:
    data = submitted(form_from_policy(doc))
    data["mode"] = "form"
    return dict(data.lists())


def replicas_in(member) -> int | None:
    live = member_object(member, "apps/v1", "Deployment", "shop")
    return None if live is None else live["spec"]["replicas"]


def test_review_shows_the_workload_the_policy_captures_and_where_its_replicas_go(members, operator_client):
    apply_yaml(SHOP)
    response = operator_client.post(reverse("scheduling:policy_review"), editor_post(POLICY_7_3))
    body = response.content.decode()
    assert response.status_code == 200
    assert "Deployment default/shop" in body
    assert "held by no policy now" in body
    assert body.count('<span class="badge ok">added</span>') == 2


def test_applying_the_reviewed_policy_runs_seven_and_three_replicas_and_audits_the_diff(
    members, operator_client
):
    apply_yaml(SHOP)
    PolicyDraft.objects.create(kind="PropagationPolicy", namespace="default", name="shop-split", document={})
    response = operator_client.post(reverse("scheduling:policy_apply"), {"document": json.dumps(POLICY_7_3)})
    assert response.status_code == 302
    assert ResourceBinding.objects.get().target_replicas() == {"beijing": 7, "shanghai": 3}
    assert (replicas_in(members["beijing"]), replicas_in(members["shanghai"])) == (7, 3)
    assert replicas_in(members["guangzhou"]) is None
    entry = AuditEntry.objects.get(object_kind="PropagationPolicy")  # one entry for the one apply
    assert (entry.action, entry.object_name) == ("apply:created", "shop-split")
    assert entry.username == "otto-operator"
    assert entry.placement_delta == {
        "beijing": {"before": 0, "after": 7},
        "shanghai": {"before": 0, "after": 3},
    }
    assert entry.changes['placement["Deployment default/shop"]'] == {
        "before": {},
        "after": {"beijing": 7, "shanghai": 3},
    }
    placement = entry.changes["spec"]["after"]["placement"]
    assert placement["replicaScheduling"]["replicaSchedulingType"] == "Divided"
    assert not PolicyDraft.objects.exists()


def test_editing_an_applied_policy_reviews_the_move_from_the_current_split(members, operator_client):
    apply_yaml(SHOP)
    operator_client.post(reverse("scheduling:policy_apply"), {"document": json.dumps(POLICY_7_3)})
    changed = policy_with_weights(("beijing", 1), ("shanghai", 1))
    body = operator_client.post(reverse("scheduling:policy_review"), editor_post(changed)).content.decode()
    assert "held now by this policy" in body
    assert '<td>beijing</td><td class="num">7</td><td class="num">5</td>' in body.replace("\n", "").replace(
        "    ", ""
    )


def test_applying_an_invalid_document_is_a_clear_400(members, operator_client):
    bad = json.loads(json.dumps(POLICY_7_3))
    bad["spec"]["placement"]["spreadConstraints"] = [
        {"spreadByField": "region", "minGroups": 2, "maxGroups": 1}
    ]
    response = operator_client.post(reverse("scheduling:policy_apply"), {"document": json.dumps(bad)})
    assert response.status_code == 400
    assert b"maxGroups" in response.content


def test_a_workload_claimed_by_another_policy_stays_unless_this_one_preempts(members, operator_client):
    older = json.loads(json.dumps(POLICY_7_3))
    older["metadata"]["name"] = "older"
    apply_yaml(SHOP + "---\n" + json.dumps(older))
    newer = json.loads(json.dumps(POLICY_7_3))
    newer["spec"]["priority"] = 10
    body = operator_client.post(reverse("scheduling:policy_review"), editor_post(newer)).content.decode()
    assert "Matched but not taken" in body
    assert "PropagationPolicy default/older: it is claimed already and this policy may not preempt it" in body
    newer["spec"]["preemption"] = "Always"
    body = operator_client.post(reverse("scheduling:policy_review"), editor_post(newer)).content.decode()
    assert "held now by PropagationPolicy default/older" in body


def test_the_edit_page_of_an_applied_policy_shows_its_weights_and_hides_the_permanent_id(
    members, operator_client
):
    apply_yaml(SHOP)
    operator_client.post(reverse("scheduling:policy_apply"), {"document": json.dumps(POLICY_7_3)})
    page = operator_client.get(reverse("scheduling:policy_edit", args=["default", "shop-split"]))
    body = page.content.decode()
    assert page.status_code == 200
    rows = body[body.index('id="rows-w"') : body.index('<template id="tpl-w">')]
    assert re.findall(r'name="w_weight" min="1" step="1" value="(\d+)"', rows) == ["7", "3"]
    assert "permanent-id" not in body
    assert '<option value="1" selected>Deployment default/shop</option>' in body.replace(
        f'value="{ResourceTemplate.objects.get().pk}"', 'value="1"'
    )


def test_a_cluster_propagation_policy_is_authored_and_applied_the_same_way(members, operator_client):
    apply_yaml(SHOP)
    data = editor_post(POLICY_7_3)
    data["kind"] = ["ClusterPropagationPolicy"]
    data["name"] = ["shop-split-everywhere"]
    review = operator_client.post(reverse("scheduling:policy_review"), data).content.decode()
    assert "Deployment default/shop" in review
    document = re.search(r'name="document" value="([^"]*)"', review).group(1)
    response = operator_client.post(reverse("scheduling:policy_apply"), {"document": html.unescape(document)})
    assert response.status_code == 302
    assert response["Location"] == reverse(
        "scheduling:cluster_policy_edit", args=["shop-split-everywhere"]
    ) + ("?source=applied")
    binding = ResourceBinding.objects.get()
    assert binding.policy.kind == "ClusterPropagationPolicy"
    assert binding.target_replicas() == {"beijing": 7, "shanghai": 3}
