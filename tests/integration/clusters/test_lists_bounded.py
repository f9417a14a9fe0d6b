"""The cluster list, the fleet tiles and the conventions page take the same queries for 6 clusters as for
60, and none reads the collected status document or the credentials of every cluster."""

import re

import pytest
from django.urls import reverse
from django.utils import timezone

from clusters.models import ClusterEvent
from tests.support.clusters import make_fleet

pytestmark = pytest.mark.django_db
STATUS = {"nodes": [{"name": f"node-{i}", "ready": True} for i in range(50)], "apiEnablements": []}


def grow(start, count):
    for cluster in make_fleet(count, prefix=f"c{start}", labels={"env": "prod"}, status=STATUS):
        ClusterEvent.objects.create(
            cluster=cluster, at=timezone.now(), reason="Ready", message="", ready="True"
        )


@pytest.mark.parametrize(
    "url",
    [
        reverse("clusters:list"),
        reverse("clusters:list") + "?selector=env%3Dprod&sort=-cpu",
        reverse("clusters:fleet"),
        reverse("clusters:fleet") + "?selector=env%3Dprod&sort=name",
        reverse("clusters:conventions"),
    ],
)
def test_ten_times_the_clusters_take_no_more_queries_nor_their_status(
    client, viewer, url, django_assert_max_num_queries
):
    client.force_login(viewer)
    grow(0, 6)
    with django_assert_max_num_queries(100) as few:
        assert client.get(url).status_code == 200
    grow(1, 54)
    with django_assert_max_num_queries(len(few.captured_queries)) as many:
        body = client.get(url).content.decode()
    assert "c1-" in body or "conventions" in url
    read = " ".join(q["sql"] for q in many.captured_queries)
    assert not re.search(r'"clusters_cluster"\."(status|credentials)"', read)


def test_the_fleet_orders_worst_first_as_the_clusters_themselves_rank(client, viewer):
    from clusters.models import Cluster, ReadyState
    from clusters.summary import severity
    from tests.support.clusters import make_cluster

    make_cluster("b-fine")
    make_cluster("a-fine")
    make_cluster("down", ready=ReadyState.FALSE)
    make_cluster("unknown", ready=ReadyState.UNKNOWN)
    make_cluster("flapping", observed=ReadyState.FALSE)
    make_cluster("tainted", taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}])
    make_cluster("nodes", nodes_total=3, nodes_ready=2)
    make_cluster("hot", cpu_allocatable=1000, cpu_allocated=950)
    make_cluster("warm-memory", memory_allocatable=100, memory_allocated=89)
    client.force_login(viewer)
    body = client.get(reverse("clusters:fleet")).content.decode()
    shown = re.findall(r'data-cluster="([^"]+)"', body)
    ranked = [c.name for c in sorted(Cluster.objects.all(), key=lambda c: (-severity(c), c.name))]
    assert shown[: len(ranked)] == ranked
    assert ranked[:3] == ["down", "unknown", "flapping"] and ranked[-2:] == ["b-fine", "warm-memory"]
