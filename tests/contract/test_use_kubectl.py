"""The README's "Use kubectl" lines with the real kubectl (oldest and newest bundled minor) against /k8s,
each checked against the database and the simulated member clusters it should have changed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from clusters.k8s import list_nodes, list_pods
from clusters.models import Cluster
from core.roles import OPERATOR, VIEWER
from membersim import ClusterSpec
from scheduling.models import ResourceBinding, ResourceTemplate
from tests.conftest import make_user
from tests.contract.conftest import KUBECTL_MINORS
from tests.contract.kubeapi_server import KubeApiServer, start
from tests.support.members import converge, member_object

pytestmark = [
    pytest.mark.contract,
    pytest.mark.django_db(transaction=True),
    pytest.mark.xdist_group("use-kubectl"),
]

SEED = Path(__file__).resolve().parents[2] / "examples" / "weighted-7-3.yaml"
# The members report the oldest and newest minor: kubectl through the proxy runs each (the dispatcher
# reads the member's /version there).
OLDEST, NEWEST = (KUBECTL_MINORS[minor] for minor in sorted(KUBECTL_MINORS))
SPECS = [
    ClusterSpec(
        name="beijing",
        nodes=3,
        node_cpu="8",
        node_memory="32Gi",
        region="cn-north",
        zones=["a"],
        version=OLDEST,
    ),
    ClusterSpec(
        name="shanghai",
        nodes=3,
        node_cpu="8",
        node_memory="32Gi",
        region="cn-east",
        zones=["b"],
        version=NEWEST,
    ),
]
PROXY = "/apis/cluster.karmada.io/v1alpha1/clusters/{}/proxy"
EVEN_WEIGHTS = {
    "spec": {
        "placement": {
            "replicaScheduling": {
                "weightPreference": {
                    "staticWeightList": [
                        {"targetCluster": {"clusterNames": ["beijing"]}, "weight": 1},
                        {"targetCluster": {"clusterNames": ["shanghai"]}, "weight": 1},
                    ]
                }
            }
        }
    }
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not installed, so the kubectl contract cannot be checked here")
    api, httpd = start(tmp_path_factory.mktemp("use-kubectl"))
    yield api
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(params=sorted(KUBECTL_MINORS))
def minor(request, settings):
    settings.KUBEAPI_KUBERNETES_VERSION = KUBECTL_MINORS[request.param]
    return request.param


@pytest.fixture
def member_specs():
    """beijing and shanghai with three nodes each, for the shared `members` fixture."""
    return SPECS


@pytest.fixture
def operator_kubectl(server, minor, members):
    return server.kubectl_as(make_user("olga-operator", OPERATOR))


@pytest.fixture
def applied(operator_kubectl):
    """The seed's nginx Deployment and its 7:3 policy, applied with kubectl's default validation."""
    result = operator_kubectl.run("apply", "-f", str(SEED))
    assert "created" in result.stdout, result.stdout
    return operator_kubectl


def popen(kubectl, *args: str) -> subprocess.Popen:
    """A kubectl that keeps running (rollout status), with the runner's kubeconfig and a fresh cache."""
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    env["HOME"] = str(kubectl.home)
    argv = ["kubectl", "--kubeconfig", str(kubectl.kubeconfig), "--cache-dir", str(kubectl.home / "cache-bg")]
    return subprocess.Popen(
        [*argv, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )


def member_replicas(members) -> dict[str, int | None]:
    copies = {
        name: member_object(cluster, "apps/v1", "Deployment", "nginx") for name, cluster in members.items()
    }
    return {name: (copy or {}).get("spec", {}).get("replicas") for name, copy in copies.items()}


def test_apply_stores_the_seed_and_the_members_run_its_7_3_split(applied, members):
    template = ResourceTemplate.objects.get(kind="Deployment", name="nginx")
    assert template.policy is not None and template.policy.name == "nginx-7-3"
    assert ResourceBinding.objects.get(template=template).target_replicas() == {"beijing": 8, "shanghai": 3}
    assert member_replicas(members) == {"beijing": 8, "shanghai": 3}


def test_cluster_lines_show_the_clusters_and_label_changes_the_stored_cluster(
    operator_kubectl, client, admin_user
):
    listed = operator_kubectl.run("get", "clusters").stdout.splitlines()
    assert listed[0].split()[:4] == ["NAME", "VERSION", "MODE", "READY"]
    assert {line.split()[0] for line in listed[1:]} == {"beijing", "shanghai"}
    wide = operator_kubectl.run("get", "clusters", "-o", "wide").stdout.splitlines()[0]
    assert "API-ENDPOINT" in wide and "REGION" in wide
    operator_kubectl.run("label", "cluster", "beijing", "env=prod", "--overwrite")
    assert Cluster.objects.get(name="beijing").labels["env"] == "prod"
    shown = operator_kubectl.run("get", "clusters", "--show-labels").stdout
    assert "env=prod" in next(line for line in shown.splitlines() if line.startswith("beijing"))
    client.force_login(admin_user)
    assert "env=prod" in client.get("/clusters/c/beijing/").content.decode()


def test_get_pp_and_rb_show_what_the_database_holds(applied):
    rows = applied.run("get", "pp").stdout.splitlines()
    assert rows[0].split()[:3] == ["NAME", "CONFLICT-RESOLUTION", "PRIORITY"]
    assert rows[1].split()[:3] == ["nginx-7-3", "Abort", "0"]
    binding = ResourceBinding.objects.get(name="nginx-deployment")
    shown = yaml.safe_load(applied.run("get", "rb", "nginx-deployment", "-o", "yaml").stdout)
    assert {c["name"]: c["replicas"] for c in shown["spec"]["clusters"]} == binding.target_replicas()
    scheduled = next(c for c in shown["status"]["conditions"] if c["type"] == "Scheduled")
    assert scheduled["status"] == "True"
    applied.run("wait", "--for=condition=Scheduled", "rb/nginx-deployment", "--timeout=20s")


def test_a_merge_patch_of_the_weights_re_splits_the_members(applied, members):
    applied.run("patch", "pp", "nginx-7-3", "--type", "merge", "-p", json.dumps(EVEN_WEIGHTS))
    binding = ResourceBinding.objects.get(name="nginx-deployment")
    split = binding.target_replicas()
    assert sum(split.values()) == 11 and sorted(split.values()) == [5, 6]
    assert member_replicas(members) == split


def test_a_server_side_apply_of_a_field_kubectl_apply_set_conflicts_until_forced(applied, members):
    twelve = SEED.read_text().replace("replicas: 11", "replicas: 12")
    argv = ("apply", "--server-side", "--field-manager", "ci", "-f", "-")
    refused = applied.run(*argv, input=twelve, check=False)
    assert refused.returncode != 0
    assert (
        'conflict with "kubectl-client-side-apply"' in refused.stderr and ".spec.replicas" in refused.stderr
    )
    assert ResourceTemplate.objects.get(name="nginx").manifest["spec"]["replicas"] == 11
    assert sum(member_replicas(members).values()) == 11
    applied.run(*argv, "--force-conflicts", input=twelve)
    assert ResourceTemplate.objects.get(name="nginx").manifest["spec"]["replicas"] == 12
    assert member_replicas(members) == ResourceBinding.objects.get(name="nginx-deployment").target_replicas()
    assert sum(member_replicas(members).values()) == 12


def test_diff_shows_a_change_and_changes_nothing(applied):
    changed = SEED.read_text().replace("replicas: 11", "replicas: 12")
    result = applied.run("diff", "-f", "-", input=changed, check=False)
    assert result.returncode == 1, result.stderr  # 1: differences found
    assert "-  replicas: 11" in result.stdout and "+  replicas: 12" in result.stdout
    assert ResourceTemplate.objects.get(name="nginx").manifest["spec"]["replicas"] == 11


def test_rollout_status_waits_for_every_member_then_succeeds(applied, members):
    waiting = popen(applied, "rollout", "status", "deployment/nginx", "--timeout=60s")
    deadline = time.monotonic() + 60
    while waiting.poll() is None and time.monotonic() < deadline:
        converge(1)  # the reconcile reads the members back; the template's status follows
        time.sleep(0.5)
    out, err = waiting.communicate(timeout=10)
    assert waiting.returncode == 0, err
    assert 'deployment "nginx" successfully rolled out' in out
    applied.run("wait", "--for=condition=Available", "deployment/nginx", "--timeout=20s")
    status = ResourceTemplate.objects.get(name="nginx").status
    assert (status["availableReplicas"], status["observedGeneration"]) == (11, 1)


def test_a_viewer_is_told_what_it_may_do(server, minor, members):
    viewer = server.kubectl_as(make_user("vik-viewer", VIEWER))
    assert viewer.run("auth", "can-i", "get", "pp").stdout.strip() == "yes"
    refused = viewer.run("auth", "can-i", "create", "pp", check=False)
    assert refused.stdout.startswith("no") and refused.returncode == 1


def test_get_raw_through_the_cluster_proxy_reads_the_members_nodes(server, minor, members):
    viewer = server.kubectl_as(make_user("vik-viewer", VIEWER))
    path = "/k8s/apis/cluster.karmada.io/v1alpha1/clusters/beijing/proxy/api/v1/nodes"
    nodes = json.loads(viewer.run("get", "--raw", path).stdout)
    expected = sorted(node.name for node in list_nodes(members["beijing"].connection()))
    assert sorted(item["metadata"]["name"] for item in nodes["items"]) == expected


def test_delete_removes_the_template_and_its_member_copies(applied, members):
    applied.run("delete", "-f", str(SEED), "--timeout=30s")
    converge()
    assert not ResourceTemplate.objects.filter(name="nginx", deleting_since__isnull=True).exists()
    assert member_replicas(members) == {"beijing": None, "shanghai": None}


@pytest.mark.parametrize(("cluster", "version"), [("beijing", OLDEST), ("shanghai", NEWEST)])
def test_a_kubeconfig_whose_server_is_the_proxy_path_drives_the_member(server, members, cluster, version):
    proxied = KubeApiServer(server.url + PROXY.format(cluster), server.ca, server.workdir / cluster)
    proxied.workdir.mkdir(exist_ok=True)
    operator = proxied.kubectl_as(make_user("olga-operator", OPERATOR))
    shown = yaml.safe_load(operator.run("version", "-o", "yaml").stdout)
    assert shown["serverVersion"]["gitVersion"] == f"v{version}"
    assert shown["clientVersion"]["gitVersion"] == f"v{version}"  # the dispatcher picked the member's minor
    operator.run("create", "deployment", "web", "--image=nginx:1.27")
    conn = members[cluster].connection()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not any(p.phase == "Running" for p in list_pods(conn)):
        time.sleep(0.3)
    assert "Running" in operator.run("get", "pods").stdout
    follower = popen(operator, "logs", "-f", "deploy/web")
    try:
        assert follower.stdout.readline().strip(), "a followed log streams lines as the member writes them"
        assert follower.poll() is None, "and stays open while the container runs"
    finally:
        follower.kill()
        follower.communicate(timeout=10)
    viewer = proxied.kubectl_as(make_user("vik-viewer", VIEWER))
    refused = viewer.run("create", "configmap", "nope", "--from-literal=a=1", check=False)
    assert refused.returncode != 0 and "operator role is needed" in refused.stderr
    assert member_object(members[cluster], "v1", "ConfigMap", "nope") is None
    execed = operator.run("exec", "deploy/web", "--", "true", check=False)
    assert execed.returncode != 0 and "upgraded connections" in execed.stderr
