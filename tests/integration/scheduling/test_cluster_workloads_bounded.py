"""The workloads on one cluster read only the columns a row shows, in the same queries for 3 workloads
as for 30, and their totals are the ones computed from the Works and bindings themselves."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from scheduling.models import ResourceBinding, Work
from tests.integration.scheduling.test_cluster_workloads import work, workload
from tests.support.clusters import make_cluster

pytestmark = pytest.mark.django_db
FRAGMENT = {"HX-Request": "true", "HX-Target": "cluster-workloads"}


def computed(cluster_name):
    """(workloads, replicas desired, ready) from whole rows, as the page counted them before."""
    works = {w.binding_id: w for w in Work.objects.filter(cluster_name=cluster_name)}
    bindings = [
        b for b in ResourceBinding.objects.all() if b.pk in works or cluster_name in b.target_replicas()
    ]
    desired = sum(b.target_replicas().get(cluster_name, 0) for b in bindings if b.replicas)
    ready = sum(int((works[b.pk].status or {}).get("readyReplicas") or 0) for b in bindings if b.pk in works)
    return len(bindings), desired, ready


def shown(client, cluster_name):
    page = client.get(reverse("scheduling:cluster_workloads", args=[cluster_name]), headers=FRAGMENT)
    context = page.context
    return context["placements_total"], context["placements_desired"], context["placements_ready"]


def test_the_totals_match_the_works_after_applies_failures_and_deletions(client, viewer):
    client.force_login(viewer)
    make_cluster("beijing")
    web = workload("web", {"beijing": 8, "shanghai": 3})
    applied = work(web, "beijing", ready=7)
    work(web, "shanghai", ready=3)
    workload("api", {"beijing": 2})  # scheduled here, no Work yet
    config = workload("settings", {"beijing": 0}, replicas=0, kind="ConfigMap")
    work(config, "beijing")
    assert shown(client, "beijing") == computed("beijing") == (3, 10, 7)

    Work.objects.filter(pk=applied.pk).update(status={"readyReplicas": 8})  # the member reports more
    failed = work(workload("batch", {"beijing": 4}), "beijing", applied=False, health="Unhealthy")
    assert shown(client, "beijing") == computed("beijing") == (4, 14, 8)

    failed.delete()  # the copy is gone; its binding still targets the cluster
    ResourceBinding.objects.filter(pk=web.pk).update(clusters=[{"name": "shanghai", "replicas": 3}])
    assert shown(client, "beijing") == computed("beijing") == (4, 6, 8)  # web's copy is leaving

    Work.objects.filter(binding=web, cluster_name="beijing").delete()
    assert shown(client, "beijing") == computed("beijing") == (3, 6, 0)


def test_ten_times_the_workloads_take_no_more_queries_and_no_manifest(
    client, viewer, django_assert_max_num_queries
):
    client.force_login(viewer)
    make_cluster("beijing")

    def grow(start, count):
        for index in range(start, start + count):
            binding = workload(f"w{index:03d}", {"beijing": 2, "shanghai": 1})
            work(binding, "beijing", ready=2)
            work(binding, "shanghai", ready=1)

    grow(0, 3)
    url = reverse("scheduling:cluster_workloads", args=["beijing"])
    with CaptureQueriesContext(connection) as few:
        client.get(url, headers=FRAGMENT)
    grow(3, 27)
    with django_assert_max_num_queries(len(few.captured_queries)) as many:
        body = client.get(url, headers=FRAGMENT).content.decode()
    assert body.count("data-workload=") == 30
    read = " ".join(q["sql"] for q in many.captured_queries)
    assert '"manifest"' not in read and '"aggregated_status"' not in read
    # The Work's status is never read whole, only its readyReplicas taken out in SQL.
    assert not re.search(r'"scheduling_work"\."status"(, "| FROM)', read)
