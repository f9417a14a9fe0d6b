"""The failure drill on simulated members: NotReady moves nothing, NoExecute evicts when Karmada would."""

from __future__ import annotations

import copy

import pytest
import yaml
from django.urls import reverse

from scheduling.models import ResourceBinding
from scheduling.services import apply_yaml
from tests.support.members import member_spec
from tests.unit.editor.seed import POLICY_7_3

SHOP = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: shop, namespace: default}
spec:
  replicas: 10
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec: {containers: [{name: shop, image: nginx:1.27}]}
"""


@pytest.fixture
def member_specs():
    """The seed's three cities with one node each and no zones, for the shared `members` fixture."""
    return [
        member_spec("beijing", nodes=1, zones=[], labels={"env": "prod"}),
        member_spec("shanghai", nodes=1, zones=[], labels={"env": "prod"}),
        member_spec("guangzhou", nodes=1, zones=[], labels={"env": "staging"}),
    ]


@pytest.fixture
def shop(members):
    """shop runs 7 in beijing and 3 in shanghai under the seed's policy."""

    def start(policy=POLICY_7_3):
        apply_yaml(SHOP + "---\n" + yaml.safe_dump(policy))
        assert ResourceBinding.objects.get().target_replicas() == {"beijing": 7, "shanghai": 3}

    return start


def outcome_of(body: str) -> str:
    return body[body.index('data-workload="Deployment default/shop"') :]


def test_a_cluster_going_not_ready_moves_no_replica_and_says_why(shop, operator_client):
    shop()
    body = operator_client.get(reverse("scheduling:failure_drill"), {"cluster": "beijing"}).content.decode()
    outcome = outcome_of(body)
    assert "No move." in outcome
    assert "the replicas already on beijing stay there" in outcome
    assert "Placed from scratch now, it would get shanghai 10." in outcome
    assert ResourceBinding.objects.get().target_replicas() == {"beijing": 7, "shanghai": 3}


def test_a_no_execute_taint_evicts_at_once_and_re_places_the_replicas(shop, operator_client):
    shop()
    response = operator_client.get(
        reverse("scheduling:failure_drill"), {"cluster": "beijing", "condition": "NoExecute"}
    )
    outcome = outcome_of(response.content.decode()).replace("\n", "")
    assert "At once: the policy does not tolerate the NoExecute taint." in outcome
    assert "Graceful eviction: the copy on beijing keeps running" in outcome
    assert (
        '<tr data-cluster="beijing"><td>beijing</td><td class="num">7</td><td class="num" data-after>0</td>'
        in outcome
    )
    shanghai = (
        '<tr data-cluster="shanghai"><td>shanghai</td><td class="num">3</td><td class="num" data-after>10'
    )
    assert shanghai in outcome
    assert ResourceBinding.objects.get().target_replicas() == {"beijing": 7, "shanghai": 3}, (
        "a drill changes nothing"
    )


def test_a_toleration_with_seconds_delays_the_eviction(shop, operator_client):
    policy = copy.deepcopy(POLICY_7_3)
    policy["spec"]["placement"]["clusterTolerations"] = [
        {
            "key": "drill.karmada-ui.io/failure",
            "operator": "Exists",
            "effect": "NoExecute",
            "tolerationSeconds": 30,
        }
    ]
    shop(policy)
    body = operator_client.get(
        reverse("scheduling:failure_drill"), {"cluster": "beijing", "condition": "NoExecute"}
    )
    assert "After 30 s, when its tolerationSeconds run out." in body.content.decode()


def test_an_unknown_cluster_is_a_clear_400(shop, operator_client):
    response = operator_client.get(reverse("scheduling:failure_drill"), {"cluster": "atlantis"})
    assert response.status_code == 400
    assert b"There is no cluster named atlantis." in response.content


def many_shops(first: int, count: int) -> str:
    """`count` Deployments shop-<i> that the policy of fleet_policy() takes, as one YAML file."""
    return "---\n".join(
        SHOP.replace(
            "metadata: {name: shop, namespace: default}",
            f"metadata: {{name: shop-{i:03d}, namespace: default, labels: {{group: shops}}}}",
        )
        for i in range(first, first + count)
    )


FLEET_POLICY = copy.deepcopy(POLICY_7_3)
FLEET_POLICY["spec"]["resourceSelectors"] = [
    {"apiVersion": "apps/v1", "kind": "Deployment", "labelSelector": {"matchLabels": {"group": "shops"}}}
]


def test_the_drill_is_summarised_and_paginated_with_bounded_queries_at_ten_times_the_fleet(
    shop, operator_client, monkeypatch, django_assert_max_num_queries
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from scheduling.editor import drill

    monkeypatch.setattr(drill, "PAGE_SIZE", 4)
    url = reverse("scheduling:failure_drill")
    query = {"cluster": "beijing", "condition": "NoExecute"}
    apply_yaml(many_shops(0, 4) + "---\n" + yaml.safe_dump(FLEET_POLICY))
    with CaptureQueriesContext(connection) as small:
        assert operator_client.get(url, query).status_code == 200
    apply_yaml(many_shops(4, 36))  # 40 workloads: ten times the fleet, ten pages
    with django_assert_max_num_queries(len(small.captured_queries)):
        response = operator_client.get(url, query)
    body = response.content.decode()
    assert "40 workloads have 280 replicas on beijing. Showing 1\u20134." in body
    assert body.count('class="whatif-item drill-outcome"') == 4
    assert "Page 1 of 10" in body
    last = operator_client.get(url, {**query, "page": "10"}).content.decode()
    assert 'data-workload="Deployment default/shop-039"' in last and "Showing 37\u201340." in last
    assert len(response.content) < 1_000_000
