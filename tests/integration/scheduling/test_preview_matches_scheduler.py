"""The previews and the scheduler make the same planner call on the same inputs: what a preview shows
is what the scheduler then writes, eviction tasks and a pending rebalance (fresh mode) included."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import yaml
from django.utils import timezone

from scheduling.controllers.planner_inputs import load_snapshots, planner_binding, planner_placement
from scheduling.controllers.scheduler import schedule_binding
from scheduling.editor import inventory
from scheduling.editor.live_preview import build_preview
from scheduling.models import ResourceBinding, ResourceTemplate
from scheduling.planner import plan
from scheduling.services import apply_yaml

WORKLOAD = """apiVersion: apps/v1
kind: Deployment
metadata: {name: shop, namespace: default}
spec:
  replicas: 6
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec:
      containers: [{name: shop, image: nginx, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
"""
POLICY = """apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: shop, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: shop}]
  placement:
    clusterAffinity: {clusterNames: [cluster-01, cluster-02, cluster-03]}
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference: {dynamicWeight: AvailableReplicas}
"""


def binding_pending_a_rebalance_with_an_eviction_task() -> ResourceBinding:
    """All six replicas on cluster-01 (steady mode would keep them there), cluster-02 being evicted,
    and a rebalance requested after the last schedule, written without waking the scheduler."""
    binding = ResourceBinding.objects.get()
    now = timezone.now()
    ResourceBinding.objects.filter(pk=binding.pk).update(
        clusters=[{"name": "cluster-01", "replicas": 6}],
        graceful_eviction_tasks=[
            {
                "fromCluster": "cluster-02",
                "replicas": 2,
                "purgeMode": "Gracefully",
                "reason": "TaintUntolerated",
                "producer": "TaintManager",
                "creationTimestamp": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
            }
        ],
        last_scheduled_time=now - timedelta(minutes=5),
        reschedule_triggered_at=now - timedelta(minutes=1),
    )
    binding.refresh_from_db()
    return binding


def test_the_api_and_editor_previews_equal_what_the_scheduler_then_writes(members, api_as, viewer):
    apply_yaml(WORKLOAD + "---\n" + POLICY)
    template = ResourceTemplate.objects.get(name="shop")
    assert sum(ResourceBinding.objects.get().target_replicas().values()) == 6
    binding = binding_pending_a_rebalance_with_an_eviction_task()

    answer = api_as(viewer).post(
        "/api/v1/preview/", {"policy": POLICY, "workload": template.pk}, format="json"
    )
    assert answer.status_code == 200, answer.content
    api_plan = {c["name"]: c["replicas"] for c in answer.json()["plan"]["clusters"]}
    assert answer.json()["current"] == {"cluster-01": 6}

    placement, inputs = planner_placement(binding), planner_binding(binding)
    without = plan(load_snapshots(), placement, replace(inputs, eviction_tasks=(), fresh=False))
    assert without.replicas() == {"cluster-01": 6}  # what a preview blind to both would have shown

    doc = yaml.safe_load(POLICY)
    editor = build_preview(doc, inventory.fleet(), inventory.workload_input(template, doc))
    assert editor.plan is not None and editor.plan.ok, editor.problem
    editor_plan = editor.plan.replicas()

    result = schedule_binding(binding.pk)
    assert result is not None and result.ok
    binding.refresh_from_db()
    written = binding.target_replicas()

    assert api_plan == editor_plan == written
    # Fresh mode divides anew (steady mode would keep 6 on cluster-01) and leaves the evicted cluster out.
    assert "cluster-02" not in written and written != {"cluster-01": 6}
    assert sum(written.values()) == 6


def test_without_a_rebalance_the_previews_keep_the_previous_result_as_the_scheduler_does(
    members, api_as, viewer
):
    apply_yaml(WORKLOAD + "---\n" + POLICY)
    template = ResourceTemplate.objects.get(name="shop")
    binding = binding_pending_a_rebalance_with_an_eviction_task()
    ResourceBinding.objects.filter(pk=binding.pk).update(reschedule_triggered_at=None)
    changed = POLICY.replace("[cluster-01, cluster-02, cluster-03]", "[cluster-01, cluster-03]")

    answer = api_as(viewer).post(
        "/api/v1/preview/", {"policy": changed, "workload": template.pk}, format="json"
    )
    assert answer.status_code == 200, answer.content
    api_plan = {c["name"]: c["replicas"] for c in answer.json()["plan"]["clusters"]}

    apply_yaml(changed)  # the detector updates the placement and the scheduler runs, in steady mode
    assert ResourceBinding.objects.get().target_replicas() == api_plan == {"cluster-01": 6}
