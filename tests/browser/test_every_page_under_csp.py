"""Every page in Chromium under the strict Content-Security-Policy, signed in as an admin, light and dark:
no violation, no console error, the weight slider of the policy editor moved fast included."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from playwright.sync_api import expect

from clusters.collector import collect_cluster
from clusters.models import Cluster, LabelConvention
from core.roles import ADMIN
from observability import engine
from observability.models import Receiver, Silence
from scheduling.models import PropagationPolicy, ResourceTemplate
from scheduling.services import apply_yaml
from tests.browser.conftest import ARTIFACTS
from tests.conftest import make_user
from tests.support.pages import page_paths

pytestmark = [
    pytest.mark.browser,
    pytest.mark.xdist_group("browser"),
    pytest.mark.django_db(transaction=True),
]

SHOP_AND_POLICIES = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: shop, namespace: default, labels: {app: shop}}
spec:
  replicas: 10
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec:
      containers: [{name: shop, image: nginx:1.27, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: shop-split, namespace: default}
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
---
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterPropagationPolicy
metadata: {name: namespaces-everywhere}
spec:
  resourceSelectors: [{apiVersion: v1, kind: Namespace, name: shop}]
  placement: {clusterAffinity: {labelSelector: {matchLabels: {env: prod}}}}
"""


@pytest.fixture
def fleet(members, settings):
    """The three simulated cities with health samples, the 7:3 shop, an alert, a silence and a receiver."""
    settings.ALERT_CLUSTER_UNHEALTHY_FOR = 0
    apply_yaml(SHOP_AND_POLICIES)
    for cluster in members.values():  # after the shop's pods, so the bars and charts show them
        for _ in range(2):
            collect_cluster(cluster.pk)
    Cluster.objects.filter(name="guangzhou").update(ready="False", ready_reason="ClusterNotReachable")
    engine.evaluate()
    now = timezone.now()
    Silence.objects.create(
        matchers={"member_cluster": "guangzhou"},
        comment="moving the rack",
        created_by="ada",
        starts_at=now,
        ends_at=now + timedelta(hours=2),
    )
    receiver = Receiver.objects.create(name="ops", kind="webhook", url="https://hooks.example/ops")
    LabelConvention.objects.create(key="example.com/team", description="Who runs it", required=True)
    return {
        "clusters:detail": "/clusters/c/beijing/",
        "scheduling:workload": f"/workloads/{ResourceTemplate.objects.get(name='shop').pk}/",
        "scheduling:pod-logs": f"/workloads/{ResourceTemplate.objects.get(name='shop').pk}/logs/",
        "scheduling:workload-rollout": f"/workloads/{ResourceTemplate.objects.get(name='shop').pk}/rollout/",
        "scheduling:policy": f"/policies/{PropagationPolicy.objects.get(name='shop-split').pk}/",
        "scheduling:policy_edit": "/policies/edit/default/shop-split/",
        "scheduling:cluster_policy_edit": "/policies/edit-cluster/namespaces-everywhere/",
        "observability:receiver-edit": f"/alerts/receivers/{receiver.pk}/",
        "a drill's result, with its charts": "/drill/?cluster=beijing&condition=NoExecute",
    }


def slug(path: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-") or "home"


def move_the_weight_slider_fast(page) -> None:
    """Key presses faster than the previews answer, so that requests overtake each other."""
    slider = page.locator("[data-weight-slider]").nth(0)
    slider.focus()
    for _ in range(6):
        page.keyboard.press("ArrowLeft")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    expect(page.locator("[data-weight-number]").nth(0)).to_have_value("4")
    expect(page.locator("#preview-summary")).to_have_text(
        "Proposed split for 10 replicas: beijing 6, shanghai 4.", timeout=15_000
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_page_keeps_to_the_csp_and_logs_no_error(fleet, page, browser_problems, live_server, scheme):
    admin = make_user("walker", ADMIN)
    admin.is_staff = admin.is_superuser = True  # Django's admin pages too
    admin.save()
    client = Client()
    client.force_login(admin)
    paths = page_paths(client, fleet)
    assert len(paths) > 20, paths
    page.emulate_media(color_scheme=scheme)
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", "walker")
    page.fill("input[name=password]", "correct-horse-battery-staple")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/clusters/$"))

    folder = ARTIFACTS / f"every-page-{scheme}"
    folder.mkdir(parents=True, exist_ok=True)
    problems_by_page = {}
    for path in paths:
        seen_csp, seen_console = len(browser_problems.csp_violations), len(browser_problems.console_errors)
        response = page.goto(f"{live_server.url}{path}")
        assert response.status == 200, path
        page.wait_for_load_state("networkidle")
        if path == fleet["scheduling:policy_edit"]:
            move_the_weight_slider_fast(page)
        if path == fleet["clusters:detail"]:
            page.wait_for_function(
                "() => document.querySelectorAll('[data-plotly][data-drawn=true]').length === 4"
            )
        page.screenshot(path=str(folder / f"{slug(path)}.png"), full_page=True)
        assert "{#" not in page.inner_text("body") and "{%" not in page.inner_text("body"), path
        found = browser_problems.csp_violations[seen_csp:] + browser_problems.console_errors[seen_console:]
        if found:
            problems_by_page[path] = found
    assert problems_by_page == {}


def test_the_api_docs_run_a_call_from_the_browser_under_the_csp(
    signed_in_page, live_server, browser_problems
):
    page = signed_in_page("viewer")
    page.goto(f"{live_server.url}/api/docs/")
    operation = page.locator("#operations-v1-v1_clusters_list")
    operation.locator(".opblock-summary").click()
    operation.get_by_role("button", name="Try it out").click()
    operation.get_by_role("button", name="Execute").click()
    expect(operation.locator(".live-responses-table tbody .response-col_status").first).to_have_text("200")
    assert browser_problems.console_errors == []


def test_a_locked_out_user_reads_why_on_the_sign_in_page(page, live_server, viewer, settings, screenshot):
    settings.AXES_FAILURE_LIMIT = 2
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        for _ in range(2):
            page.goto(f"{live_server.url}/accounts/login/")
            page.fill("input[name=username]", viewer.username)
            page.fill("input[name=password]", "not the password")
            page.click("button[type=submit]")
        expect(page.locator("#lockout-message")).to_contain_text("Try again in 15 minutes.")
        screenshot(page, f"login-locked-out-{scheme}")
