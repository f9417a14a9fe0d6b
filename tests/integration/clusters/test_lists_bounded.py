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
