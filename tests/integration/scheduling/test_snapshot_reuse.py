"""load_snapshots parses a cluster again only when a column its snapshot is made from changed."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from clusters.models import Cluster, ReadyState
from scheduling.controllers.planner_inputs import load_snapshots
from tests.support.clusters import fleet_names, schedulable_status


def fleet(make_cluster, n: int = 3) -> list[Cluster]:
    return [
        make_cluster(name, labels={"fleet": "main"}, status=schedulable_status()) for name in fleet_names(n)
    ]


# Reuse rests on digests PostgreSQL computes; SQLite, the demo's database, parses every cluster each time.
reuses_parsed = pytest.mark.skipif(connection.vendor != "postgresql", reason="snapshot reuse is PostgreSQL's")


def by_name() -> dict:
    return {snapshot.name: snapshot for snapshot in load_snapshots()}


@reuses_parsed
def test_unchanged_clusters_are_not_read_again(make_cluster):
    fleet(make_cluster)
    first = by_name()
    with CaptureQueriesContext(connection) as queries:
        again = by_name()
    assert again == first and all(again[name] is first[name] for name in first)
    assert len(queries.captured_queries) == 1  # the digests only
    assert '"status"' not in queries.captured_queries[0]["sql"].split("md5")[0]


def test_a_change_to_what_a_snapshot_reads_is_seen_whatever_wrote_it(make_cluster):
    clusters = fleet(make_cluster)
    first = by_name()
    # statements that bypass save() (no auto_now, no resource version) change the digest all the same
    Cluster.objects.filter(pk=clusters[0].pk).update(labels={"fleet": "other"})
    Cluster.objects.filter(pk=clusters[1].pk).update(ready=ReadyState.FALSE)
    Cluster.objects.filter(pk=clusters[2].pk).update(status=schedulable_status(cpu="2"))
    after = by_name()
    names = fleet_names(3)
    assert after[names[0]].labels == {"fleet": "other"}
    assert after[names[1]].ready == "False"
    assert after[names[2]] != first[names[2]]
    assert all(after[name] is not first[name] for name in names)


@reuses_parsed
def test_columns_no_snapshot_reads_do_not_make_a_cluster_parsed_again(make_cluster):
    clusters = fleet(make_cluster)
    first = by_name()
    Cluster.objects.filter(pk=clusters[0].pk).update(probe_latency_ms=12.5, nodes_ready=4)
    assert by_name()[clusters[0].name] is first[clusters[0].name]


def test_clusters_that_left_or_joined_or_hold_a_malformed_status(make_cluster):
    clusters = fleet(make_cluster)
    by_name()
    clusters[0].delete()
    make_cluster("late", status=schedulable_status())
    Cluster.objects.filter(pk=clusters[1].pk).update(status={"apiEnablements": "not a list"})
    assert sorted(by_name()) == [clusters[2].name, "late"]
    Cluster.objects.filter(pk=clusters[1].pk).update(status=schedulable_status())
    assert sorted(by_name()) == [clusters[1].name, clusters[2].name, "late"]
