"""The audit log in Chromium: each change shows who made it and its fields before and after."""

import pytest
from django.contrib.auth import get_user_model

from clusters import services as clusters
from clusters.models import Cluster
from observability import services as observability

pytestmark = [
    pytest.mark.browser,
    pytest.mark.xdist_group("browser"),
    pytest.mark.django_db(transaction=True),
]


def test_the_audit_log_shows_each_change_with_its_fields_before_and_after(
    signed_in_page, live_server, screenshot
):
    page = signed_in_page("operator")
    operator = get_user_model().objects.get(username="browser-operator")
    beijing = Cluster.objects.create(
        name="beijing", api_endpoint="https://10.0.0.1:6443", labels={"env": "prod"}
    )
    clusters.patch_labels(beijing, {"env": "dev", "location/region": "cn-north"}, user=operator)
    clusters.add_taint(beijing, "dedicated", "gpu", "NoSchedule", user=operator)
    observability.create_silence({"alertname": "ClusterUnhealthy"}, 7200, "planned upgrade", operator)

    page.goto(f"{live_server.url}/audit/")
    rows = page.locator("table.data tbody tr")
    assert rows.count() == 3
    labels = rows.filter(has_text="LabelsChanged")
    assert "browser-operator" in labels.inner_text()
    diff = labels.locator("details.audit-diff")
    assert diff.get_attribute("open") is not None  # a short diff is shown unfolded
    text = " ".join(diff.inner_text().split())
    assert "labels.env prod → dev" in text
    assert 'labels["location/region"] (absent) → cn-north' in text
    assert "taints [] →" in " ".join(rows.filter(has_text="TaintAdded").inner_text().split())
    screenshot(page, "audit-log")
