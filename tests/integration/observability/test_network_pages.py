"""The network page, the per-cluster panel and the API show the overlapping pairs and what they mean."""

import pytest
from django.urls import reverse
from django.utils import translation

from tests.support.api import problems


@pytest.fixture
def fleet(make_cluster):
    make_cluster("beijing", pod_cidrs=["10.1.0.0/16"], service_cidrs=["10.96.0.0/16"])
    make_cluster("shanghai", pod_cidrs=["10.1.0.0/16"], service_cidrs=["10.97.0.0/16"])
    make_cluster("guangzhou", pod_cidrs=["10.3.0.0/16"], service_cidrs=["10.98.0.0/16"])


@pytest.mark.django_db
def test_the_network_page_lists_every_cluster_and_the_overlapping_pair(client, viewer, fleet):
    client.force_login(viewer)
    page = client.get(reverse("observability:network")).content.decode()
    overlaps = page.split('id="network-overlaps"')[1].split("</table>")[0]
    assert "beijing" in overlaps and "shanghai" in overlaps and "guangzhou" not in overlaps
    assert "direct pod-to-pod routing is ambiguous" in overlaps
    clusters = page.split('id="network-clusters"')[1].split("</table>")[0]
    assert clusters.count("<tr>") == 4  # the header and three clusters
    assert "Flat networking is not possible (overlapping pairs of ranges: 1)" in page


@pytest.mark.django_db
def test_the_panel_of_one_cluster_shows_its_ranges_and_only_its_overlaps(client, viewer, fleet):
    client.force_login(viewer)
    beijing = client.get(reverse("observability:network-panel", args=["beijing"])).content.decode()
    assert "10.1.0.0/16" in beijing and "of shanghai" in beijing
    assert "<html" not in beijing
    guangzhou = client.get(reverse("observability:network-panel", args=["guangzhou"])).content.decode()
    assert "No range of guangzhou overlaps another cluster" in guangzhou
    assert client.get(reverse("observability:network-panel", args=["nowhere"])).status_code == 404


@pytest.mark.django_db
def test_the_api_returns_the_pairs_and_narrows_to_one_cluster(api_as, viewer, fleet):
    client = api_as(viewer)
    fleet_data = client.get("/api/v1/network-check/").json()
    assert fleet_data["flat_networking_possible"] is False
    [overlap] = fleet_data["overlaps"]
    assert (overlap["cluster_a"], overlap["cluster_b"], overlap["shared"]) == (
        "beijing",
        "shanghai",
        "10.1.0.0/16",
    )
    one = client.get("/api/v1/network-check/", {"cluster": "guangzhou"}).json()
    assert one["flat_networking_possible"] is True and one["overlaps"] == []
    missing = client.get("/api/v1/network-check/", {"cluster": "nowhere"})
    assert missing.status_code == 404 and "cluster" in problems(missing)


@pytest.mark.django_db
def test_the_network_page_speaks_chinese(client, viewer, fleet):
    client.force_login(viewer)
    try:
        page = client.get(reverse("observability:network"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    finally:
        translation.activate("en")  # the request left Chinese active in this thread
    assert "扁平网络" in page
