"""WorkloadRebalancer through /k8s with the real kubectl: creating one rebalances the named workloads
(a fresh reschedule of their bindings, audited) and its status reports each, NotFound when it has none."""

from __future__ import annotations

import pytest

from clusters.models import Cluster
from core.models import AuditEntry
from core.roles import OPERATOR
from scheduling.controllers import detector
from scheduling.models import ResourceBinding, ResourceTemplate, WorkloadRebalancer
from tests.conftest import make_user
from tests.contract.conftest import KUBECTL_MINORS
from tests.contract.kubeapi_server import served

pytestmark = [pytest.mark.contract, pytest.mark.django_db(transaction=True)]

WORKLOAD = """
apiVersion: v1
kind: ConfigMap
metadata: {name: web, namespace: default}
data: {a: "1"}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: default}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: web}]
  placement: {clusterAffinity: {clusterNames: [beijing]}}
"""
REBALANCER = """
apiVersion: apps.karmada.io/v1alpha1
kind: WorkloadRebalancer
metadata: {name: again}
spec:
  workloads:
  - {apiVersion: v1, kind: ConfigMap, name: web, namespace: default}
  - {apiVersion: apps/v1, kind: Deployment, name: missing, namespace: default}
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from served(tmp_path_factory, "kubeapi-rebalancer")


@pytest.fixture(params=sorted(KUBECTL_MINORS))
def kubectl(request, server, settings):
    settings.KUBEAPI_KUBERNETES_VERSION = KUBECTL_MINORS[request.param]
    Cluster.objects.create(name="beijing", api_endpoint="https://beijing.example:6443", region="cn-north")
    return server.kubectl_as(make_user("olga-operator", OPERATOR))


def claimed(kubectl) -> ResourceBinding:
    """The workload applied and claimed by its policy (the detector's step, run here, not queued)."""
    kubectl.run("apply", "-f", "-", input=WORKLOAD)
    detector.detect_template(ResourceTemplate.objects.get(name="web").pk)
    return ResourceBinding.objects.get(template__name="web")


def test_creating_a_rebalancer_reschedules_each_workload_and_reports_it(kubectl):
    binding = claimed(kubectl)
    assert binding.reschedule_triggered_at is None
    out = kubectl.run("create", "-f", "-", input=REBALANCER).stdout
    assert "workloadrebalancer.apps.karmada.io/again created" in out
    binding.refresh_from_db()
    assert binding.reschedule_triggered_at is not None
    assert AuditEntry.objects.filter(action="rebalance", object_name="web").count() == 1
    got = kubectl.json("get", "workloadrebalancer", "again")
    observed = {w["workload"]["name"]: w for w in got["status"]["observedWorkloads"]}
    assert observed["web"]["result"] == "Successful"
    assert (observed["missing"]["result"], observed["missing"]["reason"]) == ("Failed", "NotFound")
    assert got["status"]["observedGeneration"] == 1 and got["status"]["finishTime"]
    listed = kubectl.run("get", "karmada-io").stdout
    assert "workloadrebalancer.apps.karmada.io/again" in listed


def test_a_rebalancer_without_workloads_is_invalid_with_the_field(kubectl):
    bad = (
        "apiVersion: apps.karmada.io/v1alpha1\nkind: WorkloadRebalancer\nmetadata: {name: empty}\nspec: {}\n"
    )
    refused = kubectl.run("create", "-f", "-", input=bad, check=False)
    assert refused.returncode != 0 and "spec.workloads" in refused.stderr
    assert not WorkloadRebalancer.objects.exists()


def test_deleting_a_rebalancer_leaves_the_reschedule_done(kubectl):
    claimed(kubectl)
    kubectl.run("create", "-f", "-", input=REBALANCER)
    kubectl.run("delete", "workloadrebalancer", "again")
    assert not WorkloadRebalancer.objects.exists()
    assert ResourceBinding.objects.get(template__name="web").reschedule_triggered_at is not None
