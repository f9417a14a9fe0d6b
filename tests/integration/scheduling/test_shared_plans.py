"""A schedule pass plans bindings whose plan cannot differ once (planner_inputs.plan_key), and no others."""

from __future__ import annotations

import pytest
from django.utils import timezone

from scheduling.controllers import detector, marking, scheduler
from scheduling.controllers.planner_inputs import plan_key
from scheduling.models import ResourceBinding, ResourceTemplate
from scheduling.services import apply_yaml
from tests.support.clusters import fleet_names, schedulable_status

POLICY = """apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {{name: {name}, namespace: {namespace}}}
spec:
  resourceSelectors:
  - {{apiVersion: apps/v1, kind: Deployment, labelSelector: {{matchLabels: {{policy: {name}}}}}}}
  placement:
    clusterAffinity: {{labelSelector: {{matchLabels: {{fleet: main}}}}}}
    replicaScheduling: {scheduling}
"""

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: {namespace}, labels: {{app: {name}, policy: {policy}}}}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec: {{containers: [{{name: app, image: "nginx:1.27", resources: {{requests: {{cpu: {cpu}}}}}}}]}}
"""

DUPLICATED = "{replicaSchedulingType: Duplicated}"
DIVIDED = "{replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated}"


@pytest.fixture
def fleet(make_cluster):
    return [
        make_cluster(name, labels={"fleet": "main"}, status=schedulable_status()) for name in fleet_names(4)
    ]


def bindings(*workloads: tuple[str, str, str, int, str]) -> dict[str, ResourceBinding]:
    """Policies and Deployments (name, namespace, policy, replicas, cpu) applied, detected and scheduled."""
    policies = {(ns, policy) for _, ns, policy, _, _ in workloads}
    for namespace, policy in sorted(policies):
        scheduling = DIVIDED if policy.startswith("divided") else DUPLICATED
        apply_yaml(POLICY.format(name=policy, namespace=namespace, scheduling=scheduling))
    apply_yaml(
        "---\n".join(
            DEPLOYMENT.format(name=n, namespace=ns, policy=p, replicas=r, cpu=cpu)
            for n, ns, p, r, cpu in workloads
        )
    )
    candidates = detector.load_candidates()
    found = [
        detector.detect_template(pk, candidates)
        for pk in ResourceTemplate.objects.values_list("pk", flat=True)
    ]
    ids = [binding.pk for binding in found if binding is not None]
    assert len(ids) == len(workloads)
    scheduler.schedule_bindings(ids)
    rows = ResourceBinding.objects.select_related("template", "policy").filter(pk__in=ids)
    return {row.template.name: row for row in rows}


def test_bindings_alike_but_for_name_and_uid_share_a_key_when_duplicated(fleet):
    found = bindings(("a", "one", "everywhere", 1, "1m"), ("b", "one", "everywhere", 1, "1m"))
    assert found["a"].template.uid != found["b"].template.uid
    assert plan_key(found["a"]) == plan_key(found["b"])


def test_what_the_planner_reads_tells_keys_apart(fleet):
    found = bindings(
        ("base", "one", "everywhere", 1, "1m"),
        ("more-replicas", "one", "everywhere", 3, "1m"),
        ("more-cpu", "one", "everywhere", 1, "2"),
        ("divided-a", "one", "divided", 2, "1m"),
        ("divided-b", "one", "divided", 2, "1m"),
    )
    keys = {name: plan_key(binding) for name, binding in found.items()}
    assert len(set(keys.values())) == len(keys)  # a Divided binding keeps its uid: it breaks ties
    elsewhere = found["base"]
    elsewhere.clusters = elsewhere.clusters[:1]  # its previous result differs
    assert plan_key(elsewhere) != keys["base"]


def test_a_pass_plans_alike_bindings_once_and_each_of_the_others(fleet):
    found = bindings(
        ("a", "one", "everywhere", 1, "1m"),
        ("b", "one", "everywhere", 1, "1m"),
        ("c", "one", "everywhere", 2, "1m"),
    )
    shared = scheduler.Shared.load(list(found.values()))
    plans = {name: shared.unlocked_plan(binding) for name, binding in found.items()}
    assert plans["a"] is plans["b"]
    assert plans["c"] is not plans["a"]
    assert len(shared.plans) == 2
    assert {t.replicas for t in plans["c"].clusters} == {2}
    assert [t.name for t in plans["a"].clusters] == fleet_names(4)


def test_a_shared_plan_still_moves_every_binding_off_a_cluster_that_left(fleet):
    found = bindings(*[(f"app-{i}", "one", "everywhere", 1, "1m") for i in range(5)])
    fleet[0].delete()
    ids = [binding.pk for binding in found.values()]
    marking.mark(ids)
    assert sorted(scheduler.dirty_pass(ids).taken) == sorted(ids)
    for binding in ResourceBinding.objects.filter(pk__in=ids):
        assert sorted(binding.target_replicas()) == fleet_names(4)[1:]


def reordered(fleet, ids: list[int]) -> None:
    """The last cluster gains room: every Duplicated binding's candidate order (available replicas
    descending) puts it first, the same targets in another order."""
    fleet[-1].status = schedulable_status(pods=200)
    fleet[-1].save()
    marking.mark(ids)


@pytest.mark.parametrize("count", [10, 30])
def test_a_pass_writes_its_changed_plans_together_whatever_their_number(
    fleet, count, django_assert_max_num_queries
):
    found = bindings(*[(f"app-{i}", "one", "everywhere", 1, "1m") for i in range(count)])
    ids = [binding.pk for binding in found.values()]
    reordered(fleet, ids)
    with django_assert_max_num_queries(12):
        assert sorted(scheduler.dirty_pass(ids).taken) == sorted(ids)
    for binding in ResourceBinding.objects.filter(pk__in=ids):
        assert [c["name"] for c in binding.clusters] == [fleet[-1].name, *fleet_names(4)[:3]]
        assert binding.summary_clusters == 4  # the same targets: the counts stand


def test_a_pass_that_moves_targets_keeps_the_stored_counts_in_step(fleet):
    found = bindings(*[(f"app-{i}", "one", "everywhere", 2, "1m") for i in range(3)])
    ids = [binding.pk for binding in found.values()]
    fleet[0].delete()
    marking.mark(ids)
    scheduler.dirty_pass(ids)
    for binding in ResourceBinding.objects.filter(pk__in=ids):
        assert (binding.summary_clusters, binding.summary_desired) == (3, 6)
        fresh = ResourceBinding.objects.get(pk=binding.pk)
        assert fresh.refresh_counts() and fresh.counts == binding.counts  # as a full save would count


def test_a_pass_leaves_a_binding_whose_plan_changes_nothing_unwritten(fleet):
    found = bindings(*[(f"app-{i}", "one", "everywhere", 1, "1m") for i in range(3)])
    ids = [binding.pk for binding in found.values()]
    before = dict(ResourceBinding.objects.filter(pk__in=ids).values_list("pk", "updated_at"))
    marking.mark(ids)
    scheduler.dirty_pass(ids)
    assert dict(ResourceBinding.objects.filter(pk__in=ids).values_list("pk", "updated_at")) == before


def test_a_binding_written_after_the_pass_read_it_is_planned_from_its_row_as_locked(fleet):
    found = bindings(*[(f"app-{i}", "one", "everywhere", 1, "1m") for i in range(3)])
    ids = sorted(binding.pk for binding in found.values())
    reordered(fleet, ids)
    read = {binding.pk: binding for binding in scheduler.pass_rows(ids)}
    ResourceBinding.objects.filter(pk=ids[0]).update(replicas=3)  # another writer, after the read
    shared = scheduler.Shared.load(list(read.values()))
    assert list(scheduler._write_plans(ids, read, timezone.now(), shared)) == ids
    written = {b.pk: b for b in ResourceBinding.objects.filter(pk__in=ids)}
    assert set(written[ids[0]].target_replicas().values()) == {3}  # not the replicas the pass read
    assert set(written[ids[1]].target_replicas().values()) == {1}


def test_a_pass_tells_the_bindings_it_wrote_from_those_it_only_took(fleet):
    found = bindings(*[(f"app-{i}", "one", "everywhere", 1, "1m") for i in range(3)])
    ids = sorted(binding.pk for binding in found.values())
    marking.mark(ids)
    settled = scheduler.dirty_pass(ids)
    assert (settled.taken, settled.written) == (ids, [])  # every re-plan changed nothing
    reordered(fleet, ids)
    moved = scheduler.dirty_pass(ids)
    assert (moved.taken, moved.written) == (ids, ids)  # every binding's clusters in another order
