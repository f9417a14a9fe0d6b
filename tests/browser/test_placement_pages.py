"""Quota, priority, suspension, workload groups and cost in Chromium: the editor's preview, the quota
panel and the workload page, light and dark, in English and Chinese."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from scheduling.models import ResourceBinding
from scheduling.services import apply_yaml
from tests.integration.scheduling.test_placement_features import deployment, docs, policy, quota
from tests.support.members import member_spec

pytestmark = [pytest.mark.browser]

SPLIT = {
    "clusterAffinity": {"clusterNames": ["beijing", "shanghai"]},
    "replicaScheduling": {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {
            "staticWeightList": [
                {"targetCluster": {"clusterNames": ["beijing"]}, "weight": 1},
                {"targetCluster": {"clusterNames": ["shanghai"]}, "weight": 1},
            ]
        },
    },
}
HIGH = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n"


@pytest.fixture
def member_specs():
    """beijing and shanghai with their CPU prices, for the shared `members` fixture."""
    return [
        member_spec("beijing", labels={"env": "prod", "cost.karmada-ui.io/cpu-hour": "0.048"}),
        member_spec("shanghai", labels={"env": "prod", "cost.karmada-ui.io/cpu-hour": "0.031"}),
    ]


@pytest.fixture
def shop(members):
    extra = {"schedulePriority": {"priorityClassSource": "KubePriorityClass", "priorityClassName": "high"}}
    apply_yaml(
        docs(
            HIGH,
            quota("2"),
            deployment("web", 4, labels={"ha.group": "web"}),
            policy("web", SPLIT, extra=extra),
            deployment("api", 4),
            policy("api", SPLIT),
        )
    )
    apply_yaml(deployment("api", 8))  # 8 x 200m over what the 2-core quota leaves
    return {b.template.name: b.template_id for b in ResourceBinding.objects.select_related("template")}


def in_chinese_and_dark(page: Page) -> None:
    page.emulate_media(color_scheme="dark")
    page.select_option("#language-select", "zh-hans")
    page.wait_for_selector("html[lang=zh-hans]")


def test_the_preview_marks_a_split_over_the_quota_and_prices_it(
    signed_in_page, live_server, shop, screenshot
):
    page = signed_in_page("operator")
    page.goto(f"{live_server.url}/policies/edit/shop/web/")
    expect(page.locator("#f-priority-class")).to_have_value("high")
    expect(page.locator("#split-cost")).to_contain_text("Estimated cost of this split")
    expect(page.locator("[data-cost]").first).to_have_text("0.0192")
    page.fill("#preview-replicas", "12")
    expect(page.locator("#quota-exceeded")).to_contain_text("QuotaExceeded")
    expect(page.locator("#quota-check")).to_contain_text("over")
    expect(page.locator("#preview-summary")).to_contain_text("would exceed the namespace's quota")
    screenshot(page, "editor-quota-over")
    page.fill("#f-anti-affinity-key", "ha.group")
    page.fill("#preview-replicas", "4")
    expect(page.locator("#preview-summary")).to_contain_text("Proposed split for 4 replicas")
    expect(page.locator("#split-cost")).to_contain_text("this split changes it by +0.0000 per hour")
    page.locator("#workload-groups").scroll_into_view_if_needed()
    screenshot(page, "editor-quota-cost")
    in_chinese_and_dark(page)
    page.fill("#preview-replicas", "12")
    expect(page.locator("#quota-check")).to_contain_text("超出")
    screenshot(page, "editor-quota-cost-zh-dark")


def test_the_quota_panel_and_pause_resume_on_the_workload_page(signed_in_page, live_server, shop, screenshot):
    page = signed_in_page("operator")
    page.goto(f"{live_server.url}/quotas/")
    panel = page.locator("[data-namespace=shop]")
    expect(panel.locator("[data-resource=cpu]")).to_contain_text("1600m")
    expect(panel.locator("[data-workload=api]")).to_contain_text("QuotaExceeded")
    screenshot(page, "quota-panel")

    page.goto(f"{live_server.url}/workloads/{shop['web']}/")
    expect(page.locator("#workload-hold")).to_contain_text("Scheduling priority 1000 (PriorityClass high)")
    page.click("text=Pause scheduling")
    expect(page.locator("h1 .suspended-badge")).to_be_visible()
    page.click("text=Pause on shanghai")
    expect(page.locator("#binding-clusters [data-cluster=shanghai]")).to_contain_text("paused")
    screenshot(page, "workload-suspended")
    page.goto(f"{live_server.url}/workloads/")
    expect(page.locator(".suspended-badge")).to_have_count(1)

    in_chinese_and_dark(page)
    page.goto(f"{live_server.url}/workloads/{shop['web']}/")
    expect(page.locator("#workload-hold")).to_contain_text("优先级与暂停")
    screenshot(page, "workload-suspended-zh-dark")
    page.click("text=恢复调度")
    expect(page.locator("h1 .suspended-badge")).to_be_visible()  # dispatching on shanghai still held
    page.goto(f"{live_server.url}/quotas/")
    screenshot(page, "quota-panel-zh-dark")
