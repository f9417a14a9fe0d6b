"""Behaviour bound by data attributes instead of inline handlers, in Chromium: a removable label row, the
unjoin confirmation, bar widths, and polling that pauses while the tab is hidden and catches up after."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from clusters.models import Cluster
from observability import engine

pytestmark = [
    pytest.mark.browser,
    pytest.mark.xdist_group("browser"),
    pytest.mark.django_db(transaction=True),
]

# Chromium in headless mode never hides a tab; these make the page believe it was hidden or shown.
HIDE = """() => {
  Object.defineProperty(document, "visibilityState", {configurable: true, get: () => "hidden"});
  document.dispatchEvent(new Event("visibilitychange"));
}"""
SHOW = """() => {
  Object.defineProperty(document, "visibilityState", {configurable: true, get: () => "visible"});
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def seed(name: str, **fields) -> Cluster:
    return Cluster.objects.create(name=name, api_endpoint="https://10.0.0.1:6443", ready="True", **fields)


def test_a_label_row_is_removed_by_its_button_and_unjoin_asks_first(signed_in_page, live_server):
    seed("beijing", labels={"env": "prod", "tier": "gold"})
    page = signed_in_page("admin")
    page.goto(f"{live_server.url}/clusters/c/beijing/")
    rows = page.locator("#label-rows tr")
    expect(rows).to_have_count(3)  # two labels and the empty row for a new one
    page.locator("#label-rows tr", has=page.locator("input[value=tier]")).get_by_label(
        "Remove this label"
    ).click()
    expect(rows).to_have_count(2)
    expect(page.locator("#label-rows input[value=tier]")).to_have_count(0)

    questions = []
    page.once("dialog", lambda dialog: (questions.append(dialog.message), dialog.dismiss()))
    page.get_by_role("button", name="Unjoin").click()
    assert questions == ["Remove this cluster from karmada-ui?"]
    assert Cluster.objects.filter(name="beijing").exists()
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Unjoin").click()
    page.wait_for_url(re.compile(r"/clusters/$"))
    assert not Cluster.objects.filter(name="beijing").exists()


def test_allocation_bars_are_as_wide_as_their_share(signed_in_page, live_server):
    seed(
        "beijing",
        cpu_allocatable=10_000,
        cpu_allocated=6_100,
        memory_allocatable=100 * 2**30,
        memory_allocated=25 * 2**30,
    )
    page = signed_in_page("viewer")
    page.goto(f"{live_server.url}/clusters/")
    fills = page.locator("#clusters tr[data-cluster=beijing] .bar > span")
    expect(fills).to_have_count(2)
    widths = fills.evaluate_all(
        "spans => spans.map(s => s.getBoundingClientRect().width"
        " / s.parentElement.getBoundingClientRect().width)"
    )
    assert [round(w, 2) for w in widths] == [0.61, 0.25]


def test_polling_pauses_while_the_tab_is_hidden_and_catches_up_once_when_it_shows(
    signed_in_page, live_server, settings
):
    settings.ALERT_CLUSTER_UNHEALTHY_FOR = 0
    beijing = seed("beijing")
    page = signed_in_page("viewer")
    polls = []
    page.on("request", lambda r: polls.append(time.monotonic()) if r.headers.get("hx-request") else None)
    page.goto(f"{live_server.url}/alerts/")  # the alert list polls every 5 s
    page.wait_for_timeout(6_500)
    assert len(polls) == 1, "one poll in the first 6.5 s while visible"

    page.evaluate(HIDE)
    Cluster.objects.filter(pk=beijing.pk).update(ready="False")
    engine.evaluate()
    page.wait_for_timeout(7_000)
    assert len(polls) == 1, "no poll while hidden"
    assert "member_cluster=beijing" not in page.inner_text("#alert-lists")

    shown_at = time.monotonic()
    page.evaluate(SHOW)
    page.wait_for_selector("#firing-alerts >> text=member_cluster=beijing", timeout=3_000)
    assert len(polls) == 2 and polls[1] - shown_at < 1.0, "one poll at once when shown again"
    page.wait_for_timeout(3_000)
    assert len(polls) == 2, "then the usual interval again"
