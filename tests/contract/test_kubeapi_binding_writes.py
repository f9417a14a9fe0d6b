"""The binding fields Karmada lets users write, through /k8s with the real kubectl: spec.suspension.scheduling
pauses and resumes the workload's scheduling, spec.rescheduleTriggeredAt asks a fresh reschedule (each
through scheduling.services, audited); any other change is refused with its field."""

from __future__ import annotations

import json

import pytest

from clusters.models import Cluster
from core.models import AuditEntry
from core.roles import OPERATOR
from scheduling.controllers import detector
from scheduling.models import ResourceBinding, ResourceTemplate
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


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from served(tmp_path_factory, "kubeapi-bindings")


@pytest.fixture(params=sorted(KUBECTL_MINORS))
def kubectl(request, server, settings):
    settings.KUBEAPI_KUBERNETES_VERSION = KUBECTL_MINORS[request.param]
    Cluster.objects.create(name="beijing", api_endpoint="https://beijing.example:6443", region="cn-north")
    runner = server.kubectl_as(make_user("olga-operator", OPERATOR))
    runner.run("apply", "-f", "-", input=WORKLOAD)
    detector.detect_template(ResourceTemplate.objects.get(name="web").pk)
    return runner


def binding() -> ResourceBinding:
    return ResourceBinding.objects.get(template__name="web")


def merge(kubectl, patch: dict, check: bool = True):
    name = binding().name
    return kubectl.run("patch", "rb", name, "--type", "merge", "-p", json.dumps(patch), check=check)


def test_suspension_scheduling_pauses_and_resumes_the_workload(kubectl):
    merge(kubectl, {"spec": {"suspension": {"scheduling": True}}})
    assert binding().suspension_holds == {"scheduling": True}
    shown = kubectl.run("get", "rb", binding().name, "-o", "jsonpath={.spec.suspension.scheduling}").stdout
    assert shown == "true"
    assert AuditEntry.objects.filter(action="pause-scheduling", object_name="web").exists()
    merge(kubectl, {"spec": {"suspension": {"scheduling": False}}})
    assert binding().suspension_holds == {}
    assert AuditEntry.objects.filter(action="resume-scheduling", object_name="web").exists()


def test_reschedule_triggered_at_asks_a_fresh_reschedule(kubectl):
    merge(kubectl, {"spec": {"rescheduleTriggeredAt": "2030-01-02T03:04:05Z"}})
    assert binding().reschedule_triggered_at.isoformat() == "2030-01-02T03:04:05+00:00"
    assert AuditEntry.objects.filter(action="rebalance", object_name="web").exists()


def test_fields_the_scheduler_owns_are_refused_with_the_field(kubectl):
    refused = merge(kubectl, {"spec": {"clusters": [{"name": "shanghai", "replicas": 1}]}}, check=False)
    assert refused.returncode != 0 and "spec.clusters: Forbidden: cannot be changed" in refused.stderr
    assert 'ResourceBinding "web-configmap" is invalid' in refused.stderr
    refused = merge(kubectl, {"spec": {"suspension": {"dispatching": True}}}, check=False)
    assert refused.returncode != 0 and "spec.suspension.dispatching" in refused.stderr
    refused = merge(kubectl, {"spec": {"rescheduleTriggeredAt": "soon"}}, check=False)
    assert refused.returncode != 0 and "spec.rescheduleTriggeredAt" in refused.stderr
    assert binding().suspension_holds == {} and binding().reschedule_triggered_at is None
