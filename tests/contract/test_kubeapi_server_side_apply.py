"""Server-side apply through /k8s with the real kubectl (oldest and newest bundled minor): managedFields
kept and returned, a conflicting field manager answered 409 with the field and its owner, forced with
--force-conflicts, and the fields client-side apply, patch and label wrote owned by their managers;
and kubectl's field validation: an unknown field refused (Strict) or warned of (Warn) by its path."""

from __future__ import annotations

import json

import pytest

from core.roles import OPERATOR
from kubeapi.models import ManagedFields
from scheduling.models import PropagationPolicy, ResourceTemplate
from tests.conftest import make_user
from tests.contract.conftest import KUBECTL_MINORS
from tests.contract.kubeapi_server import served

pytestmark = [pytest.mark.contract, pytest.mark.django_db(transaction=True)]

CONFIG_MAP = """
apiVersion: v1
kind: ConfigMap
metadata: {name: web, namespace: default}
data: {a: "1", b: "1"}
"""
POLICY = """
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: default}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: web}]
  placement: {clusterAffinity: {clusterNames: [beijing]}}
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from served(tmp_path_factory, "kubeapi-ssa")


@pytest.fixture(params=sorted(KUBECTL_MINORS))
def kubectl(request, server, settings):
    settings.KUBEAPI_KUBERNETES_VERSION = KUBECTL_MINORS[request.param]
    return server.kubectl_as(make_user("olga-operator", OPERATOR))


def managers(document: dict) -> dict[str, str]:
    return {e["manager"]: e["operation"] for e in document["metadata"].get("managedFields") or []}


def test_server_side_apply_creates_and_keeps_managed_fields(kubectl):
    out = kubectl.run("apply", "--server-side", "-f", "-", input=CONFIG_MAP).stdout
    assert "configmap/web serverside-applied" in out
    assert ResourceTemplate.objects.get(kind="ConfigMap", name="web").manifest["data"] == {"a": "1", "b": "1"}
    got = kubectl.json("get", "configmap", "web", "--show-managed-fields")
    entry = got["metadata"]["managedFields"][0]
    assert (entry["manager"], entry["operation"], entry["fieldsType"]) == ("kubectl", "Apply", "FieldsV1")
    assert entry["fieldsV1"]["f:data"] == {"f:a": {}, "f:b": {}}
    assert ManagedFields.objects.filter(kind_key="/ConfigMap", name="web").exists()


def test_a_conflicting_manager_is_refused_with_the_field_then_forced(kubectl):
    kubectl.run("apply", "--server-side", "-f", "-", input=CONFIG_MAP)
    changed = CONFIG_MAP.replace('a: "1"', 'a: "2"')
    refused = kubectl.run(
        "apply", "--server-side", "--field-manager", "ci", "-f", "-", input=changed, check=False
    )
    assert refused.returncode != 0
    assert 'conflict with "kubectl"' in refused.stderr and ".data.a" in refused.stderr
    assert ResourceTemplate.objects.get(kind="ConfigMap", name="web").manifest["data"]["a"] == "1"
    kubectl.run(
        "apply", "--server-side", "--force-conflicts", "--field-manager", "ci", "-f", "-", input=changed
    )
    got = kubectl.json("get", "configmap", "web", "--show-managed-fields")
    assert got["data"]["a"] == "2"
    owned = {e["manager"]: e["fieldsV1"]["f:data"] for e in got["metadata"]["managedFields"]}
    assert owned["ci"] == {"f:a": {}, "f:b": {}} and owned["kubectl"] == {"f:b": {}}


def test_client_side_writes_are_update_managers_a_later_apply_conflicts_with(kubectl):
    kubectl.run("apply", "-f", "-", input=POLICY)
    kubectl.run("label", "pp", "web", "team=web")
    got = kubectl.json("get", "pp", "web", "--show-managed-fields")
    assert managers(got) == {"kubectl-client-side-apply": "Update", "kubectl-label": "Update"}
    moved = POLICY.replace("clusterNames: [beijing]", "clusterNames: [shanghai]")
    refused = kubectl.run(
        "apply", "--server-side", "--field-manager", "ci", "-f", "-", input=moved, check=False
    )
    assert refused.returncode != 0
    assert 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply"' in refused.stderr
    assert ".spec.placement.clusterAffinity.clusterNames" in refused.stderr
    policy = PropagationPolicy.objects.get(name="web")
    assert policy.spec["placement"]["clusterAffinity"]["clusterNames"] == ["beijing"]


def test_apply_dry_run_keeps_nothing(kubectl):
    kubectl.run("apply", "--server-side", "--dry-run=server", "-f", "-", input=CONFIG_MAP)
    assert not ResourceTemplate.objects.filter(kind="ConfigMap", name="web").exists()
    assert not ManagedFields.objects.exists()


def test_a_dry_run_answers_the_change_with_the_stored_resource_version(kubectl):
    kubectl.run("apply", "--server-side", "-f", "-", input=CONFIG_MAP)
    stored = kubectl.json("get", "configmap", "web")["metadata"]["resourceVersion"]
    changed = CONFIG_MAP.replace('a: "1"', 'a: "3"')
    for mode in (["--server-side"], []):
        out = kubectl.run("apply", *mode, "--dry-run=server", "-o", "json", "-f", "-", input=changed).stdout
        answer = json.loads(out)
        assert answer["data"]["a"] == "3" and answer["metadata"]["resourceVersion"] == stored
    assert kubectl.json("get", "configmap", "web")["data"]["a"] == "1"


TYPO = POLICY.replace("clusterAffinity:", "clusterAfinity:")


@pytest.mark.parametrize("mode", [[], ["--server-side"]])
def test_an_unknown_field_is_refused_by_its_path_under_strict_validation(kubectl, mode):
    refused = kubectl.run("apply", *mode, "-f", "-", input=TYPO, check=False)
    assert refused.returncode != 0
    assert 'unknown field "spec.placement.clusterAfinity"' in refused.stderr
    assert not PropagationPolicy.objects.exists()


def test_warn_validation_writes_and_prints_the_unknown_field(kubectl):
    done = kubectl.run("apply", "--validate=warn", "-f", "-", input=TYPO)
    assert 'Warning: unknown field "spec.placement.clusterAfinity"' in done.stderr
    assert PropagationPolicy.objects.filter(name="web").exists()


def test_moving_from_client_side_to_server_side_apply_keeps_kubectl_the_owner(kubectl):
    kubectl.run("apply", "-f", "-", input=CONFIG_MAP)
    changed = CONFIG_MAP.replace('a: "1"', 'a: "2"')
    kubectl.run("apply", "--server-side", "-f", "-", input=changed)
    got = kubectl.json("get", "configmap", "web", "--show-managed-fields")
    assert got["data"]["a"] == "2"
    owners = {e["manager"]: e for e in got["metadata"]["managedFields"]}
    assert owners["kubectl"]["operation"] == "Apply"
    assert "f:a" in owners["kubectl"]["fieldsV1"]["f:data"]
