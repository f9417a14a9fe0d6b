"""``manage.py simulate`` with quotas, priority classes, group peers and priced clusters."""

from __future__ import annotations

import json

import pytest

from tests.integration.test_simulate_command import EXAMPLES, simulate

CHECKOUT = (EXAMPLES / "checkout-quota.yaml").read_text()


def test_the_example_is_placed_off_the_anti_affinity_peer_with_its_priority_and_cost():
    code, out, err = simulate("-f", "-", stdin=CHECKOUT)
    assert code == 0, err
    report = json.loads(out)
    assert report["clusters"] == [{"name": "guangzhou", "replicas": 2}, {"name": "shanghai", "replicas": 2}]
    assert report["schedulePriority"] == 100000
    beijing = next(c for c in report["explain"]["clusters"] if c["name"] == "beijing")
    assert beijing["reasons"][0]["code"] == "anti_affinity_group_here"
    assert report["quota"]["exceeded"] is False
    assert report["quota"]["quotas"][0]["resources"][0]["projected"] == "4"
    assert report["cost"]["hour"] == pytest.approx(2 * 0.25 * 0.031 + 2 * (0.25 * 0.04 + 0.5 * 0.005))


def test_a_split_over_the_quota_exits_3_and_the_table_says_by_how_much():
    code, out, _ = simulate("-f", "-", "-o", "table", stdin=CHECKOUT.replace("replicas: 4", "replicas: 6"))
    assert code == 3
    assert "would take shop/shop-team over its cpu limit: 4500m of 4, 500m over" in out
    assert "Not scheduled (QuotaExceeded)" in out
    assert "total 0.06075 per hour" in out


def test_a_previous_result_and_a_peer_binding_are_told_apart():
    previous = (
        "\n---\napiVersion: work.karmada.io/v1alpha2\nkind: ResourceBinding\n"
        "metadata: {name: checkout-deployment, namespace: shop}\n"
        "spec:\n  resource: {apiVersion: apps/v1, kind: Deployment, name: checkout, namespace: shop}\n"
        "  clusters: [{name: shanghai, replicas: 4}]\n"
    )
    code, out, _ = simulate("-f", "-", stdin=CHECKOUT + previous)
    report = json.loads(out)
    assert code == 0
    assert report["cost"]["current_hour"] == pytest.approx(4 * 0.0125)
    assert report["cost"]["difference_hour"] == pytest.approx(report["cost"]["hour"] - 4 * 0.0125)


def test_a_missing_priority_class_exits_2_with_one_line():
    text = CHECKOUT.replace("name: business-critical}", "name: unused}")
    code, _, err = simulate("-f", "-", stdin=text)
    assert code == 2
    assert err.strip().count("\n") == 0
    assert 'spec.schedulePriority: priorityclasses.scheduling.k8s.io "business-critical" not found' in err


def test_a_quota_without_overall_is_refused_by_document_and_field():
    text = CHECKOUT.replace('overall: {cpu: "4", memory: 16Gi}', "other: {}")
    code, _, err = simulate("-f", "-", stdin=text)
    assert code == 2
    assert "FederatedResourceQuota shop-team" in err and "spec.overall: is required" in err
