"""The cluster list, health panel, fleet and conventions pages in Chromium, light and dark, in English
and Chinese: why a cluster is unhealthy under its row, numbers that lead to their source, and the
workloads placed on a cluster with their replicas."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from clusters.collector import collect_cluster
from clusters.models import Cluster, LabelConvention
from membersim import ClusterSpec
from scheduling.models import ResourceBinding, ResourceTemplate, Work

pytestmark = [
    pytest.mark.browser,
    pytest.mark.xdist_group("browser"),
    pytest.mark.django_db(transaction=True),
]


def place(name, targets, ready):
    template = ResourceTemplate.objects.create(
        api_version="apps/v1",
        api_group="apps",
        kind="Deployment",
        namespace="shop",
        name=name,
        manifest={
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name, "namespace": "shop"},
        },
    )
    binding = ResourceBinding.objects.create(
        namespace="shop",
        name=f"{name}-deployment",
        template=template,
        replicas=sum(targets.values()),
        clusters=[{"name": c, "replicas": n} for c, n in targets.items()],
    )
    for cluster, count in ready.items():
        Work.objects.create(
            binding=binding,
            cluster_name=cluster,
            namespace=f"karmada-es-{cluster}",
            name=f"{name}-{cluster}",
            manifest={},
            desired_hash="h",
            applied_hash="h",
            applied=True,
            health="Healthy" if count == targets.get(cluster) else "Unhealthy",
            status={"readyReplicas": count},
        )
    return template


@pytest.fixture
def fleet(simulate, member_kubeconfig, settings):
    settings.HEALTH_CALL_TIMEOUT = 1.0
    sim = simulate(
        ClusterSpec(name="beijing", nodes=4, region="cn-north", zones=["cn-north-a", "cn-north-b"])
    )
    call_command(
        "join",
        "beijing",
        kubeconfig=str(member_kubeconfig(sim)),
        context="beijing",
        label=["env=prod", "location/region=cn-north"],
    )
    beijing = Cluster.objects.get()
    for _ in range(3):
        collect_cluster(beijing.pk)
    now = timezone.now()
    Cluster.objects.create(
        name="shanghai",
        api_endpoint="https://10.0.0.2:6443",
        labels={"env": "prod", "disk-type": "ssd"},
        ready="False",
        ready_reason="ClusterNotReachable",
        ready_since=now - timedelta(seconds=40),
        last_success_at=now - timedelta(seconds=42),
        kubernetes_version="v1.30.2",
        region="cn-east",
        zones=["cn-east-a"],
        nodes_ready=3,
        nodes_total=4,
        taints=[
            {
                "key": "cluster.karmada.io/unreachable",
                "effect": "NoSchedule",
                "timeAdded": (now - timedelta(seconds=30)).isoformat(),
            }
        ],
    )
    web = place("web", {"beijing": 8, "shanghai": 3}, {"beijing": 8, "shanghai": 1})
    place("cart", {"beijing": 2}, {"beijing": 1})
    return {"web": web}


def test_an_unhealthy_cluster_says_why_under_its_row_and_its_numbers_lead_to_the_panel(
    signed_in_page, live_server, screenshot, fleet
):
    page = signed_in_page("viewer")
    page.goto(f"{live_server.url}/clusters/")
    why = page.inner_text("[data-reasons-for=shanghai]")
    assert "unreachable for 4" in why and "taint cluster.karmada.io/unreachable:NoSchedule added 3" in why
    assert page.locator("tr[data-cluster=shanghai] .lint .badge").count() == 1
    screenshot(page, "clusters-list-light")
    page.click("tr[data-cluster=beijing] td.num a")
    page.wait_for_url("**/clusters/c/beijing/#nodes-title")
    assert page.locator("[data-testid=node-table] tbody tr").count() == 4


def test_the_health_panel_lists_its_workloads_and_filters_them_as_you_type(
    signed_in_page, live_server, screenshot, fleet
):
    page = signed_in_page("operator")
    page.clock.install()
    page.goto(f"{live_server.url}/clusters/c/beijing/")
    page.wait_for_function("() => document.querySelectorAll('[data-plotly][data-drawn=true]').length === 4")
    # The workloads section is fetched by htmx once the page has loaded: wait for it, not the charts.
    page.wait_for_selector("[data-testid=placements-summary]")
    rows = page.locator("[data-testid=placements] tbody tr")
    assert rows.count() == 2
    assert (
        page.inner_text("[data-testid=placements-summary]") == "2 workloads · 10 replicas desired · 9 ready"
    )
    screenshot(page, "clusters-panel-light")
    page.fill("#workload-filter", "cart")
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=placements] tbody tr').length === 1"
    )
    # The list refreshes itself every 10 s, keeping the filter: the second cart replica turns ready.
    Work.objects.filter(cluster_name="beijing", name="cart-beijing").update(
        status={"readyReplicas": 2}, health="Healthy"
    )
    page.clock.run_for(11_000)
    page.wait_for_selector("tr[data-workload='shop/cart'] >> text=Healthy")
    assert page.locator("[data-testid=placements] tbody tr").count() == 1
    page.fill("#workload-filter", "nothing")
    page.wait_for_selector("[data-testid=placements-empty] >> text=Clear the filter")
    page.fill("#workload-filter", "")
    page.wait_for_selector("tr[data-workload='shop/web']")
    page.click("tr[data-workload='shop/web'] td:first-child a")
    page.wait_for_url(f"**/workloads/{fleet['web'].pk}/")


def test_the_pages_read_well_dark_and_in_chinese(signed_in_page, live_server, screenshot, fleet):
    page = signed_in_page("operator")
    page.emulate_media(color_scheme="dark")
    page.goto(f"{live_server.url}/clusters/")
    page.select_option("#language-select", "zh-hans")
    page.wait_for_selector("html[lang=zh-hans]")
    screenshot(page, "clusters-list-zh-dark")
    page.goto(f"{live_server.url}/clusters/c/beijing/")
    page.wait_for_function("() => document.querySelectorAll('[data-plotly][data-drawn=true]').length === 4")
    assert "放置在此集群上的工作负载" in page.inner_text("#workloads-title")
    screenshot(page, "clusters-panel-zh-dark")
    page.goto(f"{live_server.url}/clusters/fleet/")
    assert page.locator("[data-testid=tiles] .tile").first.get_attribute("data-cluster") == "shanghai"
    screenshot(page, "clusters-fleet-zh-dark")
    LabelConvention.objects.all().delete()
    page.goto(f"{live_server.url}/clusters/conventions/")
    assert page.inner_text("[data-testid=rules-empty]").startswith("还没有标签约定")
    screenshot(page, "clusters-conventions-zh-dark")
    page.emulate_media(color_scheme="light")
    page.goto(f"{live_server.url}/clusters/fleet/?selector=env%3Dprod&sort=name")
    assert page.locator("[data-testid=tiles] .tile").first.get_attribute("data-cluster") == "beijing"
    screenshot(page, "clusters-fleet-zh-light")
    page.goto(f"{live_server.url}/clusters/conventions/")
    screenshot(page, "clusters-conventions-zh-light")
