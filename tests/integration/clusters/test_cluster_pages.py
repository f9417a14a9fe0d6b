"""The cluster pages: list with selector filter and sort, text export, label and taint editing, health
panel numbers as the member reports them, the fleet tiles, and the join form."""

import pytest
import yaml
from django.core.management import call_command
from django.urls import reverse

from clusters.collector import collect_cluster
from clusters.models import Cluster
from membersim import ClusterSpec

pytestmark = pytest.mark.django_db


@pytest.fixture
def fleet_sim(simulate, member_kubeconfig):
    sim = simulate(
        ClusterSpec(name="beijing", nodes=5, region="cn-north", zones=["cn-north-a"], provider="aliyun"),
        ClusterSpec(name="shanghai", nodes=3, region="cn-east"),
    )
    path = member_kubeconfig(sim)
    call_command(
        "join",
        "beijing",
        kubeconfig=str(path),
        context="beijing",
        label=["env=prod", "location/region=cn-north"],
    )
    call_command("join", "shanghai", kubeconfig=str(path), context="shanghai", label=["env=dev"])
    return sim


def signed_in(client, user):
    client.force_login(user)
    return client


def test_the_list_shows_every_cluster_with_labels_and_nodes(client, viewer, fleet_sim):
    page = signed_in(client, viewer).get(reverse("clusters:list")).content.decode()
    assert 'data-cluster="beijing"' in page and 'data-cluster="shanghai"' in page
    assert "env=prod" in page and "location/region=cn-north" in page
    assert "5/5" in page and "v1.31.4" in page
    assert "2 clusters · 2 Ready" in page


def test_the_filter_returns_just_the_table_fragment_for_htmx(client, viewer, fleet_sim):
    response = signed_in(client, viewer).get(
        reverse("clusters:list"),
        {"selector": "env in (prod,staging)"},
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="cluster-table",
    )
    body = response.content.decode()
    assert "<html" not in body
    assert 'data-cluster="beijing"' in body and 'data-cluster="shanghai"' not in body


def test_a_bad_selector_is_reported_inline(client, viewer, fleet_sim):
    body = (
        signed_in(client, viewer).get(reverse("clusters:list"), {"selector": "env in (a=b)"}).content.decode()
    )
    assert 'id="selector-error"' in body and "expected a value" in body
    assert 'data-cluster="beijing"' not in body


def test_no_match_and_no_clusters_have_their_own_empty_states(client, viewer, fleet_sim):
    body = signed_in(client, viewer).get(reverse("clusters:list"), {"selector": "env=qa"}).content.decode()
    assert "No cluster matches" in body
    Cluster.objects.all().delete()
    body = client.get(reverse("clusters:list")).content.decode()
    assert "No clusters yet." in body and "manage.py join" in body


def test_sorting_by_a_column_and_reversing_it(client, viewer, fleet_sim):
    signed_in(client, viewer)
    body = client.get(reverse("clusters:list"), {"sort": "-nodes"}).content.decode()
    assert body.index('data-cluster="beijing"') < body.index('data-cluster="shanghai"')
    body = client.get(reverse("clusters:list"), {"sort": "nodes"}).content.decode()
    assert body.index('data-cluster="shanghai"') < body.index('data-cluster="beijing"')


def test_the_list_needs_a_bounded_number_of_queries(client, viewer, django_assert_max_num_queries):
    for index in range(60):
        Cluster.objects.create(
            name=f"c{index:02d}", api_endpoint="https://h", labels={"env": "prod", "n": str(index)}
        )
    signed_in(client, viewer)
    client.get(reverse("clusters:list"))
    with django_assert_max_num_queries(10):
        response = client.get(reverse("clusters:list"), {"selector": "env=prod"})
    assert response.content.decode().count("data-cluster=") == 50
    assert "Page 1 of 2" in response.content.decode()


def test_the_text_export_looks_like_kubectl_show_labels(client, viewer, fleet_sim):
    text = signed_in(client, viewer).get(reverse("clusters:export"), {"selector": "env"}).content.decode()
    lines = text.splitlines()
    assert lines[0].split() == ["NAME", "VERSION", "MODE", "READY", "AGE", "LABELS"]
    assert lines[1].split()[:4] == ["beijing", "v1.31.4", "Push", "True"]
    assert lines[1].split()[-1] == "env=prod,location/region=cn-north"
    assert lines[2].split()[-1] == "env=dev"


def test_an_operator_edits_labels_in_place_and_a_stale_form_gets_a_409(client, operator, fleet_sim):
    signed_in(client, operator)
    cluster = Cluster.objects.get(name="beijing")
    url = reverse("clusters:labels", args=["beijing"])
    form = {
        "resource_version": cluster.resource_version,
        "key": ["env", "tier", ""],
        "value": ["staging", "gold", ""],
    }
    response = client.post(url, form, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert Cluster.objects.get(name="beijing").labels == {"env": "staging", "tier": "gold"}
    stale = client.post(url, {**form, "key": ["env"], "value": ["dev"]}, HTTP_HX_REQUEST="true")
    assert stale.status_code == 409
    assert "changed by someone else" in stale.content.decode()
    assert Cluster.objects.get(name="beijing").labels == {"env": "staging", "tier": "gold"}


def test_label_syntax_errors_are_shown_next_to_the_row(client, operator, fleet_sim):
    signed_in(client, operator)
    cluster = Cluster.objects.get(name="beijing")
    form = {"resource_version": cluster.resource_version, "key": ["bad key"], "value": ["x"]}
    response = client.post(reverse("clusters:labels", args=["beijing"]), form, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert "letters, digits" in response.content.decode()


def test_viewers_cannot_edit_labels_and_operators_cannot_taint(client, viewer, operator, fleet_sim):
    signed_in(client, viewer)
    assert (
        client.post(reverse("clusters:labels", args=["beijing"]), {"key": ["a"], "value": ["b"]}).status_code
        == 403
    )
    signed_in(client, operator)
    assert client.post(reverse("clusters:taints", args=["beijing"]), {"action": "cordon"}).status_code == 403


def test_an_admin_adds_removes_taints_and_cordons(client, admin_user, fleet_sim):
    signed_in(client, admin_user)
    url = reverse("clusters:taints", args=["beijing"])
    client.post(
        url,
        {"action": "add", "key": "dedicated", "value": "gpu", "effect": "NoSchedule"},
        HTTP_HX_REQUEST="true",
    )
    client.post(url, {"action": "cordon"}, HTTP_HX_REQUEST="true")
    keys = [t["key"] for t in Cluster.objects.get(name="beijing").taints]
    assert keys == ["dedicated", "cluster.karmada.io/unschedulable"]
    response = client.post(url, {"action": "add", "key": "x", "effect": "Never"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    client.post(url, {"action": "remove", "key": "dedicated", "effect": "NoSchedule"}, HTTP_HX_REQUEST="true")
    client.post(url, {"action": "uncordon"}, HTTP_HX_REQUEST="true")
    assert Cluster.objects.get(name="beijing").taints == []


def test_the_health_panel_shows_what_the_member_cluster_reports(client, viewer, fleet_sim):
    fleet_sim.control("beijing", "node-notready", "beijing-node-3")
    collect_cluster(Cluster.objects.get(name="beijing").pk)
    body = signed_in(client, viewer).get(reverse("clusters:detail", args=["beijing"])).content.decode()
    assert 'data-testid="nodes"><a href="#nodes-title">4/5</a><' in body
    assert "40 allocatable" in body and "160Gi allocatable" in body
    for chart in ("fig-ready", "fig-utilisation", "fig-nodes", "fig-latency"):
        assert f'data-plotly="#{chart}"' in body and f'id="{chart}"' in body
    assert "10.244.0.0/24" in body and "apps/v1" in body
    table = body[body.index('data-testid="node-table"') :]
    assert table.count("<tr><td>beijing-node-") == 5 and "cn-north-a" in table
    fragment = client.get(reverse("clusters:panel", args=["beijing"])).content.decode()
    assert fragment.startswith('\n<div id="health-panel"') or 'id="health-panel"' in fragment[:200]


def test_the_fleet_page_puts_the_worst_cluster_first_with_its_reason(client, viewer, fleet_sim):
    fleet_sim.control("shanghai", "errors")
    collect_cluster(Cluster.objects.get(name="shanghai").pk)
    body = signed_in(client, viewer).get(reverse("clusters:fleet")).content.decode()
    assert body.index('data-cluster="shanghai"') < body.index('data-cluster="beijing"')
    assert "not ready for" in body and "cluster.karmada.io/not-ready:NoSchedule added" in body


def test_the_join_form_tests_the_connection_then_joins(client, admin_user, simulate):
    sim = simulate(ClusterSpec(name="guangzhou", nodes=2))
    text = yaml.safe_dump(sim.kubeconfig())
    signed_in(client, admin_user)
    contexts = client.post(reverse("clusters:join_contexts"), {"kubeconfig": text}).content.decode()
    assert '<option value="guangzhou" selected>' in contexts
    tested = client.post(
        reverse("clusters:join_test"), {"name": "guangzhou", "kubeconfig": text}
    ).content.decode()
    assert "v1.31.4" in tested and "2 of 2 Ready" in tested
    assert not Cluster.objects.exists()
    response = client.post(
        reverse("clusters:join"), {"name": "guangzhou", "kubeconfig": text, "labels": "env=prod"}
    )
    assert response.status_code == 302
    assert Cluster.objects.get().labels == {"env": "prod"}


def test_the_join_form_shows_one_clear_message_and_saves_nothing(client, admin_user, simulate):
    sim = simulate(ClusterSpec(name="guangzhou", nodes=2))
    config = sim.kubeconfig()
    config["users"][0]["user"]["token"] = "forged"
    signed_in(client, admin_user)
    response = client.post(
        reverse("clusters:join"), {"name": "guangzhou", "kubeconfig": yaml.safe_dump(config)}
    )
    assert response.status_code == 200
    assert "rejected the credentials" in response.content.decode()
    assert not Cluster.objects.exists()
    assert client.get(reverse("clusters:join")).status_code == 200


def test_only_admins_may_open_the_join_form(client, operator):
    assert signed_in(client, operator).get(reverse("clusters:join")).status_code == 403


def test_bulk_label_edit_from_the_list(client, operator, fleet_sim):
    signed_in(client, operator)
    response = client.post(
        reverse("clusters:bulk_labels"),
        {"cluster": ["beijing", "shanghai"], "set_labels": "tier=gold", "remove_keys": "env"},
    )
    assert response.status_code == 302
    assert dict(Cluster.objects.values_list("name", "labels")) == {
        "beijing": {"location/region": "cn-north", "tier": "gold"},
        "shanghai": {"tier": "gold"},
    }


def test_the_cluster_pages_speak_simplified_chinese(client, admin_user):
    Cluster.objects.create(name="beijing", api_endpoint="https://h", ready="False", labels={"env": "prod"})
    signed_in(client, admin_user)
    client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    body = client.get(reverse("clusters:list")).content.decode()
    assert "按标签选择器筛选" in body and "加入集群" in body and "未就绪" in body
    assert "1 个集群 · 0 个就绪 · 1 个未就绪" in body
    assert "缺少必需标签 location/region" in body


def test_an_uploaded_kubeconfig_lists_its_contexts_and_joins(client, admin_user, simulate):
    from django.core.files.uploadedfile import SimpleUploadedFile

    sim = simulate(ClusterSpec(name="guangzhou", nodes=1), ClusterSpec(name="shenzhen", nodes=1))
    text = yaml.safe_dump(sim.kubeconfig()).encode()
    signed_in(client, admin_user)
    upload = SimpleUploadedFile("config", text)
    picker = client.post(reverse("clusters:join_contexts"), {"kubeconfig_file": upload}).content.decode()
    assert '<option value="guangzhou" selected>' in picker and '<option value="shenzhen">' in picker
    form = {"name": "shenzhen", "context": "shenzhen", "kubeconfig_file": SimpleUploadedFile("config", text)}
    assert client.post(reverse("clusters:join"), form).status_code == 302
    assert Cluster.objects.get().api_endpoint == sim.endpoint("shenzhen")
