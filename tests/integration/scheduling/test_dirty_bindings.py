"""The dirty-binding queue: cluster events mark exactly the bindings they can affect, once while queued."""

from __future__ import annotations

from datetime import timedelta

from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from clusters import services as cluster_services
from scheduling import tasks
from scheduling.controllers import marking
from scheduling.controllers import reconcile as reconciling
from scheduling.models import PlacementKey, ResourceBinding, Work
from scheduling.services import apply_yaml
from tests.support.members import member_object

POLICY = """apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {{name: {name}, namespace: default}}
spec:
  resourceSelectors: [{{apiVersion: apps/v1, kind: Deployment, name: {name}}}]
  placement:
    clusterAffinity: {affinity}
    replicaScheduling: {{replicaSchedulingType: Duplicated}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: default, labels: {{app: {name}}}}}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec: {{containers: [{{name: app, image: "nginx:1.27"}}]}}
"""

PLACEMENTS = {
    "by-env": "{labelSelector: {matchLabels: {env: prod}}}",
    "by-tier": "{labelSelector: {matchExpressions: [{key: tier, operator: DoesNotExist}]}}",
    "by-name": "{clusterNames: [cluster-01, cluster-02]}",
}


def apply_all() -> dict[str, ResourceBinding]:
    apply_yaml("---\n".join(POLICY.format(name=n, affinity=a) for n, a in PLACEMENTS.items()))
    return {b.template.name: b for b in ResourceBinding.objects.select_related("template")}


def dirty(bindings: dict[str, ResourceBinding]) -> set[str]:
    marked = set(ResourceBinding.objects.filter(dirty_since__isnull=False).values_list("pk", flat=True))
    return {name for name, binding in bindings.items() if binding.pk in marked}


def test_placements_are_indexed_by_what_they_select_on(members):
    bindings = apply_all()
    keys = {
        name: set(PlacementKey.objects.filter(binding=b).values_list("key", flat=True))
        for name, b in bindings.items()
    }
    assert keys == {
        "by-env": {"label:env"},
        "by-tier": {"label:tier"},
        "by-name": {"name:cluster-01", "name:cluster-02"},
    }


def test_a_label_change_marks_only_the_bindings_selecting_on_that_label_and_they_follow(members):
    bindings = apply_all()
    assert set(bindings["by-env"].target_replicas()) == {"cluster-01", "cluster-02"}
    with transaction.atomic():  # the queued passes run on commit: look at the marks before
        cluster_services.patch_labels(members["cluster-01"], {"env": "dev"})
        assert dirty(bindings) == {"by-env"}
    assert dirty(bindings) == set()  # the pass took the mark
    env = ResourceBinding.objects.get(pk=bindings["by-env"].pk)
    assert set(env.target_replicas()) == {"cluster-02"}
    assert member_object(members["cluster-01"], "apps/v1", "Deployment", "by-env") is None
    assert not Work.objects.filter(binding=env, cluster_name="cluster-01").exists()
    assert env.aggregated_status and {e["clusterName"] for e in env.aggregated_status} == {"cluster-02"}


def test_a_taint_marks_the_bindings_whose_affinity_selects_the_cluster(members):
    bindings = apply_all()
    with transaction.atomic():
        cluster_services.add_taint(members["cluster-03"], "maintenance", "", "NoSchedule")
        # by-tier selects cluster-03 (no tier label); by-env wants env=prod, by-name never names it
        assert dirty(bindings) == {"by-tier"}
    assert dirty(bindings) == set()
    # Karmada's TaintToleration filter keeps a cluster the binding already holds: nothing moves
    by_tier = ResourceBinding.objects.get(pk=bindings["by-tier"].pk)
    assert set(by_tier.target_replicas()) == {"cluster-01", "cluster-02", "cluster-03"}


def test_a_binding_marked_twice_is_queued_once_and_a_lost_mark_is_driven_again(members):
    bindings = apply_all()
    binding = bindings["by-name"]
    assert marking.mark([binding.pk]) == [binding.pk]
    assert marking.mark([binding.pk, binding.pk]) == []
    plan = reconciling.reconcile()
    assert binding.pk not in plan.redrive  # freshly marked: its task may still be on its way
    ResourceBinding.objects.filter(pk=binding.pk).update(dirty_since=timezone.now() - timedelta(minutes=5))
    plan = reconciling.reconcile()
    assert plan.redrive == [binding.pk]
    tasks.schedule_dirty(binding.pk)
    assert not ResourceBinding.objects.filter(dirty_since__isnull=False).exists()


def test_the_periodic_pass_does_not_replan_duplicated_bindings_when_nothing_happened(members):
    apply_all()
    assert reconciling.reconcile().schedule == []


def test_a_batch_pass_takes_only_the_marks_still_set_and_schedules_what_moved(members):
    bindings = apply_all()
    ids = [b.pk for b in bindings.values()]
    env = bindings["by-env"]
    assert sorted(marking.mark(ids)) == sorted(ids)
    assert marking.take_many([env.pk]) == [env.pk]  # another pass took this one
    assert marking.take_many([env.pk]) == []
    assert tasks.scheduler.dirty_pass(ids).taken == sorted(set(ids) - {env.pk})
    assert dirty(bindings) == set()
    assert tasks.scheduler.dirty_pass(ids).taken == []  # nothing marked: nothing taken
    cluster_services.patch_labels(members["cluster-02"], {"env": "dev"})  # marks by-env, its batch runs
    assert dirty(bindings) == set()
    assert set(ResourceBinding.objects.get(pk=env.pk).target_replicas()) == {"cluster-01"}


def test_a_replan_that_changes_nothing_reads_no_status_or_manifest_and_writes_the_marks_and_metrics(members):
    bindings = apply_all()
    ids = [b.pk for b in bindings.values()]
    marking.mark(ids)
    with CaptureQueriesContext(connection) as captured:
        assert sorted(tasks.scheduler.dirty_pass(ids).taken) == sorted(ids)
    sql = [q["sql"] for q in captured.captured_queries]
    writes = [q for q in sql if q.split(" ", 1)[0] in ("INSERT", "UPDATE", "DELETE")]
    scheduling_writes = [q for q in writes if '"scheduling_' in q.split("(", 1)[0]]
    assert len(scheduling_writes) == 1 and "dirty_since" in writes[0]  # the marks taken, in one statement
    assert len(writes) == 2  # and the pass's scheduler metrics, in one write
    binding_reads = [q for q in sql if q.startswith("SELECT") and 'FROM "scheduling_resourcebinding"' in q]
    assert len(binding_reads) == 1  # the pass's bindings, with their templates and policies
    for column in ("aggregated_status", "manifest", "status"):
        assert f'"scheduling_resourcebinding"."{column}"' not in binding_reads[0]
        assert f'"scheduling_resourcetemplate"."{column}"' not in binding_reads[0]
    assert '"scheduling_propagationpolicy"."spec"' not in binding_reads[0]
    assert all(b.condition("Scheduled")["status"] == "True" for b in ResourceBinding.objects.all())


def affected(bindings: dict[str, ResourceBinding], name: str, old, new) -> set[str]:
    ids = marking.affected_by_cluster_change(name, old, new)
    return {n for n, binding in bindings.items() if binding.pk in ids}


def state(labels: dict[str, str], **fields) -> dict:
    return {
        "labels": labels,
        "taints": [],
        "ready": "True",
        "provider": "",
        "region": "",
        "zones": [],
        **fields,
    }


def test_a_joined_cluster_marks_only_the_bindings_whose_placement_selects_it(members):
    bindings = apply_all()
    # tier=web: by-tier (DoesNotExist) does not select it, env=dev not by-env, its name not by-name
    assert affected(bindings, "cluster-09", None, state({"env": "dev", "tier": "web"})) == set()
    assert affected(bindings, "cluster-09", None, state({"env": "prod", "tier": "web"})) == {"by-env"}
    assert affected(bindings, "cluster-09", None, state({})) == {"by-tier"}  # DoesNotExist selects it
    # leaving: what its affinity selects, and what holds a Work there (by-tier placed on cluster-03)
    assert affected(bindings, "cluster-03", state({"env": "staging", "tier": "web"}), None) == {"by-tier"}


def test_a_label_change_marks_a_selector_it_enters_or_leaves_but_not_one_it_stays_out_of(members):
    bindings = apply_all()
    outside = {"env": "dev", "tier": "web"}
    assert affected(bindings, "cluster-09", state(outside), state({**outside, "env": "prod"})) == {"by-env"}
    assert affected(bindings, "cluster-09", state({**outside, "env": "prod"}), state(outside)) == {"by-env"}
    assert affected(bindings, "cluster-09", state(outside), state({**outside, "env": "qa"})) == set()
    assert affected(bindings, "cluster-09", state(outside), state({"env": "dev"})) == {"by-tier"}


def test_readiness_and_taints_mark_only_what_selects_the_cluster(members):
    bindings = apply_all()
    prod = state({"env": "prod", "tier": "web"})
    assert affected(bindings, "cluster-09", prod, {**prod, "ready": "False"}) == {"by-env"}
    tainted = {**prod, "taints": [{"key": "maintenance", "effect": "NoSchedule"}]}
    assert affected(bindings, "cluster-09", prod, tainted) == {"by-env"}
    dev = state({"env": "dev", "tier": "web"})
    assert affected(bindings, "cluster-09", dev, {**dev, "ready": "False"}) == set()


def test_cluster_affinities_use_the_observed_term_and_any_cluster_until_it_is_observed(members):
    bindings = apply_all()
    binding = ResourceBinding.objects.get(pk=bindings["by-name"].pk)
    binding.placement = {
        "clusterAffinities": [
            {"affinityName": "primary", "clusterNames": ["cluster-01"]},
            {"affinityName": "backup", "labelSelector": {"matchLabels": {"env": "dr"}}},
        ]
    }
    binding.scheduler_observed_generation = binding.generation
    binding.scheduler_observed_affinity_name = "backup"
    binding.save()
    marking.index_placement(binding)
    bindings["by-name"] = binding
    dr, dev = state({"env": "dr", "tier": "web"}), state({"env": "dev", "tier": "web"})
    assert affected(bindings, "cluster-09", None, dr) == {"by-name"}
    assert affected(bindings, "cluster-09", None, dev) == set()
    ResourceBinding.objects.filter(pk=binding.pk).update(generation=binding.generation + 1)
    assert affected(bindings, "cluster-09", None, dev) == {"by-name"}  # not observed yet: enqueue


def test_a_bulk_join_marks_once_what_the_joined_clusters_concern(members):
    bindings = apply_all()
    changes = [
        ("cluster-08", None, state({"env": "dev", "tier": "web"})),
        ("cluster-09", None, state({"env": "prod", "tier": "web"})),
    ]
    ids = marking.affected_by_cluster_changes(changes)
    assert {n for n, b in bindings.items() if b.pk in ids} == {"by-env"}
