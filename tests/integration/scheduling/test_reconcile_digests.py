"""The periodic pass skips the bindings whose inputs did not move, and still repairs what moved unseen."""

from __future__ import annotations

import pytest
from django.db import connection
from django.utils import timezone

from scheduling.controllers import reconcile as reconciling
from scheduling.controllers import reconcile_digests
from scheduling.models import ResourceBinding, ResourceTemplate, Work
from scheduling.services import apply_yaml

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the digests are PostgreSQL's (elsewhere every step runs)"
)

FLEET = """apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: everywhere, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement:
    replicaScheduling: {replicaSchedulingType: Duplicated}
"""
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: default, labels: {{app: {name}}}}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec: {{containers: [{{name: app, image: "nginx:1.27"}}]}}
"""


def settled_fleet() -> list[ResourceBinding]:
    """Two workloads on every cluster, after enough passes that every step has settled every binding."""
    apply_yaml("---\n".join([FLEET, DEPLOYMENT.format(name="web"), DEPLOYMENT.format(name="api")]))
    for _ in range(3):
        reconciling.reconcile()
    bindings = list(ResourceBinding.objects.order_by("pk"))
    assert len(bindings) == 2 and all(len(b.clusters) == 3 for b in bindings)
    return bindings


def test_a_quiet_fleet_leaves_every_step_out_once_settled(members):
    settled_fleet()
    moved = reconcile_digests.moved()
    assert (moved.detect, moved.sync, moved.aggregate) == ({}, {}, {})
    # and a change moves only the binding it belongs to, only for the steps that read it
    work = Work.objects.filter(binding__name__startswith="web").first()
    Work.objects.filter(pk=work.pk).update(health="Unhealthy")
    moved = reconcile_digests.moved()
    assert (set(moved.detect), set(moved.sync), set(moved.aggregate)) == (set(), set(), {work.binding_id})


def test_a_stored_count_tampered_with_in_sql_is_counted_again(members):
    binding = settled_fleet()[0]
    applied = binding.summary_applied
    assert applied == 3
    ResourceBinding.objects.filter(pk=binding.pk).update(summary_applied=0, summary_clusters=7)
    reconciling.reconcile()
    binding.refresh_from_db()
    assert (binding.summary_applied, binding.summary_clusters) == (applied, 3)


def test_a_status_left_stale_on_the_binding_is_aggregated_again(members):
    binding = settled_fleet()[0]
    entries = binding.aggregated_status
    ResourceBinding.objects.filter(pk=binding.pk).update(aggregated_status=[])
    reconciling.reconcile()
    binding.refresh_from_db()
    assert binding.aggregated_status == entries


def test_a_work_whose_desired_state_was_changed_unseen_is_rendered_again(members):
    binding = settled_fleet()[0]
    work = Work.objects.filter(binding=binding).first()
    desired = work.desired_hash
    Work.objects.filter(pk=work.pk).update(desired_hash="0" * 64)  # no updated_at, no event
    plan = reconciling.reconcile()
    work.refresh_from_db()
    assert work.desired_hash == desired
    assert work.pk not in plan.apply or not work.in_sync


def test_a_template_changed_without_an_event_renders_its_works_again(members):
    binding = settled_fleet()[0]
    template = binding.template
    manifest = template.manifest
    manifest["spec"]["template"]["spec"]["containers"][0]["image"] = "nginx:1.28"
    # a queryset update: updated_at stays, nothing is marked
    ResourceTemplate.objects.filter(pk=template.pk).update(
        manifest=manifest, generation=template.generation + 1
    )
    plan = reconciling.reconcile()
    works = list(Work.objects.filter(binding=binding))
    images = {w.manifest["spec"]["template"]["spec"]["containers"][0]["image"] for w in works}
    assert images == {"nginx:1.28"}
    assert {w.pk for w in works} <= set(plan.apply)  # out of sync now: queued for their member calls


def test_a_binding_spec_changed_unseen_is_detected_again(members):
    binding = settled_fleet()[0]
    ResourceBinding.objects.filter(pk=binding.pk).update(replicas=9)
    reconciling.reconcile()
    binding.refresh_from_db()
    assert binding.replicas == 2


def test_a_template_that_lost_its_binding_gets_one_again(members):
    binding = settled_fleet()[0]
    template_id = binding.template_id
    ResourceBinding.objects.filter(pk=binding.pk).delete()
    reconciling.reconcile()
    assert ResourceBinding.objects.filter(template_id=template_id).exists()


def test_a_template_marked_deleting_unseen_has_its_works_retired(members):
    binding = settled_fleet()[0]
    ResourceTemplate.objects.filter(pk=binding.template_id).update(deleting_since=timezone.now())
    plan = reconciling.reconcile()
    works = list(Work.objects.filter(binding=binding))
    assert works and all(w.deleting for w in works)
    assert {w.pk for w in works} <= set(plan.apply)


def test_a_policy_change_moves_every_binding_through_detection(members):
    bindings = settled_fleet()
    from scheduling.models import PropagationPolicy

    PropagationPolicy.objects.update(priority=5)
    moved = reconcile_digests.moved()
    assert set(moved.detect) == {b.pk for b in bindings}
    # the sync reads a policy's spec only through what detection writes onto the binding
    assert set(moved.sync) == set()


def test_a_policy_edit_reaches_the_sync_through_the_binding_or_what_a_copy_names(members):
    from scheduling.models import OverridePolicy, PropagationPolicy

    bindings = settled_fleet()
    everyone = {b.pk for b in bindings}
    policy = PropagationPolicy.objects.get()
    # a label, or a new revision of the same spec: no binding changes, no sync moves
    PropagationPolicy.objects.filter(pk=policy.pk).update(labels={"revision": "2"}, generation=2)
    assert set(reconcile_digests.moved().sync) == set()
    # an annotation (a rollout's waves are one) moves every sync
    PropagationPolicy.objects.filter(pk=policy.pk).update(annotations={"note": "x"})
    assert set(reconcile_digests.moved().sync) == everyone
    # a spec change that changes the member copies goes through detection onto the bindings, then the sync
    apply_yaml(FLEET.replace("Duplicated}", "Duplicated}\n  conflictResolution: Overwrite"))
    for _ in range(3):
        reconciling.reconcile()
    annotations = {
        w.manifest["metadata"]["annotations"].get("work.karmada.io/conflict-resolution")
        for w in Work.objects.all()
    }
    assert annotations == {"overwrite"}
    moved = reconcile_digests.moved()
    assert (moved.detect, moved.sync) == ({}, {})
    # an override policy moves every sync
    OverridePolicy.objects.create(
        kind="OverridePolicy",
        namespace="default",
        name="o",
        spec={"resourceSelectors": [], "overrideRules": []},
    )
    assert set(reconcile_digests.moved().sync) == everyone


def test_a_work_out_of_sync_is_queued_again_only_once_its_apply_could_have_been_lost(members):
    binding = settled_fleet()[0]
    work = Work.objects.filter(binding=binding).first()
    # just written, its apply on its way (as a seeding's Works): the pass does not call the member twice
    Work.objects.filter(pk=work.pk).update(applied=False, updated_at=timezone.now())
    assert work.pk not in reconciling.reconcile().apply
    # a minute on and still out of sync: its apply task was lost, the pass queues it
    Work.objects.filter(pk=work.pk).update(updated_at=timezone.now() - reconciling.lost_mark_age())
    assert work.pk in reconciling.reconcile().apply


def test_a_binding_a_pass_wrote_is_settled_by_that_pass(members):
    bindings = settled_fleet()
    # statuses and Works left stale unseen: the pass writes both, and stores what it wrote
    Work.objects.filter(binding=bindings[0]).update(desired_hash="0" * 64)
    ResourceBinding.objects.filter(pk=bindings[1].pk).update(aggregated_status=[])
    moved = reconcile_digests.moved()
    assert (set(moved.sync), set(moved.aggregate)) == ({bindings[0].pk}, {b.pk for b in bindings})
    reconciling.reconcile()
    moved = reconcile_digests.moved()
    assert (moved.detect, moved.sync, moved.aggregate) == ({}, {}, {})


def test_an_input_that_moves_while_a_step_runs_is_left_to_the_next_pass(members):
    binding = settled_fleet()[0]
    settled = reconcile_digests.Settled(reconcile_digests.AGGREGATE, [binding.pk])
    # a Work's health moves after the step read its inputs, before it stored what it wrote
    Work.objects.filter(binding=binding).update(health="Unhealthy")
    settled.store([binding.pk])
    assert set(reconcile_digests.moved().aggregate) == {binding.pk}
    reconciling.reconcile()  # reads the members back (health as they report it) and aggregates again
    binding.refresh_from_db()
    health = {entry["clusterName"]: entry["health"] for entry in binding.aggregated_status}
    assert health == dict(Work.objects.filter(binding=binding).values_list("cluster_name", "health"))
    assert reconcile_digests.moved().aggregate == {}


def test_an_output_changed_after_it_was_stored_is_found(members):
    binding = settled_fleet()[0]
    ResourceBinding.objects.filter(pk=binding.pk).update(rendered_key="stale")
    assert set(reconcile_digests.moved().sync) == {binding.pk}


def test_a_re_plan_the_events_carried_through_leaves_the_pass_nothing(members):
    from scheduling import tasks

    bindings = settled_fleet()
    # a schedule pass reorders every binding's clusters (a re-plan), and queues their sync tasks
    for binding in bindings:
        ResourceBinding.objects.filter(pk=binding.pk).update(clusters=list(reversed(binding.clusters)))
    moved = reconcile_digests.moved()
    # neither the Works nor the aggregated status (by cluster name, as Karmada sorts it) depend on the
    # clusters' order: the sync and the aggregation stay settled, nothing is rendered again
    assert (set(moved.sync), set(moved.aggregate)) == (set(), set())
    from scheduling.controllers import propagation

    assert propagation.sync_bindings([b.pk for b in bindings]).unchanged == {b.pk for b in bindings}
    tasks.sync_bindings([b.pk for b in bindings])
    # the sync task and the aggregation it ran recorded what they settled: nothing left to the pass
    moved = reconcile_digests.moved()
    assert (moved.detect, moved.sync, moved.aggregate) == ({}, {}, {})
    for binding in bindings:
        binding.refresh_from_db()
        names = sorted(c["name"] for c in binding.clusters)
        assert [e["clusterName"] for e in binding.aggregated_status] == names


def test_a_status_the_watcher_path_aggregates_is_settled(members):
    from scheduling.controllers import propagation

    binding = settled_fleet()[0]
    Work.objects.filter(binding=binding).update(health="Unhealthy")
    assert set(reconcile_digests.moved().aggregate) == {binding.pk}
    propagation.aggregate_bindings([binding.pk])  # as a watch event's batch aggregates
    assert reconcile_digests.moved().aggregate == {}
    binding.refresh_from_db()
    assert {e["health"] for e in binding.aggregated_status} == {"Unhealthy"}


def test_storing_an_unchanged_digest_writes_no_row_version(members):
    binding = settled_fleet()[0]

    def row_version() -> str:
        with connection.cursor() as cursor:
            cursor.execute("SELECT xmin::text FROM scheduling_resourcebinding WHERE id = %s", [binding.pk])
            return cursor.fetchone()[0]

    before = row_version()
    settled = reconcile_digests.Settled(reconcile_digests.AGGREGATE, [binding.pk])
    settled.store([binding.pk])
    assert row_version() == before


def test_a_sync_task_asks_only_after_the_bindings_its_pass_wrote(members):
    from scheduling import tasks

    first, second = settled_fleet()
    for binding in (first, second):  # both aggregations moved (a member status each)
        work = Work.objects.filter(binding=binding).order_by("pk").first()
        Work.objects.filter(pk=work.pk).update(health="Unhealthy")
    # the pass that queued this sync wrote only `first`: `second` was not written by it, and the
    # aggregation is not checked for it (the pass that wrote it queued its own sync)
    tasks.sync_bindings([first.pk, second.pk], [first.pk])
    assert set(reconcile_digests.moved().aggregate) == {second.pk}
    first.refresh_from_db()
    assert [e["clusterName"] for e in first.aggregated_status] == sorted(c["name"] for c in first.clusters)
    assert "Unhealthy" in {e["health"] for e in first.aggregated_status}
    # told nothing of a pass (a page's sync), every binding is checked
    tasks.sync_bindings([second.pk])
    assert reconcile_digests.moved().aggregate == {}


def test_a_sync_of_settled_bindings_reads_no_work_state_yet_returns_the_works_still_to_apply(members):
    from django.test.utils import CaptureQueriesContext

    from scheduling.controllers import propagation

    bindings = settled_fleet()
    ids = [b.pk for b in bindings]
    failed = Work.objects.filter(binding=bindings[0]).order_by("pk").first()
    Work.objects.filter(pk=failed.pk).update(applied=False, applied_message="connection refused")

    with CaptureQueriesContext(connection) as captured:
        synced = propagation.sync_bindings(ids)

    # left as they were: no Work's render state read, nothing written, the failed apply still queued
    assert synced.unchanged == set(ids)
    assert synced.pending == {ids[0]: [failed.pk], ids[1]: []}
    sql = [q["sql"] for q in captured.captured_queries]
    assert not any('"scheduling_work"."applied_overrides"' in s for s in sql)
    assert not any(s.split(" ", 1)[0] in ("INSERT", "UPDATE", "DELETE") for s in sql)


def test_a_sync_renders_a_settled_binding_again_once_a_work_it_wrote_moved_unseen(members):
    from scheduling.controllers import propagation

    bindings = settled_fleet()
    work = Work.objects.filter(binding=bindings[1]).order_by("pk").first()
    Work.objects.filter(pk=work.pk).update(desired_hash="stale", manifest={})

    synced = propagation.sync_bindings([b.pk for b in bindings])

    assert synced.unchanged == {bindings[0].pk}
    work.refresh_from_db()
    assert work.desired_hash != "stale" and work.manifest["kind"] == "Deployment"


def test_a_schedule_pass_that_wrote_nothing_syncs_only_the_bindings_with_something_to_do(
    members, django_capture_on_commit_callbacks, monkeypatch
):
    from clusters.models import Cluster
    from scheduling import tasks
    from scheduling.controllers import marking, propagation

    bindings = settled_fleet()
    ids = [b.pk for b in bindings]
    synced: list[int] = []
    send = tasks.sync_bindings.apply_async

    def sent(args, kwargs=None, **options):
        synced.extend(args[0])
        return send(args, kwargs, **options)

    monkeypatch.setattr(tasks.sync_bindings, "apply_async", sent)

    def dirty_pass() -> list[int]:
        synced.clear()
        marking.mark(ids)
        with django_capture_on_commit_callbacks(execute=True):
            tasks.schedule_dirty_batch(ids)
        return sorted(synced)

    # Karmada's every-reconcile re-plan of a Duplicated fleet that changes nothing: no sync at all
    assert dirty_pass() == []
    # a Work whose apply failed is still driven by the pass's sync
    failed = Work.objects.filter(binding_id=ids[0]).order_by("pk").first()
    Work.objects.filter(pk=failed.pk).update(applied=False, applied_message="connection refused")
    assert dirty_pass() == [ids[0]]
    Work.objects.filter(pk=failed.pk).update(applied=True, applied_message="")
    # an input of every binding's render moved (a cluster's labels, which overrides match on): both
    cluster = Cluster.objects.order_by("name").first()
    Cluster.objects.filter(pk=cluster.pk).update(labels={**cluster.labels, "tier": "gold"})
    assert dirty_pass() == ids
    # once synced, settled again
    assert dirty_pass() == []
    # a pass that writes a binding whose clusters only come back in another order (a Duplicated re-plan
    # after the clusters' available replicas moved) syncs nothing: no Work and no status reads the order
    stored = ResourceBinding.objects.get(pk=ids[0]).clusters
    assert len(stored) > 1
    ResourceBinding.objects.filter(pk=ids[0]).update(clusters=list(reversed(stored)))
    assert dirty_pass() == []
    assert ResourceBinding.objects.get(pk=ids[0]).clusters == stored  # written back in candidate order
    # one whose write brings back a cluster it was synced without is synced
    ResourceBinding.objects.filter(pk=ids[0]).update(clusters=stored[1:])
    propagation.sync_bindings([ids[0]])
    assert dirty_pass() == [ids[0]]
    assert dirty_pass() == []


def test_a_change_of_a_target_clusters_replicas_moves_the_sync_though_a_reorder_does_not(members):
    binding = settled_fleet()[0]
    reordered = list(reversed(binding.clusters))
    ResourceBinding.objects.filter(pk=binding.pk).update(clusters=reordered)
    assert set(reconcile_digests.moved().sync) == set()
    changed = [{**reordered[0], "replicas": 7}, *reordered[1:]]
    ResourceBinding.objects.filter(pk=binding.pk).update(clusters=changed)
    assert set(reconcile_digests.moved().sync) == {binding.pk}
    dropped = reordered[1:]
    ResourceBinding.objects.filter(pk=binding.pk).update(clusters=dropped)
    assert set(reconcile_digests.moved().sync) == {binding.pk}


def test_the_pass_s_idle_test_reads_the_sync_s_inputs_and_leaves_a_work_changed_unseen_to_the_reconcile(
    members,
):
    from scheduling.controllers import propagation

    bindings = settled_fleet()
    ids = [b.pk for b in bindings]
    assert propagation.idle(ids) == set(ids)
    # a Work's desired state changed behind the engine's back: the whole digest moves, the inputs do not
    work = Work.objects.filter(binding_id=ids[0]).order_by("pk").first()
    # (as applied, so that no member call waits either)
    Work.objects.filter(pk=work.pk).update(desired_hash="stale", applied_hash="stale")
    assert set(reconcile_digests.moved().sync) == {ids[0]}
    assert propagation.idle(ids) == set(ids)
    reconciling.reconcile()  # the safety net renders it again
    work.refresh_from_db()
    assert work.desired_hash != "stale"
    assert reconcile_digests.moved().sync == {}
    assert propagation.idle(ids) == {ids[1]}  # the repaired copy waits for its member call
    # an input moved: not idle
    ResourceBinding.objects.filter(pk=ids[1]).update(replicas=5)
    assert propagation.idle(ids) == set()
    # a binding whose inputs were never stored (as after the upgrade that added them) is synced once
    ResourceBinding.objects.filter(pk=ids[1]).update(replicas=2)
    assert propagation.idle([ids[1]]) == {ids[1]}
    ResourceBinding.objects.filter(pk=ids[1]).update(sync_inputs_digest="")
    assert propagation.idle([ids[1]]) == set()
    propagation.sync_bindings([ids[1]])
    assert propagation.idle([ids[1]]) == {ids[1]}
