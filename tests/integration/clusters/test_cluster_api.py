"""The clusters API: join, list by selector, labels with optimistic concurrency, taints, cordon, roles."""

import pytest
import yaml

from clusters.models import Cluster
from membersim import ClusterSpec
from tests.support.api import problems

pytestmark = pytest.mark.django_db


@pytest.fixture
def sim(simulate):
    return simulate(
        ClusterSpec(name="beijing", nodes=3, region="cn-north"), ClusterSpec(name="shanghai", nodes=2)
    )


@pytest.fixture
def admin_api(api_as, admin_user):
    return api_as(admin_user)


def kubeconfig_text(sim):
    return yaml.safe_dump(sim.kubeconfig())


def join(api, sim, name, labels=None):
    body = {"name": name, "kubeconfig": kubeconfig_text(sim), "context": name, "labels": labels or {}}
    return api.post("/api/v1/clusters/", body, format="json")


def names(api, selector):
    return [c["name"] for c in api.get("/api/v1/clusters/", {"selector": selector}).json()["results"]]


def test_an_admin_joins_a_cluster_and_the_credentials_never_come_back(admin_api, sim):
    response = join(admin_api, sim, "beijing", {"env": "prod"})
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["name"], body["kubernetes_version"]) == ("beijing", "v1.31.4")
    assert body["nodes"] == {"total": 3, "ready": 3}
    assert body["region"] == "cn-north" and body["labels"] == {"env": "prod"}
    token = sim.token("beijing")
    for url in ("/api/v1/clusters/", "/api/v1/clusters/beijing/"):
        text = admin_api.get(url).content.decode()
        assert token not in text and "credentials" not in text


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"kubeconfig": "clusters: ["}, "kubeconfig", "not valid YAML"),
        ({"context": "nowhere"}, "context", "no context named 'nowhere'"),
        ({"name": "Bad_Name"}, "name", "lowercase letters"),
        ({"labels": {"env": "pr od"}}, "labels", "label value"),
    ],
)
def test_a_bad_join_is_a_400_naming_the_field(admin_api, sim, change, field, reason):
    body = {"name": "beijing", "kubeconfig": kubeconfig_text(sim), "context": "beijing", **change}
    response = admin_api.post("/api/v1/clusters/", body, format="json")
    assert response.status_code == 400
    assert reason in problems(response)[field][0]
    assert not Cluster.objects.exists()


def test_an_unreachable_cluster_is_a_400_on_the_kubeconfig(admin_api, sim):
    text = kubeconfig_text(sim)
    sim.stop()
    response = admin_api.post(
        "/api/v1/clusters/", {"name": "beijing", "kubeconfig": text, "context": "beijing"}
    )
    assert response.status_code == 400
    assert "Cannot connect" in problems(response)["kubeconfig"][0]


def test_a_pasted_kubeconfig_cannot_read_server_files(admin_api, sim):
    config = sim.kubeconfig()
    config["users"][0]["user"] = {"tokenFile": "/etc/passwd"}
    response = admin_api.post("/api/v1/clusters/", {"name": "beijing", "kubeconfig": yaml.safe_dump(config)})
    assert response.status_code == 400
    assert "refers to a file" in problems(response)["kubeconfig"][0]


def test_only_admins_join_and_operators_edit_labels(api_as, viewer, operator, admin_api, sim):
    patch = {"set": {"a": "b"}}
    assert join(api_as(operator), sim, "beijing").status_code == 403
    assert join(admin_api, sim, "beijing").status_code == 201
    assert api_as(viewer).get("/api/v1/clusters/").status_code == 200
    assert api_as(viewer).patch("/api/v1/clusters/beijing/labels/", patch, format="json").status_code == 403
    assert api_as(operator).patch("/api/v1/clusters/beijing/labels/", patch, format="json").status_code == 200
    assert api_as(operator).post("/api/v1/clusters/beijing/cordon/").status_code == 403


def test_the_list_filters_by_a_label_selector_and_reports_bad_ones(admin_api, sim):
    join(admin_api, sim, "beijing", {"env": "prod"})
    join(admin_api, sim, "shanghai", {"env": "dev"})
    assert names(admin_api, "env in (prod,staging)") == ["beijing"]
    assert names(admin_api, "env!=prod") == ["shanghai"]
    assert names(admin_api, "") == ["beijing", "shanghai"]
    response = admin_api.get("/api/v1/clusters/", {"selector": "env in (a=b)"})
    assert response.status_code == 400
    assert "expected a value, ',' or ')', found '=' (at character 10)" in problems(response)["selector"][0]


def test_replacing_labels_with_a_stale_version_is_a_409_and_changes_nothing(admin_api, sim):
    join(admin_api, sim, "beijing", {"env": "prod"})
    version = admin_api.get("/api/v1/clusters/beijing/").json()["resource_version"]
    url = "/api/v1/clusters/beijing/labels/"
    first = admin_api.put(url, {"labels": {"env": "staging"}, "resource_version": version}, format="json")
    assert first.status_code == 200 and first.json()["resource_version"] == version + 1
    second = admin_api.put(url, {"labels": {"env": "dev"}, "resource_version": version}, format="json")
    assert second.status_code == 409
    assert "changed by someone else" in second.json()["detail"]
    assert second.json()["resource_version"] == version + 1
    assert Cluster.objects.get().labels == {"env": "staging"}


def test_bad_label_syntax_is_a_400_with_the_reason(admin_api, sim):
    join(admin_api, sim, "beijing")
    response = admin_api.patch("/api/v1/clusters/beijing/labels/", {"set": {"Bad Key": "x"}}, format="json")
    assert response.status_code == 400
    assert "letters, digits" in problems(response)["labels"][0]


def test_bulk_label_edit_changes_every_selected_cluster_and_keeps_their_other_labels(admin_api, sim):
    join(admin_api, sim, "beijing", {"env": "prod"})
    join(admin_api, sim, "shanghai", {"tier": "gold"})
    response = admin_api.post(
        "/api/v1/clusters/labels/",
        {"clusters": ["beijing", "shanghai"], "set": {"location/region": "cn"}, "remove": ["tier"]},
        format="json",
    )
    assert response.status_code == 200, response.json()
    labels = dict(Cluster.objects.values_list("name", "labels"))
    assert labels == {
        "beijing": {"env": "prod", "location/region": "cn"},
        "shanghai": {"location/region": "cn"},
    }
    body = {"clusters": ["nowhere"], "set": {"a": "b"}}
    missing = admin_api.post("/api/v1/clusters/labels/", body, format="json")
    assert missing.status_code == 400 and "nowhere" in problems(missing)["clusters"][0]


def test_taints_are_added_and_removed_and_cordon_is_a_noschedule_taint(admin_api, sim):
    join(admin_api, sim, "beijing")
    url = "/api/v1/clusters/beijing/taints/"
    response = admin_api.post(url, {"key": "dedicated", "value": "gpu", "effect": "NoExecute"}, format="json")
    taint = response.json()["taints"][0]
    assert (taint["key"], taint["value"], taint["effect"]) == ("dedicated", "gpu", "NoExecute")
    assert taint["timeAdded"].endswith("Z")
    soft = admin_api.post(url, {"key": "spot", "effect": "PreferNoSchedule"}, format="json")
    assert "timeAdded" not in soft.json()["taints"][1]
    bad = admin_api.post(url, {"key": "x", "effect": "Sometimes"}, format="json")
    assert bad.status_code == 400 and "effect" in problems(bad)
    cordoned = admin_api.post("/api/v1/clusters/beijing/cordon/").json()["taints"]
    assert {"key": "cluster.karmada.io/unschedulable", "value": "", "effect": "NoSchedule"} in cordoned
    admin_api.post("/api/v1/clusters/beijing/uncordon/")
    admin_api.delete(url + "?key=dedicated")
    assert [t["key"] for t in Cluster.objects.get().taints] == ["spot"]


def test_unjoin_through_the_api(admin_api, sim):
    join(admin_api, sim, "beijing")
    assert admin_api.delete("/api/v1/clusters/beijing/").status_code == 204
    assert admin_api.get("/api/v1/clusters/beijing/").status_code == 404


def test_the_openapi_schema_documents_the_cluster_endpoints(admin_api):
    schema = admin_api.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    for path in ("/api/v1/clusters/", "/api/v1/clusters/{name}/labels/", "/api/v1/clusters/{name}/taints/"):
        assert path in schema["paths"], path
    properties = schema["components"]["schemas"]["Cluster"]["properties"]
    assert "labels" in properties
    assert not [name for name in properties if "credential" in name or "token" in name]


def test_every_change_is_in_the_audit_log_with_who_made_it(admin_api, admin_user, sim):
    from core.models import AuditEntry

    join(admin_api, sim, "beijing", {"env": "prod"})
    admin_api.patch("/api/v1/clusters/beijing/labels/", {"set": {"tier": "gold"}}, format="json")
    admin_api.post("/api/v1/clusters/beijing/cordon/")
    admin_api.post("/api/v1/conventions/", {"key": "team/owner"}, format="json")
    admin_api.delete("/api/v1/clusters/beijing/")
    entries = [
        (e.username, e.action, e.object_kind, e.object_name) for e in AuditEntry.objects.order_by("id")
    ]
    who = admin_user.username
    assert entries == [
        (who, "Joined", "Cluster", "beijing"),
        (who, "LabelsChanged", "Cluster", "beijing"),
        (who, "TaintAdded", "Cluster", "beijing"),
        (who, "ConventionSaved", "LabelConvention", "team/owner"),
        (who, "Unjoined", "Cluster", "beijing"),
    ]
    assert "tier=gold" in AuditEntry.objects.get(action="LabelsChanged").summary
