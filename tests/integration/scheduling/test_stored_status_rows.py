"""Workload rows come from the counts stored on each binding: a list never loads the Works."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext

from scheduling import summaries
from scheduling.karmada.work_counts import WorkCounts
from scheduling.models import ResourceBinding
from scheduling.services import apply_yaml
from tests.support.members import converge

POLICY = """apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: everywhere, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement:
    clusterAffinity: {clusterNames: [cluster-01, cluster-02, cluster-03]}
    replicaScheduling: {replicaSchedulingType: Duplicated}
"""
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: web-{i}, namespace: default, labels: {{app: web-{i}}}}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: web-{i}}}}}
  template:
    metadata: {{labels: {{app: web-{i}}}}}
    spec: {{containers: [{{name: app, image: "nginx:1.27"}}]}}
"""


def rows_and_queries():
    with CaptureQueriesContext(connection) as captured:
        rows = summaries.workload_rows(summaries.templates_with_bindings())
    return rows, len(captured.captured_queries)


def cluster_replicas(row):
    """The per-cluster entries the workload's own page shows (the row's binding loaded in full)."""
    return summaries.cluster_replicas(ResourceBinding.objects.get(pk=row.binding.pk))


def test_rows_read_a_constant_number_of_queries_and_match_the_members(members):
    apply_yaml("---\n".join([POLICY, DEPLOYMENT.format(i=0)]))
    converge()
    one, queries_for_one = rows_and_queries()
    assert len(one) == 1
    apply_yaml("---\n".join(DEPLOYMENT.format(i=i) for i in range(1, 6)))
    converge()
    six, queries_for_six = rows_and_queries()
    assert len(six) == 6 and queries_for_six == queries_for_one
    for row in six:
        assert row.counts == WorkCounts(clusters=3, applied=3, healthy=3, desired=6, ready=6)
        assert [(c.cluster, c.desired, c.ready, c.health, c.applied) for c in cluster_replicas(row)] == [
            (name, 2, 2, "Healthy", True) for name in ("cluster-01", "cluster-02", "cluster-03")
        ]
    binding = ResourceBinding.objects.get(name="web-0-deployment")
    assert {entry["clusterName"] for entry in binding.aggregated_status} == {
        "cluster-01",
        "cluster-02",
        "cluster-03",
    }
