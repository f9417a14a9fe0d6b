"""kubectl, at its oldest and newest bundled minor, against the control plane's Kubernetes API (/k8s)."""

from __future__ import annotations

import pytest

from clusters.models import Cluster
from core.models import AuditEntry
from core.roles import OPERATOR, VIEWER
from scheduling.models import PropagationPolicy, ResourceTemplate
from tests.conftest import make_user
from tests.contract.conftest import KUBECTL_MINORS
from tests.contract.kubeapi_server import served

pytestmark = [pytest.mark.contract, pytest.mark.django_db(transaction=True)]

POLICY = """
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: default}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: web}]
  placement: {clusterAffinity: {clusterNames: [beijing]}}
"""
CONFIG_MAP = """
apiVersion: v1
kind: ConfigMap
metadata: {name: web, namespace: default}
data: {a: "1"}
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from served(tmp_path_factory, "kubeapi")


@pytest.fixture(params=sorted(KUBECTL_MINORS))
def minor(request, settings):
    settings.KUBEAPI_KUBERNETES_VERSION = KUBECTL_MINORS[request.param]
    return request.param


@pytest.fixture
def as_operator(server, minor):
    return server.kubectl_as(make_user("olga-operator", OPERATOR))


@pytest.fixture
def as_viewer(server, minor):
    return server.kubectl_as(make_user("vik-viewer", VIEWER))


def beijing() -> Cluster:
    return Cluster.objects.create(
        name="beijing",
        api_endpoint="https://beijing.example:6443",
        region="cn-north",
        zones=["a"],
        labels={"tier": "1"},
    )


def test_the_server_version_picks_the_kubectl_minor(as_operator, minor):
    out = as_operator.run("version", "-o", "json").stdout
    assert f'"minor": "{minor.split(".")[1]}"' in out


def test_discovery_lists_karmadas_kinds_with_short_names_and_category(as_operator):
    out = as_operator.run("api-resources", "--api-group", "policy.karmada.io").stdout
    assert "propagationpolicies" in out and " pp " in out and "cpp" in out
    karmada = as_operator.run("api-resources", "--categories", "karmada-io", "-o", "name").stdout.split()
    assert "resourcebindings.work.karmada.io" in karmada and "works.work.karmada.io" in karmada


def test_get_clusters_shows_karmadas_columns_labels_and_wide(as_operator):
    beijing()
    table = as_operator.run("get", "clusters").stdout.splitlines()
    assert table[0].split() == ["NAME", "VERSION", "MODE", "READY", "AGE"]
    assert table[1].split()[:4] == ["beijing", "Push", "Unknown", table[1].split()[3]]
    assert "tier=1" in as_operator.run("get", "clusters", "--show-labels").stdout
    wide = as_operator.run("get", "clusters", "-o", "wide").stdout
    assert "cn-north" in wide and "https://beijing.example:6443" in wide


def test_label_a_cluster_is_the_clusters_own_label_change_and_audited(as_operator):
    beijing()
    as_operator.run("label", "cluster", "beijing", "env=prod", "--overwrite")
    assert Cluster.objects.get(name="beijing").labels == {"tier": "1", "env": "prod"}
    assert AuditEntry.objects.filter(
        object_kind="Cluster", object_name="beijing", username="olga-operator"
    ).exists()
    assert "prod" in as_operator.run("get", "clusters", "-L", "env").stdout


def test_apply_twice_creates_then_configures_and_bumps_generation(as_operator):
    as_operator.run("apply", "-f", "-", input=CONFIG_MAP + "---" + POLICY)
    assert ResourceTemplate.objects.filter(kind="ConfigMap", name="web").exists()
    assert PropagationPolicy.objects.get(name="web").spec["placement"]["clusterAffinity"]["clusterNames"] == [
        "beijing"
    ]
    changed = (
        CONFIG_MAP.replace('a: "1"', 'a: "2"') + "---" + POLICY.replace("[beijing]", "[beijing, shanghai]")
    )
    out = as_operator.run("apply", "-f", "-", input=changed).stdout
    assert "configmap/web configured" in out and "propagationpolicy.policy.karmada.io/web configured" in out
    cm = as_operator.json("get", "cm", "web")
    assert cm["data"] == {"a": "2"} and cm["metadata"]["generation"] == 2
    policy = PropagationPolicy.objects.get(name="web")
    assert policy.generation == 2 and policy.spec["placement"]["clusterAffinity"]["clusterNames"] == [
        "beijing",
        "shanghai",
    ]


def test_patch_merge_and_json_change_the_policy(as_operator):
    as_operator.run("apply", "-f", "-", input=POLICY)
    as_operator.run("patch", "pp", "web", "--type", "merge", "-p", '{"spec":{"priority":5}}')
    assert PropagationPolicy.objects.get(name="web").priority == 5
    as_operator.run(
        "patch", "pp", "web", "--type", "json", "-p", '[{"op":"replace","path":"/spec/priority","value":7}]'
    )
    assert "7" in as_operator.run("get", "pp", "web").stdout.splitlines()[1].split()


def test_dry_run_server_changes_nothing(as_operator):
    as_operator.run("apply", "-f", "-", input=POLICY)
    out = as_operator.run("delete", "pp", "web", "--dry-run=server").stdout
    assert "server dry run" in out
    assert PropagationPolicy.objects.filter(name="web").exists()
    as_operator.run("apply", "--dry-run=server", "-f", "-", input=CONFIG_MAP)
    assert not ResourceTemplate.objects.filter(kind="ConfigMap", name="web").exists()


def test_delete_removes_the_policy(as_operator):
    as_operator.run("apply", "-f", "-", input=POLICY)
    as_operator.run("delete", "pp", "web", "--wait=false")
    assert not PropagationPolicy.objects.filter(name="web").exists()


def test_a_viewer_reads_but_cannot_write_and_auth_can_i_says_so(as_viewer):
    beijing()
    assert "beijing" in as_viewer.run("get", "clusters").stdout
    refused = as_viewer.run("label", "cluster", "beijing", "env=prod", check=False)
    assert refused.returncode != 0 and "Forbidden" in refused.stderr
    assert Cluster.objects.get(name="beijing").labels == {"tier": "1"}
    assert as_viewer.run("auth", "can-i", "list", "clusters.cluster.karmada.io").stdout.strip() == "yes"
    assert as_viewer.run("auth", "can-i", "create", "pp", check=False).stdout.startswith("no")


def test_a_wrong_token_is_unauthorized(server, minor):
    runner = server.kubectl_as(make_user("nobody", VIEWER))
    runner.kubeconfig.write_text(runner.kubeconfig.read_text().replace("token: ", "token: x"))
    refused = runner.run("get", "clusters", check=False)
    assert refused.returncode != 0
    assert "Unauthorized" in refused.stderr or "provide credentials" in refused.stderr
