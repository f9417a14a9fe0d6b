"""The alerts, silences, receivers and deliveries API: roles, filters and clear 400s."""

import pytest

from clusters.models import ReadyState
from observability import engine
from observability.models import Receiver, Silence
from tests.support.api import problems


@pytest.mark.django_db
def test_alerts_are_listed_and_filtered_by_state(api_as, viewer, settings, make_cluster):
    settings.ALERT_CLUSTER_UNHEALTHY_FOR = 0
    make_cluster("beijing", ready=ReadyState.FALSE)
    make_cluster("shanghai")
    engine.evaluate()
    client = api_as(viewer)
    firing = client.get("/api/v1/alerts/", {"state": "firing"}).json()
    assert [a["labels"]["member_cluster"] for a in firing["results"]] == ["beijing"]
    assert client.get("/api/v1/alerts/", {"state": "resolved"}).json()["results"] == []
    bad = client.get("/api/v1/alerts/", {"state": "burning"})
    assert bad.status_code == 400 and "state" in problems(bad)


@pytest.mark.django_db
def test_an_operator_creates_and_expires_a_silence_through_the_api(api_as, operator, viewer):
    client = api_as(operator)
    created = client.post(
        "/api/v1/silences/",
        {"matchers": {"alertname": "ClusterCPUHigh"}, "duration": "30m", "comment": "load test"},
        format="json",
    )
    assert created.status_code == 201, created.json()
    body = created.json()
    assert body["active"] is True and body["created_by"] == operator.username
    expired = client.post(f"/api/v1/silences/{body['id']}/expire/")
    assert expired.status_code == 200 and expired.json()["active"] is False
    assert api_as(viewer).post("/api/v1/silences/", {}, format="json").status_code == 403


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"matchers": {}, "duration": "1h", "comment": "x"}, "matchers"),
        ({"matchers": ["a"], "duration": "1h", "comment": "x"}, "matchers"),
        ({"matchers": {"a": "b"}, "duration": "eventually", "comment": "x"}, "duration"),
        ({"matchers": {"a": "b"}, "duration": "1h"}, "comment"),
    ],
)
def test_a_bad_silence_is_a_400_naming_the_field(api_as, operator, payload, field):
    response = api_as(operator).post("/api/v1/silences/", payload, format="json")
    assert response.status_code == 400
    assert field in problems(response)
    assert not Silence.objects.exists()


@pytest.mark.django_db
def test_only_admins_see_and_change_receivers(api_as, admin_user, operator):
    assert api_as(operator).get("/api/v1/alert-receivers/").status_code == 403
    client = api_as(admin_user)
    created = client.post(
        "/api/v1/alert-receivers/",
        {"name": "ops", "kind": "webhook", "url": "https://hooks.example/a"},
        format="json",
    )
    assert created.status_code == 201, created.json()
    bad = client.patch(f"/api/v1/alert-receivers/{created.json()['id']}/", {"kind": "email"}, format="json")
    assert bad.status_code == 400 and "emails" in problems(bad)
    good = client.patch(
        f"/api/v1/alert-receivers/{created.json()['id']}/",
        {"kind": "email", "emails": ["a@example.com"]},
        format="json",
    )
    assert good.status_code == 200
    assert Receiver.objects.get().emails == ["a@example.com"]


@pytest.mark.django_db
def test_a_receiver_without_a_usable_url_is_a_400(api_as, admin_user):
    response = api_as(admin_user).post(
        "/api/v1/alert-receivers/", {"name": "ops", "kind": "webhook", "url": ""}, format="json"
    )
    assert response.status_code == 400 and "url" in problems(response)
