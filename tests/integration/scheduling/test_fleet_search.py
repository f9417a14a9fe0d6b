"""Fleet search against simulated members: by label, kind, namespace and name in every cluster, managed
or not (and from which template), a hanging cluster named as timed out, no Secret data shown."""

from __future__ import annotations

import time

import pytest

from clusters.k8s import objects
from scheduling.members.search import SearchQuery, parse_box
from scheduling.models import ResourceTemplate
from scheduling.services import apply_yaml
from tests.integration.scheduling.test_across_clusters import TWO_CONTAINERS
from tests.support.members import converge

LOOKALIKE = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "shop-legacy", "namespace": "legacy", "labels": {"app": "shop"}},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "shop"}},
        "template": {
            "metadata": {"labels": {"app": "shop"}},
            "spec": {"containers": [{"name": "c", "image": "shop:0.9"}]},
        },
    },
}
SECRET = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "shop-db", "namespace": "default", "labels": {"app": "shop"}},
    "data": {"password": "aHVudGVyMg=="},
}


@pytest.fixture
def fleet(members):
    apply_yaml(TWO_CONTAINERS)
    converge(1)
    conn = members["cluster-03"].connection()
    objects.apply_object(conn, LOOKALIKE)
    objects.apply_object(conn, SECRET)
    return members


def hits(answer, kind="Deployment"):
    return {
        (r["cluster"], r["namespace"], r["name"]): r for r in answer.json()["results"] if r["kind"] == kind
    }


def test_a_label_finds_managed_copies_with_their_template_and_objects_nobody_propagated(
    fleet, api_as, viewer
):
    answer = api_as(viewer).get("/api/v1/search/", {"selector": "app=shop", "kind": "deploy"})
    assert answer.status_code == 200, answer.content
    found = hits(answer)
    assert set(found) == {
        ("cluster-01", "default", "shop"),
        ("cluster-02", "default", "shop"),
        ("cluster-03", "legacy", "shop-legacy"),
    }
    template = ResourceTemplate.objects.get(name="shop")
    assert found[("cluster-01", "default", "shop")]["managed"] is True
    assert found[("cluster-01", "default", "shop")]["template"] == {
        "id": template.pk,
        "kind": "Deployment",
        "namespace": "default",
        "name": "shop",
    }
    assert found[("cluster-03", "legacy", "shop-legacy")]["managed"] is False
    assert found[("cluster-03", "legacy", "shop-legacy")]["template"] is None
    assert answer.json()["answered"] == ["cluster-01", "cluster-02", "cluster-03"]
    assert answer.json()["timedOut"] == []


def test_without_a_kind_pods_and_services_count_and_the_box_reads_prefixes(fleet, api_as, viewer):
    answer = api_as(viewer).get("/api/v1/search/", {"q": "app=shop"})
    kinds = {r["kind"] for r in answer.json()["results"]}
    assert {"Deployment", "Pod"} <= kinds
    named = api_as(viewer).get("/api/v1/search/", {"q": "kind:Deployment ns:legacy legacy"})
    assert [(r["cluster"], r["name"]) for r in named.json()["results"]] == [("cluster-03", "shop-legacy")]


def test_a_hanging_cluster_is_named_as_timed_out_and_the_others_answer_in_time(
    fleet, member_sim, api_as, viewer
):
    member_sim.control("cluster-02", "down")
    started = time.monotonic()
    answer = api_as(viewer).get("/api/v1/search/", {"selector": "app=shop", "kind": "Deployment"})
    assert time.monotonic() - started < 3.0
    assert answer.json()["timedOut"] == ["cluster-02"]
    assert {key[0] for key in hits(answer)} == {"cluster-01", "cluster-03"}


def test_a_secret_is_found_by_its_labels_but_its_data_never_shows(fleet, api_as, viewer, client):
    answer = api_as(viewer).get("/api/v1/search/", {"kind": "secrets", "selector": "app=shop"})
    assert list(hits(answer, "Secret")) == [("cluster-03", "default", "shop-db")]
    assert "aHVudGVyMg" not in answer.content.decode()
    client.force_login(viewer)
    page = client.get(
        "/search/object/",
        {"cluster": "cluster-03", "kind": "Secret", "namespace": "default", "name": "shop-db"},
    )
    assert (
        page.status_code == 200
        and "aHVudGVyMg" not in page.content.decode()
        and "(hidden)" in page.content.decode()
    )


@pytest.mark.parametrize(
    ("params", "field"), [({"selector": "app in (shop"}, "selector"), ({}, ""), ({"q": "a=b,,"}, "selector")]
)
def test_a_bad_or_empty_search_is_a_400_naming_the_field(members, api_as, viewer, params, field):
    answer = api_as(viewer).get("/api/v1/search/", params)
    assert answer.status_code == 400 and answer.json()["field"] == field


def test_the_page_asks_each_cluster_in_a_fragment_of_its_own(fleet, member_sim, client, viewer):
    client.force_login(viewer)
    page = client.get("/search/", {"q": "app=shop"}).content.decode()
    assert page.count('data-state="asking"') == 3 and "/search/in/cluster-01/?selector=app%3Dshop" in page
    one = client.get("/search/in/cluster-03/", {"selector": "app=shop", "kind": "deploy"}).content.decode()
    assert 'data-state="answered"' in one and 'data-hit="Deployment/legacy/shop-legacy"' in one
    member_sim.control("cluster-02", "down")
    late = client.get("/search/in/cluster-02/", {"selector": "app=shop"}).content.decode()
    assert 'data-state="timed-out"' in late and 'hx-swap-oob="beforeend:#search-timed-out"' in late


def test_the_header_box_splits_kind_namespace_name_and_labels():
    assert parse_box("app=shop") == SearchQuery(selector="app=shop")
    assert parse_box("kind:deploy ns:prod shop tier in (web,api)") == SearchQuery(
        kind="deploy", namespace="prod", name="shop", selector="tier in (web,api)"
    )
    assert parse_box("!canary") == SearchQuery(selector="!canary")
