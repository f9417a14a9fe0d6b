"""The member watcher against simulated members: drift by watch, reconnects, 410 Gone, resync repairs."""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import DatabaseError
from django.utils import timezone

from clusters.inventory import MUX as INVENTORY_MUX
from clusters.k8s import objects
from clusters.k8s.watch_streams import OPENERS, shared_mux
from membersim.resources import stored
from scheduling.member_watch import (
    BACKLOG_OBJECTS,
    HELD_CHECK,
    KINDS_AGAIN,
    LISTINGS_AT_ONCE,
    Seen,
    Shard,
    Watcher,
)
from scheduling.models import HEALTHY, UNHEALTHY, DriftEvent, ResourceBinding, Work
from scheduling.services import apply_yaml
from tests.support.members import member_object

NGINX = (Path(__file__).parent / "examples" / "nginx-cluster-names.yaml").read_text()
DEPLOYMENTS = stored("apps", "deployments")


def replicas(members, cluster: str) -> int | None:
    live = member_object(members[cluster], "apps/v1", "Deployment", "nginx")
    return None if live is None else live["spec"]["replicas"]


def until(watcher: Watcher, condition, seconds: float = 20.0) -> None:
    """Run the watcher's database loop (in this thread) until the condition holds."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"not within {seconds}s; {watcher.counters}"
        watcher.refresh_reflectors()
        watcher.drain(timeout=0.2)


@pytest.fixture
def watcher(members):
    apply_yaml(NGINX)
    assert replicas(members, "cluster-01") == 2
    watching = Watcher(resync=300.0, watch_seconds=30)
    yield watching
    watching.close()


def test_a_copy_edited_by_hand_is_repaired_from_its_watch_event(members, watcher):
    until(watcher, lambda: watcher.counters.lists >= 2)  # both clusters listed, nothing to repair
    conn = members["cluster-01"].connection()
    objects.patch_object(conn, "apps/v1", "Deployment", "nginx", {"spec": {"replicas": 7}}, "default")
    until(watcher, lambda: replicas(members, "cluster-01") == 2)
    assert watcher.counters.lists == 2  # by the event, not by listing again
    objects.delete_object(conn, "apps/v1", "Deployment", "nginx", "default")
    until(watcher, lambda: replicas(members, "cluster-01") == 2)
    assert Work.objects.get(cluster_name="cluster-01").in_sync


def test_the_watcher_keeps_each_clusters_nodes_and_pods_for_the_health_collection(members, watcher):
    from clusters.collector import collect_cluster
    from clusters.models import Cluster, ClusterInventory

    until(watcher, lambda: watcher.inventory.write() == len(members))
    assert set(ClusterInventory.objects.values_list("cluster__name", flat=True)) == set(members)
    result = collect_cluster(Cluster.objects.get(name="cluster-01").pk)
    assert result.watched
    # the copy's two replicas, as the member runs them
    assert Cluster.objects.get(name="cluster-01").pods_allocated == 2


def test_every_clusters_watches_are_read_by_the_shared_mux_not_a_thread_each(members, watcher):
    until(watcher, lambda: watcher.inventory.write() == len(members))
    until(watcher, lambda: shared_mux().streams() >= len(watcher.reflectors))  # the kinds of Works
    # the inventories' nodes and pods on a mux of their own (see the next test)
    until(watcher, lambda: shared_mux(INVENTORY_MUX).streams() >= 2 * len(members))
    names = [thread.name for thread in threading.enumerate()]
    assert not [name for name in names if name.startswith(("watch-cluster", "inventory-cluster"))]
    assert names.count("watch-mux") == 1 and len([n for n in names if n.startswith("watch-open")]) <= OPENERS
    assert names.count(f"{INVENTORY_MUX}-mux") == 1


def test_the_inventories_keep_flowing_while_the_work_backlog_is_full(members, watcher):
    """The Work reflectors' mux is slowed by the watcher's backlog (its streams paused, its events many);
    the inventories must not wait with it (stale, every health probe would list the cluster's pods)."""
    until(watcher, lambda: watcher.inventory.write() == len(members))
    inventory = watcher.inventory.inventories["cluster-01"][0]
    before = inventory.generation
    watcher.seen.limit = 1  # a backlog already holding anything has no room: its streams pause
    conn = members["cluster-01"].connection()
    try:
        # a Work event (the copy's replicas edited by hand) and its pods: the first fills the
        # backlog; the two muxes deliver in either order, so wait for both
        objects.patch_object(conn, "apps/v1", "Deployment", "nginx", {"spec": {"replicas": 5}}, "default")
        deadline = time.monotonic() + 20
        while watcher.seen.held < 1 or inventory.generation < before + 3:  # the three new pods
            assert time.monotonic() < deadline, "the inventory waited with the Work backlog"
            time.sleep(0.05)
        # the backlog is full: the copy's next event waits in its paused stream, its pod must not
        filled = inventory.generation
        objects.patch_object(conn, "apps/v1", "Deployment", "nginx", {"spec": {"replicas": 6}}, "default")
        while inventory.generation <= filled:
            assert time.monotonic() < deadline, "the inventory waited with the Work backlog"
            time.sleep(0.05)
        assert watcher.seen.held >= 1 and inventory.fresh()
    finally:
        watcher.seen.limit = BACKLOG_OBJECTS
        watcher.seen.done([])
    until(watcher, lambda: replicas(members, "cluster-01") == 2)  # the watcher goes on, and repairs


def test_a_full_backlog_pauses_the_work_streams_without_cutting_them(members, watcher):
    """While the database loop trails, the mux reads no more of the Work streams (their events wait in
    the connections) instead of waiting in the hand-over; once there is room they go on where they
    were: no stream is cut, listed again or opened again."""
    until(watcher, lambda: watcher.counters.lists >= 2)
    mux = shared_mux()
    lists, reconnects, events = watcher.counters.lists, watcher.counters.reconnects, watcher.counters.events
    watcher.seen.limit = 1
    # held: no room (events alone could all come in one read before the mux looks at the room again)
    watcher.seen.add(Seen("cluster-01", "apps/v1", "Deployment", events=[]))
    conn = members["cluster-01"].connection()
    try:
        for replicas_now in (5, 6, 7):  # events the full backlog cannot take
            objects.patch_object(
                conn, "apps/v1", "Deployment", "nginx", {"spec": {"replicas": replicas_now}}, "default"
            )
        deadline = time.monotonic() + 20
        while not mux.paused():
            assert time.monotonic() < deadline, "the Work stream was not paused"
            time.sleep(0.05)
        taken = watcher.counters.events
        time.sleep(1.5)  # the mux looks at its streams meanwhile: a paused one is neither read nor cut
        assert watcher.counters.events == taken and mux.paused()
    finally:
        watcher.seen.limit = BACKLOG_OBJECTS
    until(watcher, lambda: replicas(members, "cluster-01") == 2)  # drained, resumed, repaired
    until(watcher, lambda: not mux.paused())
    assert watcher.counters.events > events
    assert (watcher.counters.lists, watcher.counters.reconnects) == (lists, reconnects)


def test_a_resync_waits_while_the_backlog_has_no_room(members):
    """A resync's listing would wait for room on an opener thread, holding its decoded copies: it is
    put off (the watch goes on) until the backlog has room again."""
    apply_yaml(NGINX)
    watcher = Watcher(resync=1.0, watch_seconds=30)
    try:
        until(watcher, lambda: watcher.counters.lists >= 2)
        watcher.seen.limit = 1
        watcher.seen.add(Seen("cluster-01", "apps/v1", "Deployment", events=[]))  # held: no room
        lists = watcher.counters.lists
        time.sleep(3)  # a resync is due every second meanwhile
        assert watcher.counters.lists == lists
        watcher.seen.limit = BACKLOG_OBJECTS
        until(watcher, lambda: watcher.counters.lists >= lists + 2)
    finally:
        watcher.close()


def test_a_listing_is_asked_for_only_once_the_backlog_has_room_and_a_few_at_once(members, watcher):
    """A listing asked for into a full backlog would wait holding every copy it decoded: it waits
    before asking, and at most LISTINGS_AT_ONCE wait past that point together."""
    until(watcher, lambda: watcher.counters.lists >= 2)
    reflector = next(iter(watcher.reflectors.values()))[0]
    watcher.seen.limit = 1
    watcher.seen.add(Seen("cluster-01", "apps/v1", "Deployment", events=[]))  # held: no room
    lists = watcher.counters.lists
    listing = threading.Thread(target=reflector._list, daemon=True)
    listing.start()
    time.sleep(1.0)
    assert listing.is_alive() and watcher.counters.lists == lists  # not asked for yet
    watcher.seen.limit = BACKLOG_OBJECTS
    watcher.drain(timeout=0)  # the held item is written: room again
    listing.join(10)
    assert not listing.is_alive() and watcher.counters.lists == lists + 1
    assert watcher.seen.listings._value == LISTINGS_AT_ONCE  # every slot given back


def test_status_read_by_watch_reaches_the_binding(members, watcher):
    until(watcher, lambda: watcher.counters.lists >= 2)
    binding = ResourceBinding.objects.get()
    until(
        watcher,
        lambda: {e.get("health") for e in ResourceBinding.objects.get().aggregated_status} == {"Healthy"},
    )
    assert {e["clusterName"] for e in ResourceBinding.objects.get(pk=binding.pk).aggregated_status} == {
        "cluster-01",
        "cluster-02",
    }


def test_a_member_that_goes_away_is_reconnected_and_410_gone_lists_again(members, sim, watcher):
    until(watcher, lambda: watcher.counters.lists >= 2)
    store = sim.cluster("cluster-02").store
    sim.control("cluster-02", "refuse")
    until(watcher, lambda: watcher.counters.reconnects >= 1)
    # While it is away: its copy is deleted, and more changes than the member's watch cache keeps.
    store.remove(DEPLOYMENTS, "default", "nginx")
    for i in range(520):  # unmanaged Deployments: not ours to watch, but they fill the watch cache
        meta = {"name": f"filler-{i % 5}", "namespace": "default", "uid": f"filler-{i % 5}"}
        store.put(DEPLOYMENTS, {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": {}})
    sim.control("cluster-02", "up")
    until(watcher, lambda: replicas(members, "cluster-02") == 2, seconds=40)
    assert watcher.counters.expired >= 1 and watcher.counters.lists >= 3


def test_an_event_the_watch_never_delivered_is_repaired_by_the_resync(members, sim):
    apply_yaml(NGINX)
    watcher = Watcher(resync=2.0, watch_seconds=30)
    try:
        until(watcher, lambda: watcher.counters.lists >= 2)
        store = sim.cluster("cluster-01").store
        live = store.get(DEPLOYMENTS, "default", "nginx")
        listed = watcher.counters.lists
        store.put_unseen(DEPLOYMENTS, {**live, "spec": {**live["spec"], "replicas": 9}})
        assert replicas(members, "cluster-01") == 9
        until(watcher, lambda: replicas(members, "cluster-01") == 2, seconds=15)
        # repaired by a later listing: no event told of the edit, and no 410 forced a listing
        assert watcher.counters.lists > listed and watcher.counters.expired == 0
    finally:
        watcher.close()


def test_a_batch_lost_to_a_database_error_lists_its_cluster_again_at_once(members, watcher, monkeypatch):
    until(watcher, lambda: watcher.counters.lists >= 2)
    listed = watcher.counters.lists
    conn = members["cluster-01"].connection()

    def failing(batch):
        raise DatabaseError("connection lost")

    monkeypatch.setattr(watcher, "_write", failing)
    objects.patch_object(conn, "apps/v1", "Deployment", "nginx", {"spec": {"replicas": 7}}, "default")
    deadline = time.monotonic() + 10
    with pytest.raises(DatabaseError):  # the event's batch is lost with its write
        while time.monotonic() < deadline:
            watcher.drain(timeout=0.2)
    monkeypatch.undo()
    # not at the resync 300 s on: the lost cluster's reflector lists again and the listing repairs it
    until(watcher, lambda: replicas(members, "cluster-01") == 2, seconds=20)
    assert watcher.counters.lists == listed + 1


def test_an_event_held_past_its_bound_lists_its_cluster_again(members, watcher, monkeypatch):
    until(watcher, lambda: watcher.counters.lists >= 2)
    listed = watcher.counters.lists
    work = Work.objects.get(cluster_name="cluster-01")
    live = member_object(members["cluster-01"], "apps/v1", "Deployment", "nginx")
    watcher.held[str(work.permanent_id)] = (time.monotonic() - 61.0, "MODIFIED", live)  # past HELD_FOR
    watcher.drain(timeout=0)
    assert not watcher.held
    until(watcher, lambda: watcher.counters.lists == listed + 1)


def seen_while_applying(members, watcher: Watcher, change=None) -> Work:
    """The copy's watch event reaches the watcher while its Work's apply is still on its way (the apply
    records the copy as its write returned it: no status yet)."""
    work = Work.objects.get(cluster_name="cluster-01")
    live = member_object(members["cluster-01"], "apps/v1", "Deployment", "nginx")
    assert live["status"]["availableReplicas"] == 2
    Work.objects.filter(pk=work.pk).update(applied=False, applied_hash="", status={})
    watcher.seen.put(Seen("cluster-01", "apps/v1", "Deployment", events=[("MODIFIED", change or live)]))
    watcher.drain(timeout=0)
    assert Work.objects.get(pk=work.pk).status == {} and watcher.held  # left to the apply, held
    Work.objects.filter(pk=work.pk).update(applied=True, applied_hash=work.desired_hash)  # recorded
    time.sleep(HELD_CHECK)
    watcher.drain(timeout=0)
    assert not watcher.held
    return Work.objects.get(pk=work.pk)


def test_a_copy_seen_while_its_work_was_applied_gets_its_status_once_the_apply_is_recorded(members):
    apply_yaml(NGINX)
    work = seen_while_applying(members, Watcher())
    assert work.status["availableReplicas"] == 2 and work.health == "Healthy"
    binding = ResourceBinding.objects.get()
    assert {e["clusterName"] for e in binding.aggregated_status if e.get("health") == "Healthy"} >= {
        "cluster-01"
    }


def test_a_held_copy_that_is_not_the_one_applied_is_dropped_not_taken_for_drift(members):
    apply_yaml(NGINX)
    live = member_object(members["cluster-01"], "apps/v1", "Deployment", "nginx")
    older = {**live, "spec": {**live["spec"], "replicas": 9}}
    work = seen_while_applying(members, Watcher(), change=older)
    assert work.status == {} and work.in_sync
    assert not DriftEvent.objects.exists()


def test_a_listing_asked_for_before_an_apply_was_recorded_does_not_judge_that_copy(members):
    """A listing waits in the queue while Works are applied; a copy written after it was asked for is
    missing from it, which is no drift (the watch after the listing reports the copy)."""
    apply_yaml(NGINX)
    watcher = Watcher()
    work = Work.objects.get(cluster_name="cluster-01")
    asked = work.applied_at - timedelta(seconds=1)  # the listing was asked for before the apply's record
    watcher.seen.put(Seen("cluster-01", "apps/v1", "Deployment", listing=[], listed_at=asked))
    watcher.drain(timeout=0)
    assert Work.objects.get(pk=work.pk).in_sync and not DriftEvent.objects.exists()
    # the same empty listing asked for after the record: the copy is missing, found and repaired
    later = work.applied_at + timedelta(seconds=1)
    watcher.seen.put(Seen("cluster-01", "apps/v1", "Deployment", listing=[], listed_at=later))
    watcher.drain(timeout=0)
    assert DriftEvent.objects.filter(work=work).exists()


def test_a_copy_that_moved_before_a_listing_its_apply_was_recorded_after_gets_the_listed_status(members):
    """The member wrote the copy and made it ready, then a listing was asked for, then the apply was
    recorded with the status its write returned (not ready yet): the watch after the listing reports
    nothing more, so the listing's copy gives the status once the apply is recorded."""
    apply_yaml(NGINX)
    watcher = Watcher()
    work = Work.objects.get(cluster_name="cluster-01")
    ready = member_object(members["cluster-01"], "apps/v1", "Deployment", "nginx")
    assert ready["status"].get("readyReplicas") == 2
    apply_time = {"replicas": 0, "generation": 1, "observedGeneration": 0, "readyReplicas": 0}
    Work.objects.filter(pk=work.pk).update(status=apply_time, health=UNHEALTHY)
    asked = work.applied_at - timedelta(seconds=1)
    watcher.seen.put(Seen("cluster-01", "apps/v1", "Deployment", listing=[ready], listed_at=asked))
    watcher.drain(timeout=0)
    deadline = time.monotonic() + 5
    while Work.objects.get(pk=work.pk).health != HEALTHY:  # held, then written at the next check
        assert time.monotonic() < deadline, "the listed copy's status was not written"
        time.sleep(HELD_CHECK)
        watcher.drain(timeout=0)
    assert Work.objects.get(pk=work.pk).status["readyReplicas"] == 2 and not DriftEvent.objects.exists()


def test_a_listing_older_than_the_copy_last_judged_does_not_write_its_status(members):
    """A listing that waited behind newer events holds an older copy: it judges nothing."""
    from scheduling.controllers import member_state

    apply_yaml(NGINX)
    judged = member_state.Judged()
    work = Work.objects.get(cluster_name="cluster-01")
    live = member_object(members["cluster-01"], "apps/v1", "Deployment", "nginx")
    member_state.observe_listing("cluster-01", "apps/v1", "Deployment", [live], judged=judged)
    assert Work.objects.get(pk=work.pk).health == HEALTHY
    version = int(live["metadata"]["resourceVersion"])
    stale = {
        **live,
        "metadata": {**live["metadata"], "resourceVersion": str(version - 1)},
        "status": {**live["status"], "readyReplicas": 0, "availableReplicas": 0},
    }
    seen = member_state.observe_listing("cluster-01", "apps/v1", "Deployment", [stale], judged=judged)
    assert seen.changed == set() and Work.objects.get(pk=work.pk).health == HEALTHY
    assert member_state.older("9", "10") and not member_state.older("10", "9")
    assert not member_state.older("abc", "10") and not member_state.older("", "10")


def ready_and_the_copy_before(members) -> tuple[Work, dict, dict]:
    """cluster-01's Work, its ready copy, and that copy as it was one write before (not ready yet)."""
    apply_yaml(NGINX)
    work = Work.objects.get(cluster_name="cluster-01")
    ready = member_object(members["cluster-01"], "apps/v1", "Deployment", "nginx")
    version = int(ready["metadata"]["resourceVersion"])
    before = {
        **ready,
        "metadata": {**ready["metadata"], "resourceVersion": str(version - 1)},
        "status": {"replicas": 0, "observedGeneration": 0, "readyReplicas": 0},
    }
    return work, ready, before


def test_a_listed_copy_held_beside_a_newer_event_of_one_batch_does_not_write_its_status(members):
    """A listing asked for before the apply's record holds the copy as it was then (not ready); the
    event that made it ready came after it, in the same batch: the event's status stays."""
    watcher = Watcher()
    work, ready, listed = ready_and_the_copy_before(members)
    asked = work.applied_at - timedelta(seconds=1)
    watcher.seen.put(Seen("cluster-01", "apps/v1", "Deployment", listing=[listed], listed_at=asked))
    watcher.seen.put(Seen("cluster-01", "apps/v1", "Deployment", events=[("MODIFIED", ready)]))
    assert watcher.drain(timeout=0) == 2  # one batch
    for _ in range(3):  # the held checks that follow
        time.sleep(HELD_CHECK)
        watcher.drain(timeout=0)
    assert not watcher.held
    work = Work.objects.get(pk=work.pk)
    assert work.health == HEALTHY and work.status["readyReplicas"] == 2


def test_an_event_older_than_the_listing_after_it_in_one_batch_does_not_write_its_status(members):
    """A batch judges its listings before its events: an event its stream sent before the listing was
    asked (the copy not ready yet) must not write over the listing's newer copy."""
    watcher = Watcher()
    work, ready, earlier = ready_and_the_copy_before(members)
    watcher.seen.put(Seen("cluster-01", "apps/v1", "Deployment", events=[("ADDED", earlier)]))
    asked = work.applied_at + timedelta(seconds=1)
    watcher.seen.put(Seen("cluster-01", "apps/v1", "Deployment", listing=[ready], listed_at=asked))
    assert watcher.drain(timeout=0) == 2  # one batch
    work = Work.objects.get(pk=work.pk)
    assert work.health == HEALTHY and work.status["readyReplicas"] == 2


def test_a_listing_leaves_a_work_whose_apply_is_on_its_way_to_that_apply(members):
    apply_yaml(NGINX)
    watcher = Watcher()
    work = Work.objects.get(cluster_name="cluster-01")
    Work.objects.filter(pk=work.pk).update(applied=False, applied_hash="")  # queued, not applied yet
    watcher.seen.put(Seen("cluster-01", "apps/v1", "Deployment", listing=[], listed_at=timezone.now()))
    watcher.drain(timeout=0)
    assert not DriftEvent.objects.exists()


def test_shards_split_the_clusters_between_them():
    names = [f"cluster-{i:03d}" for i in range(200)]
    shards = [Shard.parse(f"{i}/3") for i in range(3)]
    held = [[n for n in names if shard.holds(n)] for shard in shards]
    assert sorted(n for part in held for n in part) == names  # each cluster in exactly one shard
    assert all(40 < len(part) < 100 for part in held)
    for bad in ("3/3", "x", "1/0", "-1/2"):
        with pytest.raises(ValueError):
            Shard.parse(bad)


def test_a_resync_compares_again_only_the_copies_changed_since_they_were_last_judged(members, sim):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from scheduling.controllers import member_state
    from scheduling.karmada import names

    apply_yaml(NGINX)
    conn = members["cluster-01"].connection()
    judged = member_state.Judged()
    work = Work.objects.get(cluster_name="cluster-01")

    def listing() -> tuple[member_state.Observed, int]:
        items = list(
            objects.list_objects(conn, "apps/v1", "Deployment", label_selector=f"{names.MANAGED_LABEL}=true")
        )
        with CaptureQueriesContext(connection) as queries:
            seen = member_state.observe_listing("cluster-01", "apps/v1", "Deployment", items, judged=judged)
        return seen, len(queries.captured_queries)

    first, _ = listing()
    assert first.repair == [] and judged.size() == 1
    quiet, reads = listing()
    assert quiet.repair == [] and reads == 1  # the light rows only: no Work read with its manifest
    # The Work changed (a new desired hash, applied): its unchanged copy is compared again, and kept.
    Work.objects.filter(pk=work.pk).update(desired_hash="next", applied_hash="next")
    again, reads = listing()
    assert again.repair == [] and reads > 1 and judged.size() == 1
    # The copy changed without an event (a new resourceVersion): compared again, and repaired.
    store = sim.cluster("cluster-01").store
    live = store.get(DEPLOYMENTS, "default", "nginx")
    store.put_unseen(DEPLOYMENTS, {**live, "spec": {**live["spec"], "replicas": 9}})
    edited, _ = listing()
    assert edited.repair == [work.pk] and judged.size() == 0


SETTINGS = """
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: default
data:
  level: debug
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: settings-propagation
  namespace: default
spec:
  resourceSelectors:
  - apiVersion: v1
    kind: ConfigMap
    name: settings
  placement:
    clusterAffinity:
      clusterNames:
      - cluster-01
"""


def test_a_new_kind_is_watched_on_the_next_look_and_the_kinds_are_not_read_again_while_no_work_is_added(
    members, watcher
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    watcher.refresh_reflectors()
    assert {key[2] for key in watcher.reflectors} == {"Deployment"}
    with CaptureQueriesContext(connection) as looks:
        watcher.refresh_reflectors()
    assert not [q for q in looks.captured_queries if "DISTINCT" in q["sql"].upper()]
    apply_yaml(SETTINGS)
    with CaptureQueriesContext(connection) as looks:
        watcher.refresh_reflectors()
    assert ("cluster-01", "v1", "ConfigMap") in watcher.reflectors
    assert ("cluster-02", "v1", "ConfigMap") not in watcher.reflectors
    # only the Works created since the last read were read for their kinds
    reads = [q["sql"] for q in looks.captured_queries if "DISTINCT" in q["sql"].upper()]
    assert len(reads) == 1 and '"scheduling_work"."id" >' in reads[0]
    # a kind whose last Work is gone is dropped at the next full read (KINDS_AGAIN after the last)
    Work.objects.filter(manifest__kind="ConfigMap").delete()
    newest, clusters, _ = watcher._kinds_read_at
    watcher._kinds_read_at = (newest, clusters, time.monotonic() - KINDS_AGAIN)
    watcher.refresh_reflectors()
    assert {key[2] for key in watcher.reflectors} == {"Deployment"}


def test_the_reconcile_reads_back_only_the_clusters_no_watcher_confirms(members, sim):
    from clusters.models import Cluster, ClusterInventory
    from scheduling.controllers import reconcile as reconciling

    apply_yaml(NGINX)
    store = sim.cluster("cluster-01").store
    live = store.get(DEPLOYMENTS, "default", "nginx")
    store.put_unseen(DEPLOYMENTS, {**live, "spec": {**live["spec"], "replicas": 9}})  # no event told
    work = Work.objects.get(cluster_name="cluster-01")
    now = timezone.now()
    ClusterInventory.objects.create(
        cluster=Cluster.objects.get(name="cluster-01"), changed_at=now, confirmed_at=now
    )
    # a running watcher confirms the cluster: its own resync lists the copy, the pass leaves it to it
    assert work.pk not in reconciling.reconcile().apply
    assert replicas(members, "cluster-01") == 9
    # the watcher stopped confirming (gone, behind, a watch broken): the pass reads the copy back
    ClusterInventory.objects.update(confirmed_at=now - timedelta(minutes=1))
    assert work.pk in reconciling.reconcile().apply


def test_an_event_that_moved_only_the_status_is_judged_without_the_manifest_and_any_other_in_full(members):
    import copy as copies

    from django.db import connection
    from django.db.models import F
    from django.test.utils import CaptureQueriesContext

    from scheduling.controllers import member_state
    from scheduling.karmada import names

    apply_yaml(NGINX)
    conn = members["cluster-01"].connection()
    judged = member_state.Judged()
    work = Work.objects.get(cluster_name="cluster-01")

    def judged_in_step() -> dict:
        Work.objects.filter(pk=work.pk).update(applied=True, applied_hash=F("desired_hash"))
        items = list(
            objects.list_objects(conn, "apps/v1", "Deployment", label_selector=f"{names.MANAGED_LABEL}=true")
        )
        assert (
            member_state.observe_listing("cluster-01", "apps/v1", "Deployment", items, judged=judged).repair
            == []
        )
        assert judged.size() == 1
        return copies.deepcopy(items[0])

    def event(obj: dict) -> tuple[member_state.Observed, list[str]]:
        with CaptureQueriesContext(connection) as queries:
            seen = member_state.observe_cluster_events({"cluster-01": [("MODIFIED", obj)]}, judged=judged)
        return seen, [q["sql"] for q in queries.captured_queries]

    live = judged_in_step()
    live["status"] = {**live.get("status", {}), "readyReplicas": 1, "availableReplicas": 1}
    live["metadata"]["resourceVersion"] = "999999"
    seen, sql = event(live)
    assert seen.repair == [] and seen.changed == {work.binding_id}
    assert not any('"manifest"' in statement for statement in sql if statement.startswith("SELECT"))
    assert Work.objects.get(pk=work.pk).status["readyReplicas"] == 1
    assert judged.holds(member_state.kind_key("cluster-01", live), work.pk, "999999", work.desired_hash)

    # A label edited by hand (no new generation), a spec edited (a new generation), a copy deleted and
    # created again by hand (a new uid, the same generation): each compared in full, and repaired.
    labels = judged_in_step()
    labels["metadata"]["labels"].pop("app", None)
    labels["metadata"]["labels"]["edited"] = "by-hand"
    spec = judged_in_step()
    spec["spec"]["replicas"] = 9
    spec["metadata"]["generation"] += 1
    again = judged_in_step()
    again["spec"]["replicas"] = 9
    again["metadata"]["uid"] = "another"
    for index, edited in enumerate((labels, spec, again)):
        judged_in_step()
        edited["metadata"]["resourceVersion"] = str(1_000_000 + index)  # each edit a newer write
        seen, sql = event(edited)
        assert seen.repair == [work.pk], edited["metadata"]
        assert any('"manifest"' in statement for statement in sql if statement.startswith("SELECT"))


def test_the_spec_mark_is_none_for_copies_without_a_generation_and_moves_with_labels_annotations_uid():
    from scheduling.controllers.member_state import spec_mark

    base = {
        "kind": "Deployment",
        "metadata": {"uid": "u1", "generation": 2, "labels": {"a": "1"}},
        "spec": {},
    }
    assert spec_mark(base) == spec_mark({**base, "status": {"replicas": 3}})
    for other in (
        {**base, "metadata": {**base["metadata"], "labels": {"a": "2"}}},
        {**base, "metadata": {**base["metadata"], "annotations": {"x": "y"}}},
        {**base, "metadata": {**base["metadata"], "uid": "u2"}},
        {**base, "metadata": {**base["metadata"], "generation": 3}},
        {**base, "data": {"k": "v"}},
    ):
        assert spec_mark(other) != spec_mark(base)
    assert spec_mark({"kind": "ConfigMap", "metadata": {"uid": "u1"}, "data": {"k": "v"}}) is None
    assert spec_mark({**base, "metadata": {**base["metadata"], "labels": {"a": ["unhashable"]}}}) is None
