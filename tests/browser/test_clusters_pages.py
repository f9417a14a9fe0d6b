"""The cluster pages in Chromium: the list filter as you type, labels edited in place (with a
concurrent change refused), and the health panel with its charts drawn."""

import pytest
from django.core.management import call_command

from clusters.collector import collect_cluster
from clusters.models import Cluster
from membersim import ClusterSpec

pytestmark = [
    pytest.mark.browser,
    pytest.mark.xdist_group("browser"),
    pytest.mark.django_db(transaction=True),
]


def seed(name, labels, ready="True", nodes=(3, 3)):
    return Cluster.objects.create(
        name=name,
        api_endpoint="https://10.0.0.1:6443",
        labels=labels,
        ready=ready,
        kubernetes_version="v1.31.4",
        nodes_ready=nodes[0],
        nodes_total=nodes[1],
        cpu_allocatable=24000,
        cpu_allocated=12000,
        memory_allocatable=96 * 2**30,
        memory_allocated=24 * 2**30,
    )


def test_the_list_filters_as_you_type_and_shows_selector_errors_inline(
    signed_in_page, live_server, screenshot
):
    seed("beijing", {"env": "prod", "location/region": "cn-north"})
    seed("shanghai", {"env": "prod", "location/region": "cn-east"}, ready="False", nodes=(2, 4))
    seed("guangzhou", {"env": "staging", "location/region": "cn-south"})
    page = signed_in_page("viewer")
    page.goto(f"{live_server.url}/clusters/")
    rows = page.locator("#clusters tbody tr[data-cluster]")
    assert rows.count() == 3
    page.fill("#selector", "env=prod,location/region in (cn-north,cn-east)")
    page.wait_for_function("() => document.querySelectorAll('#clusters tbody tr[data-cluster]').length === 2")
    assert sorted(rows.evaluate_all("rows => rows.map(r => r.dataset.cluster)")) == ["beijing", "shanghai"]
    assert "selector=env%3Dprod" in page.url  # the filter is in the address, so it can be shared
    screenshot(page, "clusters-list-filtered")
    page.fill("#selector", "env in (")
    page.wait_for_selector("#selector-error")
    assert "ends too early" in page.inner_text("#selector-error")
    screenshot(page, "clusters-list-selector-error")
    page.fill("#selector", "!env")
    page.wait_for_selector("text=No cluster matches")


def test_labels_are_edited_in_place_and_a_concurrent_change_is_not_overwritten(
    signed_in_page, live_server, screenshot
):
    cluster = seed("beijing", {"env": "prod"})
    page = signed_in_page("operator")
    page.goto(f"{live_server.url}/clusters/c/beijing/")
    rows = page.locator("#label-rows tr")
    before = rows.count()
    page.click("text=Add label")
    page.wait_for_function(f"() => document.querySelectorAll('#label-rows tr').length === {before + 1}")
    page.locator("#label-rows tr").last.locator("input[name=key]").fill("location/region")
    page.locator("#label-rows tr").last.locator("input[name=value]").fill("cn-north")
    page.click("#labels-form button[type=submit]")
    page.wait_for_selector("#labels-editor >> text=Saved.")
    cluster.refresh_from_db()
    assert cluster.labels == {"env": "prod", "location/region": "cn-north"}

    # Someone else changes the labels while this form is open.
    Cluster.objects.filter(pk=cluster.pk).bump(labels={"env": "staging"})
    page.locator("#label-rows input[name=value]").first.fill("dev")
    page.click("#labels-form button[type=submit]")
    page.wait_for_selector("[data-testid=labels-error]")
    assert "changed by someone else" in page.inner_text("[data-testid=labels-error]")
    screenshot(page, "clusters-labels-conflict")
    cluster.refresh_from_db()
    assert cluster.labels == {"env": "staging"}

    page.locator("#label-rows input[name=key]").first.fill("bad key")
    page.click("#labels-form button[type=submit]")
    page.wait_for_selector("#labels-editor .field-error >> text=letters, digits")


def test_the_health_panel_draws_its_charts(
    signed_in_page, live_server, simulate, member_kubeconfig, screenshot, settings
):
    settings.HEALTH_CALL_TIMEOUT = 1.0
    sim = simulate(ClusterSpec(name="beijing", nodes=4, region="cn-north", zones=["cn-north-a"]))
    call_command(
        "join", "beijing", kubeconfig=str(member_kubeconfig(sim)), context="beijing", label=["env=prod"]
    )
    cluster = Cluster.objects.get()
    for _ in range(3):
        collect_cluster(cluster.pk)
    page = signed_in_page("admin")
    page.goto(f"{live_server.url}/clusters/c/beijing/")
    page.wait_for_function("() => document.querySelectorAll('[data-plotly][data-drawn=true]').length === 4")
    assert page.locator(".chart .main-svg").count() >= 4
    assert page.inner_text("[data-testid=nodes]") == "4/4"
    assert page.inner_text("[data-testid=ready]") == "Ready"
    screenshot(page, "clusters-health-panel")
    # The panel refreshes itself by htmx polling; a refreshed panel has its charts drawn again.
    collect_cluster(cluster.pk)
    page.evaluate(
        """() => {
            const panel = document.querySelector('#health-panel');
            panel.dataset.old = 'yes';
            htmx.ajax('GET', panel.getAttribute('hx-get'), {target: '#health-panel', swap: 'outerHTML'});
        }"""
    )
    page.wait_for_selector("#health-panel:not([data-old])", state="attached")
    page.wait_for_function("() => document.querySelectorAll('[data-plotly][data-drawn=true]').length === 4")
    page.click("text=Cordon (stop new scheduling)")
    page.wait_for_selector("[data-testid=taints] >> text=cluster.karmada.io/unschedulable:NoSchedule")
    page.goto(f"{live_server.url}/clusters/fleet/")
    page.wait_for_selector("[data-cluster=beijing] >> text=cordoned")
    screenshot(page, "clusters-fleet")


def test_a_lint_finding_is_fixed_with_one_click(signed_in_page, live_server, screenshot):
    from clusters.models import LabelConvention

    LabelConvention.objects.all().delete()
    LabelConvention.objects.create(key="env", required=True, allowed_values=["dev", "staging", "prod"])
    LabelConvention.objects.create(key="location/region", required=True, aliases=["region"])
    seed("beijing", {"env": "production", "region": "cn-north"})
    seed("shanghai", {"env": "prod", "location/region": "cn-east"})
    page = signed_in_page("operator")
    page.goto(f"{live_server.url}/clusters/")
    assert "env=production is not allowed" in page.inner_text("tr[data-cluster=beijing] .lint")
    page.click("tr[data-cluster=beijing] .lint a")
    page.wait_for_selector("#lint-beijing")
    screenshot(page, "clusters-conventions")
    page.click("#lint-beijing + ul button:has-text('env=prod')")
    page.wait_for_selector("text=Fixed on beijing")
    page.click("#lint-beijing + ul button:has-text('location/region=cn-north')")
    page.wait_for_selector("text=Every cluster follows the conventions.")
    assert Cluster.objects.get(name="beijing").labels == {"env": "prod", "location/region": "cn-north"}


def test_an_admin_joins_a_cluster_from_a_pasted_kubeconfig(signed_in_page, live_server, simulate, screenshot):
    import yaml

    sim = simulate(
        ClusterSpec(name="beijing", nodes=2), ClusterSpec(name="shanghai", nodes=3, region="cn-east")
    )
    page = signed_in_page("admin")
    page.goto(f"{live_server.url}/clusters/")
    page.click("text=Join cluster")
    page.fill("textarea[name=kubeconfig]", yaml.safe_dump(sim.kubeconfig()))
    page.wait_for_selector("select[name=context] >> option[value=shanghai]", state="attached")
    page.select_option("select[name=context]", "shanghai")
    page.fill("input[name=name]", "shanghai")
    page.fill("input[name=labels]", "env=prod, location/region=cn-east")
    page.click("text=Test connection")
    page.wait_for_selector("[data-testid=nodes] >> text=3 of 3 Ready")
    assert not Cluster.objects.exists()
    screenshot(page, "clusters-join")
    page.click("#join-form button[type=submit]")
    page.wait_for_selector("text=Joined shanghai: v1.31.4, 3/3 nodes Ready.")
    cluster = Cluster.objects.get()
    assert (cluster.name, cluster.region, cluster.labels["location/region"]) == (
        "shanghai",
        "cn-east",
        "cn-east",
    )
