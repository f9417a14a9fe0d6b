"""The issue's story in Chromium: a new user opens the shop workload and sees its pods in beijing and
shanghai, reads and follows a pod's log, edits the member copy by hand with kubectl and sees what changed,
by which manager, that it was put back and the diff; pauses dispatching and sees the live diff held
until Re-apply now; finds app=shop from the header's search box; and a hanging cluster is named."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from playwright.sync_api import expect

from scheduling.models import ResourceTemplate
from scheduling.services import apply_yaml
from tests.support.members import converge, member_object, member_spec

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(shutil.which("kubectl") is None, reason="the story edits a copy with kubectl"),
]

SHOP = (Path(__file__).resolve().parents[2] / "examples" / "shop.yaml").read_text()
SPLIT = """
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: shop, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: shop}]
  placement:
    clusterAffinity: {clusterNames: [beijing, shanghai]}
    replicaScheduling:
      replicaSchedulingType: Divided
      replicaDivisionPreference: Weighted
      weightPreference:
        staticWeightList:
        - {targetCluster: {clusterNames: [beijing]}, weight: 7}
        - {targetCluster: {clusterNames: [shanghai]}, weight: 3}
"""


@pytest.fixture
def member_specs():
    """beijing with three nodes and shanghai with two, for the shared `members` fixture."""
    return [member_spec("beijing", nodes=3), member_spec("shanghai", nodes=2)]


@pytest.fixture
def demo(members, member_sim, tmp_path):
    apply_yaml(SHOP + "\n---\n" + SPLIT)
    converge(1)
    kubeconfig = member_sim.write_kubeconfig(tmp_path / "kubeconfig")

    def by_hand(cluster: str, *args: str) -> None:
        subprocess.run(
            ["kubectl", "--kubeconfig", str(kubeconfig), "--context", cluster, *args],
            check=True,
            capture_output=True,
            timeout=60,
        )

    yield {"sim": member_sim, "clusters": members, "by_hand": by_hand, "shop": ResourceTemplate.objects.get()}
    member_sim.control("shanghai", "up")


def image(cluster) -> str:
    return member_object(cluster, "apps/v1", "Deployment", "shop")["spec"]["template"]["spec"]["containers"][
        0
    ]["image"]


def test_a_new_user_sees_into_the_member_clusters(demo, signed_in_page, live_server, screenshot):
    page = signed_in_page("operator")
    shop = demo["shop"]
    workload = f"{live_server.url}/workloads/{shop.pk}/"
    page.goto(workload)
    across = page.locator("#workload-across")
    expect(across.locator('[data-cluster="beijing"] tr[data-pod]')).to_have_count(7)
    expect(across.locator('[data-cluster="shanghai"] tr[data-pod]')).to_have_count(3)
    expect(across.locator('[data-cluster="beijing"] [data-state="Healthy"]')).to_be_visible()
    expect(across.locator(".member-events")).to_contain_text("beijing")
    expect(across.locator(".member-events")).to_contain_text("shanghai")
    screenshot(page, "workload-across-clusters")

    across.locator('[data-cluster="beijing"] tr[data-pod] a', has_text="Logs").first.click()
    expect(page.locator("#log-text")).to_contain_text("ready to serve")
    page.locator("#log-follow").check()
    expect(page.locator("#log-follow")).to_have_attribute("data-following", "true")
    expect(page.locator("#log-text")).to_contain_text("starting shop (nginx:1.27)")
    page.locator("#log-follow").uncheck()

    demo["by_hand"]("beijing", "set", "image", "deployment/shop", "shop=nginx:hacked")
    converge(1)
    assert image(demo["clusters"]["beijing"]) == "nginx:1.27"
    page.goto(workload)
    repaired = page.locator('#workload-drift [data-cluster="beijing"] tr[data-drift-event="put-back"]')
    expect(repaired).to_contain_text("spec.template.spec.containers[name=shop].image")
    expect(repaired).to_contain_text("kubectl-set")
    expect(repaired).to_contain_text("put back")
    repaired.locator("summary", has_text="diff").click()
    expect(repaired.locator("pre.diff")).to_contain_text("+      - image: nginx:hacked")

    page.locator('#workload-hold tr[data-hold="dispatching"] button', has_text="Pause dispatching").click()
    expect(page.locator(".messages")).to_contain_text("Dispatching paused")
    demo["by_hand"]("shanghai", "set", "image", "deployment/shop", "shop=nginx:held")
    converge(1)
    held = page.locator('#workload-drift [data-cluster="shanghai"]')
    page.goto(workload)
    expect(held.locator(".drift-held")).to_contain_text("dispatching is suspended")
    expect(held.locator(".drift-changes")).to_contain_text("nginx:held")
    expect(held.locator("pre.diff")).to_contain_text("+      - image: nginx:held")
    screenshot(page, "workload-drift-held")
    page.once("dialog", lambda dialog: dialog.accept())
    held.locator("button", has_text="Re-apply now").click()
    expect(page.locator(".messages")).to_contain_text("shanghai: our manifest is applied again.")
    assert image(demo["clusters"]["shanghai"]) == "nginx:1.27"

    page.fill("#fleet-search", "app=shop")
    page.press("#fleet-search", "Enter")
    expect(page).to_have_url(re.compile(r"/search/\?q=app%3Dshop"))
    for cluster in ("beijing", "shanghai"):
        answered = page.locator(f'.search-cluster[data-cluster="{cluster}"][data-state="answered"]')
        expect(
            answered.locator('tr[data-hit="Deployment/default/shop"] [data-managed="template"]')
        ).to_have_text("yes, from Deployment shop")
        expect(answered.locator("tr[data-hit^='Pod/default/shop-']").first).to_be_visible()
    screenshot(page, "fleet-search")
    page.locator(
        '.search-cluster[data-cluster="beijing"] tr[data-hit="Deployment/default/shop"] a'
    ).first.click()
    expect(page.locator("h1")).to_contain_text("Deployment default/shop")
    expect(page.locator("pre")).to_contain_text("karmada.io/managed")


def test_a_hanging_cluster_is_named_on_the_search_page_and_unreachable_on_the_workload(
    demo, signed_in_page, live_server
):
    page = signed_in_page("viewer")
    demo["sim"].control("shanghai", "down")
    page.goto(f"{live_server.url}/search/?q=app%3Dshop")
    expect(page.locator('.search-cluster[data-cluster="beijing"][data-state="answered"]')).to_be_visible()
    expect(page.locator('#search-timed-out [data-timed-out="shanghai"]')).to_be_visible()
    page.goto(f"{live_server.url}/workloads/{demo['shop'].pk}/")
    expect(
        page.locator('#workload-across [data-cluster="shanghai"] [data-state="unreachable"]')
    ).to_be_visible()
    expect(page.locator('#workload-across [data-cluster="beijing"] tr[data-pod]')).to_have_count(7)
    expect(
        page.locator('#workload-drift [data-cluster="shanghai"] [data-drift="unreachable"]')
    ).to_be_visible()


def test_the_member_cluster_pages_read_in_chinese_and_dark(demo, signed_in_page, live_server, screenshot):
    page = signed_in_page("viewer")
    page.goto(f"{live_server.url}/workloads/{demo['shop'].pk}/")
    page.emulate_media(color_scheme="dark")
    page.select_option("#language-select", "zh-hans")
    page.wait_for_selector("html[lang=zh-hans]")
    expect(page.locator("#across-title")).to_contain_text("跨成员集群")
    expect(page.locator('#workload-across [data-cluster="beijing"] .pods-table thead')).to_contain_text(
        "未就绪原因"
    )
    expect(page.locator("#drift-title")).to_contain_text("生效清单与漂移")
    expect(page.locator('#workload-drift [data-cluster="beijing"]')).to_contain_text("与我们应用的一致")
    screenshot(page, "workload-across-zh-dark")
    page.fill("#fleet-search", "kind:deploy shop")
    page.press("#fleet-search", "Enter")
    expect(page.locator('.search-cluster[data-cluster="shanghai"][data-state="answered"]')).to_contain_text(
        "来自 Deployment shop"
    )
