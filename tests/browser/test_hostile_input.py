"""Hostile values (markup and script in labels, names, annotations, messages, comments, search boxes) are
shown as text on every page, charts included. The CSP is switched off here so that escaping alone is
what is tested: the test fails if a dialog opens or the markup became elements."""

from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import quote

import pytest
from django.test import Client
from django.utils import timezone

from clusters.models import Cluster, ClusterEvent, LabelConvention
from core.models import AuditEntry
from core.roles import ADMIN
from observability.models import Alert, Receiver, Silence
from scheduling.models import Event, PropagationPolicy, ResourceBinding, ResourceTemplate, Work
from tests.browser.conftest import ARTIFACTS
from tests.conftest import PASSWORD, make_user
from tests.support.pages import page_paths

pytestmark = [
    pytest.mark.browser,
    pytest.mark.xdist_group("browser"),
    pytest.mark.django_db(transaction=True),
]

SCRIPT = '"><script>alert(1)</script>'
IMAGE = "<img src=x onerror=alert(2)>"
TEMPLATE = "{{ 7|add:42 }}${7*7}"
# Cluster and object names must be DNS names, which no markup passes; these rows are written past the
# validation, as a database restored from elsewhere could hold them. No "/" in them: they are URL parts.
EVIL_CLUSTER = "<img src=x onerror=alert(3)>"
EVIL_LINK = "<a href=javascript:alert(4)>open"
EVIL_NAME = "<svg onload=alert(5)>"
HOSTILE = [SCRIPT, IMAGE, TEMPLATE, EVIL_CLUSTER, EVIL_LINK, EVIL_NAME]

# Anything here means markup from the data became part of the page.
INJECTED = """() => {
  const found = [];
  for (const el of document.querySelectorAll("*")) {
    for (const attr of el.attributes) {
      if (/^on/i.test(attr.name)) found.push(el.tagName + " " + attr.name);
      if (/href$/i.test(attr.name) && /^\\s*javascript:/i.test(attr.value)) found.push(el.tagName + " href");
    }
  }
  for (const s of document.querySelectorAll("script")) {
    if (!s.src && s.type !== "application/json") found.push("inline script: " + s.textContent.slice(0, 40));
  }
  document.querySelectorAll("img[src=x], svg[onload]").forEach(el => found.push(el.outerHTML));
  return found;
}"""


@pytest.fixture
def hostile_world(transactional_db, settings):
    settings.ALERT_CLUSTER_UNHEALTHY_FOR = 0
    now = timezone.now()
    Cluster.objects.create(
        name="beijing",
        api_endpoint="https://10.0.0.1:6443",
        labels={"team": SCRIPT, "note": IMAGE, "tpl": TEMPLATE, "env": "prod"},
        ready="False",
        ready_reason=IMAGE[:60],
        ready_message=SCRIPT,
        ready_since=now - timedelta(minutes=2),
        region=IMAGE[:60],
        kubernetes_version=SCRIPT,
        pod_cidrs=["10.244.0.0/24"],
        taints=[{"key": "dedicated", "value": "x", "effect": "NoSchedule"}],
    )
    evil = Cluster.objects.create(
        name=EVIL_CLUSTER, api_endpoint="https://10.0.0.2:6443", labels={"env": "prod"}, ready="True"
    )
    Cluster.objects.create(name=EVIL_LINK, api_endpoint="https://10.0.0.3:6443", ready="True")
    ClusterEvent.objects.create(cluster=evil, at=now, reason="Joined", message=SCRIPT, ready="True")
    manifest = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": EVIL_NAME,
            "namespace": "default",
            "labels": {"app": SCRIPT},
            "annotations": {"note": IMAGE},
        },
        "spec": {"replicas": 3, "template": {"spec": {"containers": [{"name": "c", "image": IMAGE}]}}},
    }
    template = ResourceTemplate.objects.create(
        api_version="apps/v1", api_group="apps", kind="Deployment", namespace="default", name=EVIL_NAME,
        manifest=manifest,
    )  # fmt: skip
    placement = {
        "clusterAffinity": {"clusterNames": [EVIL_CLUSTER, EVIL_LINK]},
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {
                "staticWeightList": [
                    {"targetCluster": {"clusterNames": [EVIL_CLUSTER]}, "weight": 2},
                    {"targetCluster": {"clusterNames": [EVIL_LINK]}, "weight": 1},
                ]
            },
        },
    }
    PropagationPolicy.objects.create(
        kind="ClusterPropagationPolicy",
        name=EVIL_NAME,
        annotations={"why": IMAGE},
        spec={"resourceSelectors": []},
    )
    policy = PropagationPolicy.objects.create(
        kind="PropagationPolicy",
        namespace="default",
        name=EVIL_NAME,
        labels={"owner": IMAGE},
        annotations={"why": SCRIPT},
        spec={
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": EVIL_NAME}],
            "placement": placement,
        },
    )
    binding = ResourceBinding.objects.create(
        namespace="default",
        name=f"{EVIL_NAME}-deployment",
        template=template,
        policy=policy,
        replicas=3,
        placement=placement,
        clusters=[{"name": EVIL_CLUSTER, "replicas": 2}, {"name": EVIL_LINK, "replicas": 1}],
    )
    Work.objects.create(
        binding=binding,
        cluster_name=EVIL_CLUSTER,
        namespace="karmada-es-evil",
        name="evil-work",
        manifest=manifest,
        desired_hash="h",
        applied_reason="AppliedFailed",
        applied_message=IMAGE,
    )
    Event.objects.create(
        object_kind="ResourceBinding", object_namespace="default", object_name=binding.name,
        type="Warning", reason="ScheduleBindingFailed", message=SCRIPT,
    )  # fmt: skip
    AuditEntry.objects.create(
        username=IMAGE, action="apply", object_kind="PropagationPolicy", object_name=SCRIPT, summary=IMAGE
    )
    Alert.objects.create(
        rule="ClusterUnhealthy",
        fingerprint="f" * 32,
        labels={"alertname": "ClusterUnhealthy", "member_cluster": EVIL_CLUSTER, "team": SCRIPT},
        annotations={"summary": SCRIPT, "description": IMAGE},
        state="firing",
        active_since=now,
        fired_at=now,
        last_evaluated=now,
    )
    Silence.objects.create(
        matchers={"team": IMAGE},
        comment=SCRIPT,
        created_by=IMAGE,
        starts_at=now,
        ends_at=now + timedelta(hours=1),
    )
    receiver = Receiver.objects.create(name=IMAGE[:60], kind="email", emails=["ops@example.com"])
    LabelConvention.objects.create(
        key="example.com/team", description=SCRIPT, example=IMAGE[:60], required=True
    )
    q = quote(SCRIPT)
    return {
        "clusters:detail": f"/clusters/c/{quote(EVIL_CLUSTER)}/",
        "clusters:detail (labels)": "/clusters/c/beijing/",
        "scheduling:workload": f"/workloads/{template.pk}/",
        "scheduling:pod-logs": f"/workloads/{template.pk}/logs/?cluster={q}&pod={q}&tail={q}",
        "scheduling:workload-rollout": f"/workloads/{template.pk}/rollout/",
        "scheduling:policy": f"/policies/{policy.pk}/",
        "scheduling:policy_edit": f"/policies/edit/default/{quote(EVIL_NAME)}/",
        "scheduling:cluster_policy_edit": f"/policies/edit-cluster/{quote(EVIL_NAME)}/",
        "observability:receiver-edit": f"/alerts/receivers/{receiver.pk}/",
        "drill": f"/drill/?cluster={quote(EVIL_CLUSTER)}&condition=NoExecute",
        "cluster filter": f"/clusters/?selector={q}",
        "fleet filter": f"/clusters/fleet/?selector={q}",
        "workload search": f"/workloads/?q={q}",
        "cluster's workload search": f"/clusters/c/beijing/?wq={q}",
        "audit search": f"/audit/?q={q}",
        "violations filter": f"/clusters/conventions/?q={q}",
    }


# The pages that show the values: each must show at least one of them, as text.
MUST_SHOW = [
    "/clusters/",
    "/clusters/fleet/",
    "/clusters/conventions/",
    "/workloads/",
    "/policies/",
    "/audit/",
    "/alerts/",
    "/alerts/receivers/",
    "/network/",
]


def test_hostile_values_are_shown_as_text_on_every_page(browser, live_server, hostile_world):
    admin = make_user("walker", ADMIN)
    admin.is_staff = admin.is_superuser = True
    admin.save()
    client = Client()
    client.force_login(admin)
    paths = page_paths(client, {k: v for k, v in hostile_world.items() if ":" in k and "(" not in k})
    paths += [v for k, v in hostile_world.items() if ":" not in k or "(" in k]

    context = browser.new_context(bypass_csp=True, viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append((page.url, dialog.message)), dialog.dismiss()))
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", "walker")
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/clusters/$"))

    injected, shown, charted, folder = {}, set(), [], ARTIFACTS / "hostile"
    folder.mkdir(parents=True, exist_ok=True)
    for index, path in enumerate(paths):
        page.goto(f"{live_server.url}{path}")
        page.wait_for_load_state("networkidle")
        found = page.evaluate(INJECTED)
        for chart in page.locator(".js-plotly-plot").all():
            if chart.locator("a").count():  # plotly turns <a href> in text into links unless escaped
                found.append(f"a link in a chart: {chart.locator('a').first.inner_html()}")
        if found:
            injected[path] = found
        fields = page.eval_on_selector_all("input, textarea", "els => els.map(e => e.value).join(' ')")
        text = page.inner_text("body") + fields
        if any(value in text for value in HOSTILE):
            shown.add(path)
        page.screenshot(path=str(folder / f"{index:02d}.png"), full_page=True)
        if path == hostile_world["scheduling:policy_edit"]:
            charted = page.locator("#split-chart .ytick text").all_text_contents()
    context.close()

    assert EVIL_LINK in charted, "the chart draws the cluster's name as written"
    assert dialogs == []
    assert injected == {}
    assert set(MUST_SHOW) | set(hostile_world.values()) <= shown, sorted(
        (set(MUST_SHOW) | set(hostile_world.values())) - shown
    )
