"""The cluster proxy: a member answers through karmada-ui as its stored credentials, by role."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token

from clusters.k8s import ClusterConnection, list_nodes, objects
from clusters.models import Cluster
from core.models import AuditEntry
from membersim import ClusterSpec
from tests.support.members import member_object, register

PROXY = "/k8s/apis/cluster.karmada.io/v1alpha1/clusters/{name}/proxy"
CONFIGMAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "through-proxy"},
    "data": {"a": "1"},
}


SPEC = ClusterSpec(name="beijing", nodes=2, version="1.30.2")


@pytest.fixture
def sim(simulate):
    return simulate(SPEC)


@pytest.fixture
def beijing(transactional_db, sim):
    return register(sim, SPEC)


def bearer(user) -> Client:
    token, _ = Token.objects.get_or_create(user=user)
    return Client(HTTP_AUTHORIZATION=f"Bearer {token.key}")


def test_a_viewer_reads_the_members_nodes_through_the_proxy(beijing, viewer):
    response = bearer(viewer).get(PROXY.format(name="beijing") + "/api/v1/nodes")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    names = sorted(item["metadata"]["name"] for item in response.json()["items"])
    assert names == sorted(node.name for node in list_nodes(beijing.connection()))


def test_the_proxy_root_answers_as_the_members_own_api_server(beijing, viewer):
    version = bearer(viewer).get(PROXY.format(name="beijing") + "/version").json()
    assert version["gitVersion"] == "v1.30.2"
    assert bearer(viewer).get(PROXY.format(name="beijing") + "/api").json()["kind"] == "APIVersions"


def test_the_members_credentials_never_come_back_to_the_caller(beijing, viewer, sim):
    response = bearer(viewer).get(PROXY.format(name="beijing") + "/api/v1/namespaces/default/configmaps")
    member_token = sim.token("beijing")
    assert member_token not in response.content.decode()
    assert all(member_token not in value for value in response.headers.values())


def test_a_viewer_may_not_write_through_the_proxy(beijing, viewer):
    response = bearer(viewer).post(
        PROXY.format(name="beijing") + "/api/v1/namespaces/default/configmaps",
        json.dumps(CONFIGMAP),
        content_type="application/json",
    )
    assert response.status_code == 403
    body = response.json()
    assert (body["kind"], body["reason"]) == ("Status", "Forbidden")
    assert "cannot create" in body["message"] and "operator role" in body["message"]
    assert member_object(beijing, "v1", "ConfigMap", "through-proxy") is None


def test_an_operator_writes_through_the_proxy_and_the_write_is_audited(beijing, operator):
    response = bearer(operator).post(
        PROXY.format(name="beijing") + "/api/v1/namespaces/default/configmaps",
        json.dumps(CONFIGMAP),
        content_type="application/json",
    )
    assert response.status_code == 201
    assert member_object(beijing, "v1", "ConfigMap", "through-proxy")["data"] == {"a": "1"}
    entry = AuditEntry.objects.get(action="ClusterProxyWrite")
    assert (entry.username, entry.object_name) == (operator.get_username(), "beijing")
    assert "POST /api/v1/namespaces/default/configmaps" in entry.summary and "201" in entry.summary
    deleted = bearer(operator).delete(
        PROXY.format(name="beijing") + "/api/v1/namespaces/default/configmaps/through-proxy"
    )
    assert deleted.status_code == 200
    assert member_object(beijing, "v1", "ConfigMap", "through-proxy") is None


def test_the_members_own_errors_come_back_as_they_are(beijing, viewer):
    response = bearer(viewer).get(
        PROXY.format(name="beijing") + "/api/v1/namespaces/default/configmaps/absent"
    )
    assert response.status_code == 404
    assert response.json()["reason"] == "NotFound"


@pytest.mark.parametrize(
    ("headers", "code", "reason"),
    [({}, 401, "Unauthorized"), ({"HTTP_AUTHORIZATION": "Bearer not-a-token"}, 401, "Unauthorized")],
)
def test_without_a_known_token_the_proxy_answers_401(beijing, headers, code, reason):
    response = Client(**headers).get(PROXY.format(name="beijing") + "/api/v1/nodes")
    assert (response.status_code, response.json()["reason"]) == (code, reason)


def test_an_unknown_cluster_is_a_404_status(beijing, viewer):
    response = bearer(viewer).get(PROXY.format(name="nowhere") + "/api/v1/nodes")
    assert response.status_code == 404
    assert response.json()["message"] == 'clusters.cluster.karmada.io "nowhere" not found'


def test_an_unreachable_member_is_a_503_status(db, viewer):
    cluster = Cluster(name="gone")
    cluster.set_connection(ClusterConnection(name="gone", server="http://127.0.0.1:9", token="t"))
    cluster.save()
    response = bearer(viewer).get(PROXY.format(name="gone") + "/api/v1/nodes")
    assert response.status_code == 503
    body = response.json()
    assert body["reason"] == "ServiceUnavailable" and "gone" in body["message"]


@pytest.mark.parametrize(
    ("path", "headers"),
    [
        ("/api/v1/../../../clusters/shanghai/api/v1/nodes", {}),
        (
            "/api/v1/namespaces/default/pods/p/exec",
            {"HTTP_CONNECTION": "Upgrade", "HTTP_UPGRADE": "SPDY/3.1"},
        ),
    ],
    ids=["dot-dot segments", "an upgraded connection"],
)
def test_requests_the_proxy_cannot_carry_are_a_400_status(beijing, operator, path, headers):
    token, _ = Token.objects.get_or_create(user=operator)
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token.key}", **headers)
    response = client.get(PROXY.format(name="beijing") + path)
    assert (response.status_code, response.json()["reason"]) == (400, "BadRequest")


def test_a_watch_through_the_proxy_streams_the_members_events(beijing, viewer):
    objects.apply_object(
        beijing.connection(), {**CONFIGMAP, "metadata": {"name": "watched", "namespace": "default"}}
    )
    response = bearer(viewer).get(
        PROXY.format(name="beijing") + "/api/v1/namespaces/default/configmaps",
        {"watch": "true", "timeoutSeconds": "1"},
    )
    assert response.status_code == 200 and response.streaming
    lines = b"".join(response.streaming_content).decode().splitlines()
    events = [json.loads(line) for line in lines if line.strip()]
    assert ("ADDED", "watched") in {(e["type"], e["object"]["metadata"]["name"]) for e in events}


def test_a_signed_in_browser_session_is_no_credential_for_the_proxy(beijing, operator):
    # bearer tokens only: a cookie a forged cross-site request would carry opens nothing
    browser = Client()
    browser.force_login(operator)
    response = browser.post(
        PROXY.format(name="beijing") + "/api/v1/namespaces/default/configmaps",
        json.dumps(CONFIGMAP),
        content_type="application/json",
    )
    assert response.status_code == 401
    assert member_object(beijing, "v1", "ConfigMap", "through-proxy") is None
