"""The workload lists (page, htmx fragment, policy page, API) read the stored counts: ten times the
workloads and clusters take no more queries, and a row shows the same numbers as the Works give."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scheduling.models import PropagationPolicy, ResourceBinding
from tests.support.templates import deployment_templates

pytestmark = pytest.mark.django_db


def add_workloads(policy: PropagationPolicy, first: int, count: int, clusters: int) -> None:
    """Deployments placed on `clusters` clusters, each ready on all but the last (which is Unhealthy)."""
    names = [f"member-{c:03d}" for c in range(clusters)]
    templates = deployment_templates(policy, (f"web-{i:03d}" for i in range(first, first + count)))
    bindings = []
    for template in templates:
        binding = ResourceBinding(
            namespace="default",
            name=f"{template.name}-deployment",
            template=template,
            policy=policy,
            replicas=2,
            clusters=[{"name": n, "replicas": 2} for n in names],
            aggregated_status=[
                {
                    "clusterName": n,
                    "applied": True,
                    "health": "Unhealthy" if n == names[-1] else "Healthy",
                    "status": {"readyReplicas": 0 if n == names[-1] else 2},
                }
                for n in names
            ],
        )
        binding.refresh_counts()  # bulk_create skips save(), which keeps the counts
        bindings.append(binding)
    ResourceBinding.objects.bulk_create(bindings)


@pytest.fixture
def policy() -> PropagationPolicy:
    return PropagationPolicy.objects.create(
        kind="PropagationPolicy", namespace="default", name="everywhere", spec={"placement": {}}
    )


def queries(client, url: str, **headers: str) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url, **headers)
    assert response.status_code == 200, url
    return len(captured.captured_queries), response.content.decode()


PAGES = [
    "/workloads/",
    "/workloads/?q=web&sort=-name",
    "/workloads/?page=2",
    "/policies/{policy}/",
    "/policies/",
]


def test_ten_times_the_workloads_and_clusters_take_no_more_queries_on_the_pages(
    client, viewer, policy, django_assert_max_num_queries
):
    client.force_login(viewer)
    add_workloads(policy, 0, 6, clusters=4)
    small = {url: queries(client, url.format(policy=policy.pk))[0] for url in PAGES}
    fragment, _ = queries(client, "/workloads/", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="workload-table")
    add_workloads(policy, 6, 54, clusters=40)  # 60 workloads, 40 clusters each for the new ones
    for url, count in small.items():
        with django_assert_max_num_queries(count):
            body = client.get(url.format(policy=policy.pk)).content.decode()
        assert "Page 1 of 2" in body or "page=2" in url or url == "/policies/"
    with django_assert_max_num_queries(fragment):
        client.get("/workloads/", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="workload-table")
    last = client.get("/workloads/?q=web-059").content.decode()
    assert "40 clusters" in last and "39 healthy" in last and "1 unhealthy" in last
    assert "78 / 80" in last


def test_ten_times_the_workloads_and_clusters_take_no_more_queries_in_the_api(
    api_as, viewer, policy, django_assert_max_num_queries
):
    client = api_as(viewer)
    add_workloads(policy, 0, 6, clusters=4)
    with CaptureQueriesContext(connection) as small:
        assert client.get("/api/v1/workloads/", {"limit": 500}).status_code == 200
    with CaptureQueriesContext(connection) as small_policies:
        assert client.get("/api/v1/policies/").status_code == 200
    add_workloads(policy, 6, 54, clusters=40)
    with django_assert_max_num_queries(len(small.captured_queries)):
        rows = client.get("/api/v1/workloads/", {"limit": 500}).json()["results"]
    with django_assert_max_num_queries(len(small_policies.captured_queries)):
        row = client.get("/api/v1/policies/").json()["results"][0]
    # a page of policies counts what each claims and says where to list them, never names them all
    assert row["workloadCount"] == 60 and "workloads" not in row
    claimed = client.get(row["workloadsUrl"], {"limit": 500}).json()
    assert claimed["count"] == 60 and {w["name"] for w in claimed["results"]} == {w["name"] for w in rows}
    assert len(client.get(f"/api/v1/policies/{row['id']}/").json()["workloads"]) == 60
    assert len(rows) == 60
    assert rows[-1]["summary"] == {
        "clusters": 40,
        "applied": 40,
        "healthy": 39,
        "unhealthy": 1,
        "unknown": 0,
        "failed": 0,
        "desired": 80,
        "ready": 78,
    }
