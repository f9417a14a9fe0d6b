"""Member status found by the watcher is written for a whole batch of Works in one statement."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from scheduling.controllers import member_state
from scheduling.controllers.status_writes import StatusWrites
from scheduling.models import HEALTHY, UNHEALTHY, Work
from scheduling.services import apply_yaml
from tests.support.members import member_object

NGINX = (Path(__file__).parent / "examples" / "nginx-cluster-names.yaml").read_text()


def work_updates(queries: CaptureQueriesContext) -> int:
    table = Work._meta.db_table
    return sum(1 for q in queries.captured_queries if f'UPDATE "{table}"' in q["sql"])


def copy_with(members, cluster: str, available: int) -> dict:
    live = member_object(members[cluster], "apps/v1", "Deployment", "nginx")
    status = {**live.get("status", {}), "replicas": 2, "availableReplicas": available}
    status["readyReplicas"] = status["updatedReplicas"] = available
    return {**live, "status": status}


def test_the_status_events_of_a_batch_are_written_in_one_statement(members):
    apply_yaml(NGINX)
    clusters = sorted(Work.objects.values_list("cluster_name", flat=True))
    events = {cluster: [("MODIFIED", copy_with(members, cluster, 1))] for cluster in clusters}
    with CaptureQueriesContext(connection) as queries:
        seen = member_state.observe_cluster_events(events)
    works = list(Work.objects.order_by("cluster_name"))
    assert seen.repair == [] and seen.changed == {works[0].binding_id}
    assert len(works) == 2 and [w.status["availableReplicas"] for w in works] == [1, 1]
    assert work_updates(queries) == (1 if connection.vendor == "postgresql" else len(works))
    # the same status again writes nothing
    with CaptureQueriesContext(connection) as queries:
        again = member_state.observe_cluster_events(events)
    assert again.changed == set() and work_updates(queries) == 0


def test_status_writes_keep_the_last_status_given_per_work_and_write_nothing_else(members):
    apply_yaml(NGINX)
    first, second = Work.objects.order_by("pk")
    before = (second.status, second.health, second.applied_hash)
    now = timezone.now()
    writes = StatusWrites()
    first.status, first.health, first.status_at, first.unhealthy_since = {"a": 1}, HEALTHY, now, None
    writes.add(first)
    unhealthy_since = now - timedelta(minutes=3)
    first.status, first.health, first.unhealthy_since = {"a": 2}, UNHEALTHY, unhealthy_since
    writes.add(first)
    assert len(writes) == 1
    assert writes.flush() == 1 and len(writes) == 0
    stored = Work.objects.get(pk=first.pk)
    assert (stored.status, stored.health, stored.status_at) == ({"a": 2}, UNHEALTHY, now)
    assert stored.unhealthy_since == unhealthy_since and stored.in_sync
    other = Work.objects.get(pk=second.pk)
    assert (other.status, other.health, other.applied_hash) == before
    assert StatusWrites().flush() == 0


def test_held_copies_whose_works_are_still_applying_are_looked_at_without_reading_manifests(members):
    apply_yaml(NGINX)
    first, second = Work.objects.order_by("pk")
    Work.objects.filter(pk__in=[first.pk, second.pk]).update(applied=False, applied_hash="", status={})
    held = {
        str(work.permanent_id): ("MODIFIED", copy_with(members, work.cluster_name, 2))
        for work in (first, second)
    }
    with CaptureQueriesContext(connection) as queries:
        still = member_state.observe_applied(held)
    assert set(still.waiting) == set(held) and still.changed == set()
    assert len(queries.captured_queries) == 1 and "manifest" not in queries.captured_queries[0]["sql"]
    # one apply recorded: that Work alone is read whole and gets its held copy's status
    Work.objects.filter(pk=first.pk).update(applied=True, applied_hash=first.desired_hash)
    seen = member_state.observe_applied(held)
    assert set(seen.waiting) == {str(second.permanent_id)} and seen.changed == {first.binding_id}
    assert Work.objects.get(pk=first.pk).status["availableReplicas"] == 2
    assert Work.objects.get(pk=second.pk).status == {}
