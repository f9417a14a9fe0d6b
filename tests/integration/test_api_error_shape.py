"""Every /api/v1/ endpoint refuses in one shape, and the schema says so: generated from serializers."""

from __future__ import annotations

import pytest

from clusters.models import Cluster
from tests.support.api import problems

pytestmark = pytest.mark.django_db

# (method, url, body, status, field): one refusal of each kind, from each app's API.
REFUSALS = {
    "a bad selector": ("get", "/api/v1/clusters/?selector=env%3D%3D%3Dprod", None, 400, "selector"),
    "a join without a kubeconfig": ("post", "/api/v1/clusters/", {"name": "x"}, 400, "kubeconfig"),
    "a label value with a space": (
        "patch",
        "/api/v1/clusters/beijing/labels/",
        {"set": {"env": "pr od"}},
        400,
        "labels",
    ),
    "a bad label key in a nested map": (
        "put",
        "/api/v1/clusters/beijing/labels/",
        {"labels": {"location/region": "x" * 70}, "resource_version": 1},
        400,
        'labels["location/region"]',
    ),
    "a stale resource version": (
        "patch",
        "/api/v1/clusters/beijing/labels/",
        {"set": {"env": "prod"}, "resource_version": 99},
        409,
        "resource_version",
    ),
    "an unknown cluster": ("get", "/api/v1/clusters/nowhere/", None, 404, ""),
    "a path no route has": ("get", "/api/v1/clusters/Not_A_Name!/", None, 404, ""),
    "a convention with a bad pattern": (
        "post",
        "/api/v1/conventions/",
        {"key": "a/b", "pattern": "("},
        400,
        "pattern",
    ),
    "a silence with a bad duration": (
        "post",
        "/api/v1/silences/",
        {"matchers": {"alertname": "X"}, "duration": "forever", "comment": "c"},
        400,
        "duration",
    ),
    "an unknown alert state": ("get", "/api/v1/alerts/?state=angry", None, 400, "state"),
    "a preview of no workload": ("post", "/api/v1/preview/", {"policy": "kind: X"}, 400, "workload"),
    "a preview of a policy that is not one": (
        "post",
        "/api/v1/preview/",
        {"policy": 5, "workload": 1},
        400,
        "policy",
    ),
    "a page size that is not a number": ("get", "/api/v1/audit/?limit=lots", None, 400, "limit"),
    "an empty apply": ("post", "/api/v1/apply/", {"yaml": "# nothing\n"}, 400, ""),
    "an unknown workload": ("get", "/api/v1/workloads/424242/", None, 404, ""),
    "a method the endpoint has not": ("put", "/api/v1/export/", {}, 405, ""),
}


@pytest.fixture
def beijing(db):
    return Cluster.objects.create(name="beijing", api_endpoint="https://beijing.example:6443", ready="True")


@pytest.mark.parametrize("method, url, body, code, field", REFUSALS.values(), ids=REFUSALS.keys())
def test_every_refusal_has_the_code_the_detail_and_each_field_with_its_reason(
    api_as, admin_user, beijing, method, url, body, code, field
):
    client = api_as(admin_user)
    response = getattr(client, method)(url, body, format="json") if body is not None else client.get(url)
    assert response.status_code == code, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    found = problems(response)
    assert field in found, found
    assert all(reason for reasons in found.values() for reason in reasons)
    assert response.json()["detail"]


def test_a_conflict_says_which_version_is_current(api_as, admin_user, beijing):
    response = api_as(admin_user).patch(
        "/api/v1/clusters/beijing/labels/", {"set": {"env": "prod"}, "resource_version": 99}, format="json"
    )
    body = response.json()
    assert (body["code"], body["resource_version"]) == ("conflict", beijing.resource_version)
    assert "changed by someone else" in body["detail"]


def test_an_apply_error_carries_the_document_index_at_the_top_and_in_each_problem(api_as, operator):
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok, namespace: default}\n---\nkind: [\n"
    body = api_as(operator).post("/api/v1/apply/", text, content_type="application/yaml").json()
    assert body["code"] == "invalid" and "not valid YAML" in body["reason"]
    assert body["document"] == body["errors"][0]["document"] == 0
    body = (
        api_as(operator)
        .post(
            "/api/v1/apply/",
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok, namespace: default}\n---\n"
            "apiVersion: v1\n",
            content_type="application/yaml",
        )
        .json()
    )
    assert (body["document"], body["field"]) == (1, "kind")
    assert body["detail"] == "document 1: kind: is required"


def test_refusals_of_anonymous_and_of_a_role_are_in_the_shape_too(client, api_as, viewer):
    anonymous = client.get("/api/v1/clusters/")
    assert anonymous.status_code == 403 and anonymous.json()["code"] == "not_authenticated"
    forbidden = api_as(viewer).post("/api/v1/clusters/beijing/cordon/")
    assert forbidden.status_code == 403 and forbidden.json()["code"] == "permission_denied"
    assert problems(forbidden) == {"": ["Your role does not allow this."]}


def test_the_schema_is_generated_from_serializers_and_declares_the_error_shape_everywhere(api_as, viewer):
    schema = api_as(viewer).get("/api/schema/", HTTP_ACCEPT="application/json").json()
    components = schema["components"]["schemas"]
    for name in (
        "Workload",
        "WorkloadChain",
        "Policy",
        "AuditEntry",
        "Preview",
        "PreviewRequest",
        "ApplyResult",
    ):
        assert components[name]["properties"], name
    assert {"changes", "placementDelta", "object", "user", "at"} <= components["AuditEntry"][
        "properties"
    ].keys()
    assert {"code", "detail", "field", "reason", "errors"} <= components["Error"]["properties"].keys()
    refusal = {"$ref": "#/components/schemas/Error"}
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            where = f"{method.upper()} {path}"
            assert operation["responses"]["403"]["content"]["application/json"]["schema"] == refusal, where
            if "{" in path:
                assert operation["responses"]["404"]["content"]["application/json"]["schema"] == refusal, (
                    where
                )
            if method != "get":
                assert operation["responses"]["400"]["content"]["application/json"]["schema"] == refusal, (
                    where
                )
    listing = schema["paths"]["/api/v1/workloads/"]["get"]["responses"]["200"]["content"]["application/json"]
    assert listing["schema"] == {"$ref": "#/components/schemas/PaginatedWorkloadList"}
