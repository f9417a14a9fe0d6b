"""The policy list is a page of policies, each with its claim count and a few workloads, in a bounded
number of queries however many policies and workloads there are."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from scheduling.models import PropagationPolicy, ResourceTemplate

pytestmark = pytest.mark.django_db


def add_policies(first, count, claimed_each):
    for i in range(first, first + count):
        policy = PropagationPolicy.objects.create(
            kind="PropagationPolicy", namespace="default", name=f"p-{i:03d}", spec={"placement": {}}
        )
        ResourceTemplate.objects.bulk_create(
            ResourceTemplate(
                api_version="apps/v1",
                api_group="apps",
                kind="Deployment",
                namespace="default",
                name=f"app-{i:03d}-{j:02d}",
                manifest={},
                policy=policy,
            )
            for j in range(claimed_each)
        )


def test_ten_times_the_policies_and_workloads_take_no_more_queries(
    client, viewer, django_assert_max_num_queries
):
    client.force_login(viewer)
    url = reverse("scheduling:policies")
    add_policies(0, 6, claimed_each=2)
    with CaptureQueriesContext(connection) as small:
        assert client.get(url).status_code == 200
    add_policies(6, 54, claimed_each=20)  # 60 policies, 1,092 workloads
    with django_assert_max_num_queries(len(small.captured_queries)):
        body = client.get(url).content.decode()
    assert "Page 1 of 2" in body
    assert body.count("<tr><td>") == 50
    assert "app-010-04" in body and "app-010-05" not in body  # five named, then a link to all
    assert "all 20" in body
    assert "p-059" in client.get(url, {"page": "2"}).content.decode()
