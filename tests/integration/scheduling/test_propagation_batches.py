"""Propagation in batches: many bindings synced in a constant number of statements, outcomes written in
bulk and only while the desired state holds, a slow cluster holding back none of the others' Works."""

from __future__ import annotations

import threading

import yaml
from django.db import connection
from django.test.utils import CaptureQueriesContext

from clusters.k8s import objects
from scheduling.controllers import applied_writes, dispatch, propagation
from scheduling.models import ResourceBinding, Work
from scheduling.services import apply_yaml

POLICY = {
    "apiVersion": "policy.karmada.io/v1alpha1",
    "kind": "PropagationPolicy",
    "metadata": {"name": "everywhere", "namespace": "default"},
    "spec": {
        "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
        "placement": {
            "clusterAffinity": {"clusterNames": ["cluster-01", "cluster-02", "cluster-03"]},
            "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
        },
    },
}


def deployment(name: str) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": name}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]},
            },
        },
    }


def seed(count: int) -> list[int]:
    docs = [POLICY] + [deployment(f"app-{i}") for i in range(count)]
    apply_yaml("".join("---\n" + yaml.safe_dump(doc) for doc in docs))
    return list(ResourceBinding.objects.order_by("pk").values_list("pk", flat=True))


def queries_of_sync(binding_ids: list[int]) -> tuple[list[str], dict[int, list[int]]]:
    with CaptureQueriesContext(connection) as captured:
        pending = propagation.sync_bindings(binding_ids).pending
    # the sync's own statements: reconcile_digests' (digests of columns in SQL, and where they are
    # stored) are counted by its own tests
    own = [q["sql"] for q in captured.captured_queries if not digests_statement(q["sql"])]
    return own, pending


def digests_statement(sql: str) -> bool:
    return "md5(" in sql or "_digest = v.digest" in sql


def reading(queries: list[str], table: str) -> int:
    return sum(1 for sql in queries if sql.startswith("SELECT") and f'FROM "{table}"' in sql)


def writing(queries: list[str], table: str) -> int:
    return sum(1 for sql in queries if sql.startswith(f'UPDATE "{table}"'))


def test_a_batch_of_bindings_reads_its_inputs_once_and_writes_each_binding_in_bulk(members):
    ids = seed(8)
    assert Work.objects.count() == 24 and all(w.in_sync for w in Work.objects.all())
    wanted = dict(Work.objects.values_list("pk", "desired_hash"))

    settled_one, _ = queries_of_sync(ids[:1])
    settled_all, pending = queries_of_sync(ids)
    assert len(settled_all) == len(settled_one)  # nothing to change: read once for the batch, no lock
    assert pending == {pk: [] for pk in ids}

    # every Work's desired state is lost
    Work.objects.update(manifest={}, desired_hash="stale", applied=False)
    changed_one, _ = queries_of_sync(ids[:1])
    Work.objects.update(manifest={}, desired_hash="stale", applied=False)
    changed_all, pending = queries_of_sync(ids)
    # the clusters and override policies once for the batch; per binding its lock, its Works, one update;
    # the render keys in one update
    assert reading(changed_all, "clusters_cluster") == 1
    assert reading(changed_all, "scheduling_overridepolicy") == 1
    assert len(changed_all) - len(changed_one) <= 5 * (len(ids) - 1)
    assert writing(changed_all, "scheduling_work") == len(ids)
    assert writing(changed_all, "scheduling_resourcebinding") == 1  # every render key in one statement
    assert dict(Work.objects.values_list("pk", "desired_hash")) == wanted
    assert sorted(pk for works in pending.values() for pk in works) == sorted(wanted)


def test_works_leaving_the_placement_are_marked_in_the_same_pass(members):
    ids = seed(3)
    ResourceBinding.objects.filter(pk__in=ids).update(clusters=[{"name": "cluster-01"}])
    pending = propagation.sync_bindings(ids).pending
    leaving = Work.objects.exclude(cluster_name="cluster-01")
    assert leaving.count() == 6 and all(w.deleting for w in leaving)
    assert sorted(pk for works in pending.values() for pk in works) == sorted(
        leaving.values_list("pk", flat=True)
    )


def test_applied_outcomes_are_written_only_where_the_desired_state_did_not_move_on(members):
    seed(1)
    works = list(Work.objects.order_by("pk"))
    conn = members[works[0].cluster_name].connection()
    live = objects.get_object(conn, "apps/v1", "Deployment", "app-0", "default")
    Work.objects.filter(pk=works[0].pk).update(desired_hash="moved-on", applied=False)
    Work.objects.filter(pk__in=[w.pk for w in works[1:]]).update(applied=False, status={})

    written = applied_writes.record_applied([(w, live) for w in works], works[0].created_at)

    assert written == {w.pk for w in works[1:]}
    moved = Work.objects.get(pk=works[0].pk)
    assert not moved.applied and moved.desired_hash == "moved-on"
    for work in Work.objects.filter(pk__in=written):
        assert work.in_sync and work.applied_reason == "AppliedSuccessful"
        assert work.status == applied_writes.reflect_status(live) and work.status_at is not None


def test_outcomes_of_fast_clusters_come_back_while_a_slow_cluster_still_answers(monkeypatch):
    release = threading.Event()
    lock = threading.Lock()
    running = {"slow": 0, "all": 0}
    most = {"slow": 0, "all": 0}

    def act(work: Work, conn, problem: str) -> dispatch.Outcome:
        slow = work.cluster_name == "slow"
        with lock:
            for key in ("all", "slow") if slow else ("all",):
                running[key] += 1
                most[key] = max(most[key], running[key])
        if slow:
            assert release.wait(5)
        with lock:
            for key in ("all", "slow") if slow else ("all",):
                running[key] -= 1
        return dispatch.Outcome("unchanged")

    monkeypatch.setattr(dispatch, "_act", act)
    # the slow cluster's Works come first, as a chunk ordered by id could hold them
    works = [Work(pk=i, cluster_name="slow") for i in range(1, 11)]
    works += [Work(pk=i, cluster_name=f"fast-{i % 4}") for i in range(11, 61)]
    conns = {name: (None, "") for name in {w.cluster_name for w in works}}

    batches = dispatch._outcomes(works, conns)
    seen: set[int] = set()
    while len(seen) < 50:
        seen |= {w.pk for w, _ in next(batches)}
    assert seen == set(range(11, 61))  # every fast Work's outcome is handed back, the slow ones wait
    assert most["slow"] == dispatch.PER_CLUSTER_CALLS
    release.set()
    rest = {w.pk for batch in batches for w, _ in batch}
    assert rest == set(range(1, 11))
    assert most["all"] <= dispatch.PARALLEL_CALLS


def test_the_set_based_applied_write_stores_what_a_row_by_row_one_does(members):
    from datetime import timedelta

    from django.db import connection

    seed(1)
    works = list(Work.objects.order_by("pk"))
    now = works[0].created_at
    since = now - timedelta(minutes=3)
    status = {"replicas": 2, "conditions": [{"type": "Available", "status": "False", "message": 'é "q"; x'}]}
    rows = [
        (w.pk, w.desired_hash, status, "Unhealthy", since if i % 2 else None) for i, w in enumerate(works)
    ]
    Work.objects.update(applied=False, status={})
    set_based = (
        applied_writes._update_sqlite if connection.vendor == "sqlite" else applied_writes._update_postgresql
    )
    assert set_based(rows[::2], now) | applied_writes._update_each(rows[1::2], now) == {w.pk for w in works}
    columns = (
        "applied",
        "applied_reason",
        "applied_message",
        "status",
        "health",
        "status_at",
    )
    stored = {w.pk: w for w in Work.objects.all()}
    for pk, desired_hash, _, health, since_value in rows:
        work = stored[pk]
        assert (work.applied, work.applied_hash, work.health, work.status, work.status_at) == (
            True,
            desired_hash,
            health,
            status,
            now,
        )
        assert work.unhealthy_since == since_value and work.applied_at is not None
    first, second = stored[rows[0][0]], stored[rows[1][0]]
    assert [getattr(first, c) for c in columns] == [getattr(second, c) for c in columns]
