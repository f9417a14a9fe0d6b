"""A write through /k8s whose object holds U+0000 anywhere is refused with 422 naming the field (the
database cannot keep the character: PostgreSQL's jsonb refuses it), and nothing is saved."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token

from core.roles import OPERATOR
from scheduling.models import PropagationPolicy, ResourceTemplate
from tests.conftest import make_user

pytestmark = pytest.mark.django_db

POLICIES = "/k8s/apis/policy.karmada.io/v1alpha1/namespaces/default/propagationpolicies"
CONFIGMAPS = "/k8s/api/v1/namespaces/default/configmaps"


@pytest.fixture
def client():
    token = Token.objects.create(user=make_user("olga-operator", OPERATOR))
    return Client(HTTP_AUTHORIZATION=f"Bearer {token.key}")


def policy(label: str = "prod", key: str = "env") -> dict:
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "web"}],
            "placement": {"clusterAffinity": {"labelSelector": {"matchLabels": {key: label}}}},
        },
    }


def configmap(value: str = "1") -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "web"}, "data": {"a": value}}


def refused(response, field: str) -> None:
    assert response.status_code == 422, response.content[:300]
    status = response.json()
    assert status["kind"] == "Status" and status["reason"] == "Invalid"
    assert [cause["field"] for cause in status["details"]["causes"]] == [field]
    assert "U+0000" in status["message"]


def test_a_created_policy_holding_nul_in_a_label_value_is_refused_with_the_field(client):
    response = client.post(POLICIES, json.dumps(policy(label="pr\x00d")), content_type="application/json")
    refused(response, "spec.placement.clusterAffinity.labelSelector.matchLabels[env]")
    assert not PropagationPolicy.objects.exists()


def test_a_nul_in_a_map_key_is_named_without_the_character(client):
    response = client.post(POLICIES, json.dumps(policy(key="e\x00nv")), content_type="application/json")
    refused(response, "spec.placement.clusterAffinity.labelSelector.matchLabels[e\\0nv]")
    assert not PropagationPolicy.objects.exists()


def test_a_patch_and_a_server_side_apply_that_would_write_nul_are_refused_and_keep_the_object(client):
    created = client.post(CONFIGMAPS, json.dumps(configmap()), content_type="application/json")
    assert created.status_code == 201, created.content[:300]
    merge = client.patch(
        f"{CONFIGMAPS}/web", json.dumps({"data": {"a": "\x00"}}), content_type="application/merge-patch+json"
    )
    refused(merge, "data[a]")
    applied = client.patch(
        f"{CONFIGMAPS}/web?fieldManager=me&force=true",
        json.dumps(configmap("x\x00")),
        content_type="application/apply-patch+yaml",
    )
    refused(applied, "data[a]")
    assert ResourceTemplate.objects.get(name="web").manifest["data"] == {"a": "1"}
