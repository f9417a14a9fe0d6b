"""Label conventions: the starter set, editing rules, lint badges, one-click fixes, and the lint API."""

import pytest
from django.urls import reverse

from clusters.models import Cluster, LabelConvention
from tests.support.api import problems

pytestmark = pytest.mark.django_db


@pytest.fixture
def clusters(db):
    Cluster.objects.create(
        name="beijing",
        api_endpoint="https://h",
        region="cn-north",
        labels={"env": "prod", "location/region": "cn-north"},
    )
    Cluster.objects.create(
        name="shanghai",
        api_endpoint="https://h",
        region="cn-east",
        labels={"environment": "prod", "region": "cn-east"},
    )


def test_the_starter_conventions_exist_after_migrating():
    rules = {c.key: c for c in LabelConvention.objects.all()}
    assert set(rules) == {"env", "location/region", "location/zone", "provider"}
    assert rules["env"].required and rules["env"].allowed_values == ["dev", "staging", "prod"]


def test_the_list_shows_a_lint_badge_per_cluster(client, viewer, clusters):
    client.force_login(viewer)
    body = client.get(reverse("clusters:list")).content.decode()
    beijing = body[body.index('data-cluster="beijing"') :]
    assert 'class="badge ok"' in beijing[: beijing.index("</tr>")]
    shanghai = body[body.index('data-cluster="shanghai"') :]
    assert "missing required label env" in shanghai[: shanghai.index("</tr>")]


def test_a_one_click_fix_renames_an_alias_to_the_convention_key(client, operator, clusters):
    client.force_login(operator)
    page = client.get(reverse("clusters:conventions")).content.decode()
    assert 'id="lint-shanghai"' in page and 'id="lint-beijing"' not in page
    client.post(reverse("clusters:lint_fix"), {"cluster": "shanghai", "code": "missing", "key": "env"})
    client.post(
        reverse("clusters:lint_fix"), {"cluster": "shanghai", "code": "missing", "key": "location/region"}
    )
    assert Cluster.objects.get(name="shanghai").labels == {"env": "prod", "location/region": "cn-east"}
    page = client.get(reverse("clusters:conventions")).content.decode()
    assert "Every cluster follows the conventions." in page


def test_rules_are_added_edited_and_refused_with_field_errors(client, operator):
    client.force_login(operator)
    url = reverse("clusters:convention_save")
    response = client.post(url, {"id": 0, "key": "team/owner", "description": "who", "required": "on"})
    assert response.status_code == 302
    rule = LabelConvention.objects.get(key="team/owner")
    assert rule.required
    bad = client.post(url, {"id": rule.pk, "key": "team/owner", "pattern": "([", "allowed_values": ""})
    assert bad.status_code == 400 and "Not a valid regular expression" in bad.content.decode()
    clash = client.post(url, {"id": 0, "key": "env"})
    assert clash.status_code == 400 and "already a convention" in clash.content.decode()
    client.post(url, {"id": rule.pk, "action": "delete"})
    assert not LabelConvention.objects.filter(key="team/owner").exists()


def test_viewers_cannot_change_conventions(client, viewer):
    client.force_login(viewer)
    assert client.post(reverse("clusters:convention_save"), {"id": 0, "key": "x/y"}).status_code == 403


def test_the_lint_api_lists_findings_with_fixes(api_as, viewer, clusters):
    api = api_as(viewer)
    findings = api.get("/api/v1/lint/").json()
    assert {(f["cluster"], f["code"], f["key"]) for f in findings} >= {
        ("shanghai", "missing", "env"),
        ("shanghai", "missing", "location/region"),
    }
    assert api.get("/api/v1/clusters/beijing/lint/").json() == []
    shanghai = api.get("/api/v1/clusters/shanghai/lint/").json()
    assert {"set": {"env": "prod"}, "remove": ["environment"]} in [f["fix"] for f in shanghai]


def test_the_selector_lint_api_suggests_the_key_you_meant(api_as, viewer, clusters):
    response = api_as(viewer).post("/api/v1/lint/selector/", {"selector": "enviroment=prod"}, format="json")
    assert response.status_code == 200
    assert response.json()[0]["suggestion"] == "env"
    assert "did you mean env?" in response.json()[0]["message"]


def test_conventions_api_validates_fields(api_as, operator):
    api = api_as(operator)
    bad = api.post(
        "/api/v1/conventions/", {"key": "Bad Key", "allowed_values": ["ok", "not ok"]}, format="json"
    )
    assert bad.status_code == 400
    assert "key" in problems(bad) and "allowed_values" in problems(bad)
    good = api.post(
        "/api/v1/conventions/", {"key": "team/owner", "allowed_values": ["payments"]}, format="json"
    )
    assert good.status_code == 201
