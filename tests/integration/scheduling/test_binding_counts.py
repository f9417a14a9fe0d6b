"""The counts stored on each binding equal those counted from its Works, after applies, status changes,
failures, a cluster dropped from the placement, and for rows written before the counts existed."""

from __future__ import annotations

import importlib

from django.apps import apps

from scheduling.controllers.propagation import aggregate_bindings
from scheduling.karmada.work_counts import WorkCounts
from scheduling.models import COUNT_COLUMNS, ResourceBinding, Work
from scheduling.services import apply_yaml
from tests.support.members import converge

POLICY = """apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {{name: everywhere, namespace: default}}
spec:
  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment}}]
  placement:
    clusterAffinity: {{clusterNames: [{clusters}]}}
    replicaScheduling: {{replicaSchedulingType: Duplicated}}
"""
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: web-{i}, namespace: default, labels: {{app: web-{i}}}}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: web-{i}}}}}
  template:
    metadata: {{labels: {{app: web-{i}}}}}
    spec: {{containers: [{{name: app, image: "nginx:1.27"}}]}}
"""
EVERY = "cluster-01, cluster-02, cluster-03"


def counted_from_works(binding: ResourceBinding) -> WorkCounts:
    """The counts as the workload page derives them, from the Works themselves."""
    works = {w.cluster_name: w for w in Work.objects.filter(binding=binding, deleting=False)}
    applied = healthy = unhealthy = failed = desired = ready = 0
    for target in binding.clusters:
        desired += int(target.get("replicas") or 0) if binding.replicas else 0
        work = works.get(target["name"])
        if work is None:
            continue
        ready += int((work.status or {}).get("readyReplicas") or 0)
        healthy += work.health == "Healthy"
        unhealthy += work.health == "Unhealthy"
        if work.in_sync:
            applied += 1
        elif work.applied_message:
            failed += 1
    return WorkCounts(len(binding.clusters), applied, healthy, unhealthy, failed, desired, ready)


def assert_stored_counts_match_the_works() -> list[WorkCounts]:
    found = []
    for binding in ResourceBinding.objects.order_by("name"):
        assert binding.counts == counted_from_works(binding), binding.name
        found.append(binding.counts)
    return found


def apply(clusters: str = EVERY, replicas: int = 2, count: int = 1) -> None:
    documents = [POLICY.format(clusters=clusters)]
    documents += [DEPLOYMENT.format(i=i, replicas=replicas) for i in range(count)]
    apply_yaml("---\n".join(documents))
    converge()


def test_the_stored_counts_follow_applies_scaling_failures_and_a_dropped_cluster(members):
    apply()
    assert assert_stored_counts_match_the_works() == [
        WorkCounts(clusters=3, applied=3, healthy=3, desired=6, ready=6)
    ]

    apply(replicas=3)  # the member copies scale and report their new ready replicas
    assert assert_stored_counts_match_the_works()[0] == WorkCounts(3, 3, 3, 0, 0, 9, 9)

    binding = ResourceBinding.objects.get(name="web-0-deployment")
    refused = Work.objects.get(binding=binding, cluster_name="cluster-02")
    Work.objects.filter(pk=refused.pk).update(
        applied=False, applied_hash="", applied_message="the member refused it", health="Unhealthy"
    )
    aggregate_bindings({binding.pk})
    counts = assert_stored_counts_match_the_works()[0]
    assert (counts.applied, counts.failed, counts.healthy, counts.unhealthy) == (2, 1, 2, 1)

    apply(clusters="cluster-01, cluster-03", replicas=3)  # cluster-02's copies are deleted
    assert assert_stored_counts_match_the_works() == [WorkCounts(2, 2, 2, 0, 0, 6, 6)]
    assert not Work.objects.filter(cluster_name="cluster-02").exists()


def test_the_migration_and_the_next_aggregation_count_rows_written_before_the_counts(members):
    apply()
    ResourceBinding.objects.update(**dict.fromkeys(COUNT_COLUMNS, 0))
    assert ResourceBinding.objects.get().counts == WorkCounts()
    migration = importlib.import_module("scheduling.migrations.0011_binding_counts")
    migration.fill_counts(apps, None)
    assert assert_stored_counts_match_the_works() == [WorkCounts(3, 3, 3, 0, 0, 6, 6)]

    ResourceBinding.objects.update(**dict.fromkeys(COUNT_COLUMNS, 0))
    aggregate_bindings(set(ResourceBinding.objects.values_list("pk", flat=True)))
    assert assert_stored_counts_match_the_works() == [WorkCounts(3, 3, 3, 0, 0, 6, 6)]
