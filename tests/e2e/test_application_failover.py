"""Application failover: a workload Unhealthy in one cluster past tolerationSeconds is moved out of it."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from scheduling.controllers import failover
from scheduling.models import ResourceBinding, Work
from scheduling.services import apply_yaml
from tests.e2e.test_seed_stories import NGINX, policy, replicas
from tests.support.members import converge

PLACEMENT = """    clusterAffinity: {clusterNames: [beijing, shanghai]}
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference: {dynamicWeight: AvailableReplicas}"""
FAILOVER = """  propagateDeps: true
  failover:
    application:
      decisionConditions: {tolerationSeconds: 30}
      purgeMode: Directly
"""
# Pods in shanghai crash: membersim fails pods whose template carries this annotation.
CRASH_IN_SHANGHAI = """
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: crash-in-shanghai, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nginx}]
  overrideRules:
  - targetCluster: {clusterNames: [shanghai]}
    overriders:
      plaintext:
      - {path: /spec/template/metadata/annotations/membersim.io~1fail, operator: add, value: CrashLoopBackOff}
"""


def test_a_workload_unhealthy_past_toleration_seconds_leaves_that_cluster(fleet):
    web = NGINX.replace("replicas: 2", "replicas: 4")
    apply_yaml(CRASH_IN_SHANGHAI + "---" + web + "---" + policy("nginx", PLACEMENT, extra=FAILOVER))
    assert set(replicas(fleet, "nginx")) == {"beijing", "shanghai"}
    converge()
    work = Work.objects.get(cluster_name="shanghai")
    assert work.health == "Unhealthy" and work.unhealthy_since is not None
    assert Work.objects.get(cluster_name="beijing").health == "Healthy"
    assert failover.run_application_failover(timezone.now()) == []  # not for 30 s yet
    assert failover.run_application_failover(work.unhealthy_since + timedelta(seconds=31))
    binding = ResourceBinding.objects.get()
    task = binding.graceful_eviction_tasks[0]
    assert (task["fromCluster"], task["reason"], task["purgeMode"]) == (
        "shanghai",
        "ApplicationFailure",
        "Directly",
    )
    converge()
    assert replicas(fleet, "nginx") == {"beijing": 4}
