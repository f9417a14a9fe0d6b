"""The Alerts page and the network check in Chromium: a new firing alert appears without a reload,
an operator silences it from its row and expires the silence, the cluster page loads its network check."""

import pytest

from clusters.models import Cluster
from observability import engine

pytestmark = [
    pytest.mark.browser,
    pytest.mark.xdist_group("browser"),
    pytest.mark.django_db(transaction=True),
]


def seed(name, ready="True", pod_cidrs=(), service_cidrs=()):
    return Cluster.objects.create(
        name=name,
        api_endpoint="https://10.0.0.1:6443",
        ready=ready,
        pod_cidrs=list(pod_cidrs),
        service_cidrs=list(service_cidrs),
    )


def test_a_firing_alert_appears_live_and_an_operator_silences_it_then_expires_the_silence(
    signed_in_page, live_server, screenshot, settings
):
    settings.ALERT_CLUSTER_UNHEALTHY_FOR = 0
    beijing = seed("beijing")
    page = signed_in_page("operator")
    page.goto(f"{live_server.url}/alerts/")
    assert "Nothing is firing." in page.inner_text("#alert-lists")

    beijing.ready = "False"
    beijing.save()
    engine.evaluate()
    # No reload: the list refreshes itself every few seconds.
    page.wait_for_selector("#firing-alerts >> text=member_cluster=beijing", timeout=12_000)
    assert "Cluster beijing is not Ready" in page.inner_text("#firing-alerts")
    screenshot(page, "alerts-firing")

    page.click("#firing-alerts >> text=Silence")
    page.wait_for_load_state()
    matchers = page.input_value("#id_matchers")
    assert matchers == "alertname=ClusterUnhealthy, member_cluster=beijing"
    page.fill("#id_comment", "replacing the control plane")
    page.click("#new-silence button[type=submit]")
    page.wait_for_selector("#silences >> text=replacing the control plane")
    assert "alertname=ClusterUnhealthy" in page.inner_text("#silences")
    assert "silenced" in page.inner_text("#firing-alerts")
    screenshot(page, "alerts-silenced")

    page.click("#silences >> text=Expire now")
    page.wait_for_load_state()
    page.wait_for_selector("text=No active silences.")
    assert "silenced" not in page.inner_text("#firing-alerts")


def test_a_viewer_sees_no_silence_controls(signed_in_page, live_server, settings):
    settings.ALERT_CLUSTER_UNHEALTHY_FOR = 0
    seed("beijing", ready="False")
    engine.evaluate()
    page = signed_in_page("viewer")
    page.goto(f"{live_server.url}/alerts/")
    assert page.locator("#firing-alerts tbody tr").count() == 1
    assert page.locator("#new-silence").count() == 0
    assert page.locator("#firing-alerts >> text=Silence").count() == 0


def test_the_cluster_page_loads_its_network_check_and_the_network_page_lists_the_pair(
    signed_in_page, live_server, screenshot
):
    seed("beijing", pod_cidrs=["10.1.0.0/16"], service_cidrs=["10.96.0.0/16"])
    seed("shanghai", pod_cidrs=["10.1.0.0/16"], service_cidrs=["10.97.0.0/16"])
    page = signed_in_page("viewer")
    page.goto(f"{live_server.url}/clusters/c/beijing/")
    check = page.wait_for_selector("[data-testid=network-check]")
    assert "Flat networking is not possible" in check.inner_text()
    assert "of shanghai" in check.inner_text()
    screenshot(page, "cluster-network-check")
    page.click("text=Network check of all clusters")
    page.wait_for_selector("#network-overlaps")
    assert page.locator("#network-overlaps tbody tr").count() == 1
    screenshot(page, "network-check")
