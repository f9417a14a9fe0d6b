"""/api/v1/ lists are pages: a limit above 500 is served as 500; ten times the rows cost no more queries."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from clusters.models import Cluster

pytestmark = pytest.mark.django_db


def add_clusters(first, count):
    Cluster.objects.bulk_create(
        Cluster(name=f"member-{i:04d}", api_endpoint=f"https://member-{i:04d}.example:6443")
        for i in range(first, first + count)
    )


def test_a_limit_above_the_maximum_is_served_as_the_maximum(viewer, api_as):
    add_clusters(0, 520)
    body = api_as(viewer).get("/api/v1/clusters/", {"limit": 100000}).json()
    assert body["count"] == 520
    assert len(body["results"]) == 500
    assert body["next"] is not None


def test_ten_times_the_clusters_cost_no_more_queries(viewer, api_as, django_assert_max_num_queries):
    client = api_as(viewer)
    add_clusters(0, 12)
    with CaptureQueriesContext(connection) as small:
        assert client.get("/api/v1/clusters/", {"limit": 500}).status_code == 200
    add_clusters(12, 108)
    with django_assert_max_num_queries(len(small.captured_queries)):
        body = client.get("/api/v1/clusters/", {"limit": 500}).json()
    assert len(body["results"]) == 120
