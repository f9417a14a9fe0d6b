"""The staged rollout page in Chromium: the waves, where each cluster stands and why it waits, and the
operator's pause and abort, in English and in Chinese."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from membersim import ClusterSpec
from scheduling.models import ResourceTemplate, Rollout
from scheduling.services import apply_yaml
from tests.e2e.test_staged_rollout import POLICY, web
from tests.support.members import converge, member_object, started_members

pytestmark = [pytest.mark.browser]

SPECS = [
    ClusterSpec(name="staging", region="cn-east", zones=["cn-east-b"], nodes=1),
    ClusterSpec(name="beijing", region="cn-north", zones=["cn-north-a"], nodes=1),
    ClusterSpec(name="shanghai", region="cn-east", zones=["cn-east-a"], nodes=1),
]
LABELS = {
    "staging": {"env": "staging", "location/region": "cn-east"},
    "beijing": {"env": "prod", "location/region": "cn-north"},
    "shanghai": {"env": "prod", "location/region": "cn-east"},
}


@pytest.fixture
def rolling(transactional_db):
    """web 1.0 running in three clusters, then 2.0 applied: wave 1 (staging) updating, the rest held."""
    with started_members(SPECS, cluster_labels=LABELS) as members:
        clusters = list(members.values())
        apply_yaml(
            POLICY.replace("soak: 1s", "soak: 10m").replace("deadline: 4s", "deadline: 10m")
            + "---"
            + web("1.0")
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not all(
            member_object(c, "apps/v1", "Deployment", "web", "shop") for c in clusters
        ):
            converge(1)
        apply_yaml(web("2.0"))
        converge(1)
        yield ResourceTemplate.objects.get(name="web").pk


def test_the_rollout_page_shows_each_wave_and_why_a_cluster_waits_and_takes_pause_and_abort(
    signed_in_page, live_server, rolling, screenshot
):
    page = signed_in_page("operator")
    page.goto(f"{live_server.url}/workloads/{rolling}/")
    page.click("text=Rollout")
    expect(page.locator("h1")).to_contain_text("Staged rollout of Deployment web")
    waves = page.locator(".rollout-wave")
    expect(waves).to_have_count(3)
    expect(page.locator(".rollout-phase")).to_have_text("Progressing")
    expect(page.locator("[data-wave='1'] [data-cluster=staging]")).to_have_attribute("data-state", "soaking")
    expect(page.locator("[data-wave='2'] [data-cluster=beijing]")).to_contain_text(
        "waits for wave 1 (staging: every replica ready; soaking"
    )
    expect(page.locator("[data-wave='3'] [data-cluster=shanghai]")).to_have_attribute("data-state", "held")
    expect(page.locator(".rollout-events")).to_contain_text("RolloutWaveStarted")
    screenshot(page, "rollout-progressing")

    page.click("[data-step=pause]")
    expect(page.locator(".rollout-phase")).to_have_text("Paused")
    expect(page.locator(".rollout-message")).to_contain_text("paused by browser-operator")
    expect(page.locator("[data-step=resume]")).to_be_visible()

    page.click("[data-step=abort]")
    expect(page.locator(".rollout-phase")).to_have_text("Aborted")
    expect(page.locator("[data-wave='1'] [data-cluster=staging]")).to_have_attribute(
        "data-state", "rolledBack"
    )
    expect(page.locator("[data-step]")).to_have_count(0)
    assert Rollout.objects.get().phase == "Aborted"
    screenshot(page, "rollout-aborted")

    page.select_option("#language-select", "zh-hans")
    page.wait_for_selector("html[lang=zh-hans]")
    expect(page.locator("#rollout-waves-title")).to_contain_text("批次")
    screenshot(page, "rollout-aborted-zh")


def test_a_viewer_sees_the_waves_without_the_buttons(signed_in_page, live_server, rolling):
    page = signed_in_page("viewer")
    page.goto(f"{live_server.url}/workloads/{rolling}/rollout/")
    expect(page.locator(".rollout-wave")).to_have_count(3)
    expect(page.locator("[data-step]")).to_have_count(0)


def test_the_editors_preview_shows_the_wave_plan_beside_the_split(
    signed_in_page, live_server, rolling, screenshot
):
    page = signed_in_page("operator")
    page.goto(f"{live_server.url}/policies/edit/shop/web/")
    plan = page.locator("#wave-plan li")
    expect(plan).to_have_count(3)
    expect(plan.nth(0)).to_contain_text("env=staging: staging")
    expect(plan.nth(1)).to_contain_text("location/region=cn-north: beijing")
    expect(page.locator(".split-table [data-cluster=shanghai] [data-wave]")).to_have_text("3")
    screenshot(page, "editor-wave-plan")
