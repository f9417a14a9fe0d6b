"""The workloads placed on a cluster, as its health panel embeds them: desired replicas from the binding's
spec.clusters, ready ones from the Work's collected status, each linked to its workload page."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from clusters.models import Cluster
from scheduling.models import ResourceBinding, ResourceTemplate, Work
from scheduling.placements import list_placements

pytestmark = pytest.mark.django_db


def workload(name, targets, namespace="shop", replicas=None, kind="Deployment"):
    template = ResourceTemplate.objects.create(
        api_version="apps/v1",
        api_group="apps",
        kind=kind,
        namespace=namespace,
        name=name,
        manifest={"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": name, "namespace": namespace}},
    )
    total = sum(targets.values()) if replicas is None else replicas
    return ResourceBinding.objects.create(
        namespace=namespace,
        name=f"{name}-{kind.lower()}",
        template=template,
        replicas=total,
        clusters=[{"name": c, "replicas": n} for c, n in targets.items()],
    )


def work(binding, cluster, ready=None, health="Healthy", applied=True):
    return Work.objects.create(
        binding=binding,
        cluster_name=cluster,
        namespace=f"karmada-es-{cluster}",
        name=f"{binding.name}-{cluster}",
        manifest={},
        desired_hash="h1",
        applied_hash="h1" if applied else "",
        applied=applied,
        applied_message="" if applied else "the member refused it",
        health=health,
        status={} if ready is None else {"readyReplicas": ready},
    )


@pytest.fixture
def placed():
    for name in ("beijing", "beijing2", "shanghai"):
        Cluster.objects.create(name=name, api_endpoint="https://h", ready="True")
    web = workload("web", {"beijing": 8, "shanghai": 3})
    work(web, "beijing", ready=7)
    work(web, "shanghai", ready=3)
    fresh = workload("api", {"beijing": 2})  # scheduled, no Work yet
    other = workload("batch", {"beijing2": 4})  # a cluster whose name starts like ours
    work(other, "beijing2", ready=4)
    leaving = workload("old", {"shanghai": 2})  # evicted from beijing; its copy is still there
    work(leaving, "beijing", ready=2, health="Unknown")
    return {"web": web, "api": fresh, "batch": other, "old": leaving}


def test_placements_take_desired_from_the_binding_and_ready_from_the_work(placed):
    rows = {
        p.template.name: (p.desired, p.ready, p.health, p.applied, p.targeted)
        for p in list_placements("beijing")
    }
    assert rows == {
        "api": (2, None, "Unknown", False, True),
        "old": (0, 2, "Unknown", True, False),
        "web": (8, 7, "Healthy", True, True),
    }


def test_a_cluster_whose_name_extends_another_holds_only_its_own_workloads(placed):
    assert [p.template.name for p in list_placements("beijing2")] == ["batch"]


def test_the_health_panel_loads_the_workloads_placed_on_its_cluster(client, viewer, placed):
    client.force_login(viewer)
    body = client.get(reverse("clusters:detail", args=["beijing"])).content.decode()
    assert f'hx-get="{reverse("scheduling:cluster_workloads", args=["beijing"])}"' in body


def test_the_workloads_on_a_cluster_list_replicas_and_links(client, viewer, placed):
    client.force_login(viewer)
    fragment = client.get(
        reverse("scheduling:cluster_workloads", args=["beijing"]),
        headers={"HX-Request": "true", "HX-Target": "cluster-workloads-section"},
    ).content.decode()
    assert "<html" not in fragment and 'id="workload-filter"' in fragment
    body = client.get(reverse("scheduling:cluster_workloads", args=["beijing"])).content.decode()
    assert "<html" in body
    web_page = reverse("scheduling:workload", args=[placed["web"].template.pk])
    assert f'href="{web_page}#chain-binding"' in body and f'href="{web_page}#chain-works"' in body
    assert 'data-workload="shop/web"' in body and 'data-workload="shop/batch"' not in body
    assert "3 workloads · 10 replicas desired · 9 ready" in body
    assert "leaving" in body


def test_the_workload_list_filters_and_sorts_as_an_htmx_fragment(client, viewer, placed):
    client.force_login(viewer)
    url = reverse("scheduling:cluster_workloads", args=["beijing"])
    headers = {"HX-Request": "true", "HX-Target": "cluster-workloads"}
    body = client.get(url, {"wq": "web"}, headers=headers).content.decode()
    assert (
        "<html" not in body and 'data-workload="shop/web"' in body and 'data-workload="shop/api"' not in body
    )
    body = client.get(url, {"wsort": "-desired"}, headers=headers).content.decode()
    assert (
        body.index('data-workload="shop/web"')
        < body.index('data-workload="shop/api"')
        < body.index('data-workload="shop/old"')
    )
    body = client.get(url, {"wq": "nothing-like-this"}, headers=headers).content.decode()
    assert 'data-testid="placements-empty"' in body and "Clear the filter" in body


def test_a_cluster_without_workloads_says_how_to_place_one(client, operator):
    Cluster.objects.create(name="empty", api_endpoint="https://h")
    client.force_login(operator)
    body = client.get(reverse("scheduling:cluster_workloads", args=["empty"])).content.decode()
    assert "No workload is placed on this cluster yet." in body
    assert f'href="{reverse("scheduling:policy_new")}"' in body


def test_the_workload_list_needs_the_same_queries_for_many_workloads(client, viewer, placed):
    client.force_login(viewer)
    url = reverse("scheduling:cluster_workloads", args=["beijing"])
    headers = {"HX-Request": "true", "HX-Target": "cluster-workloads"}
    with CaptureQueriesContext(connection) as few:
        client.get(url, headers=headers)
    for index in range(30):
        binding = workload(f"w{index:02d}", {"beijing": 1})
        work(binding, "beijing", ready=1)
    with CaptureQueriesContext(connection) as many:
        body = client.get(url, headers=headers).content.decode()
    assert body.count("data-workload=") == 33
    assert len(many.captured_queries) == len(few.captured_queries) <= 8


def test_every_number_in_the_list_and_the_panel_links_to_where_it_comes_from(client, viewer):
    Cluster.objects.create(
        name="beijing",
        api_endpoint="https://h",
        ready="True",
        nodes_total=5,
        nodes_ready=5,
        cpu_allocatable=40000,
        cpu_allocated=10000,
        memory_allocatable=2**36,
        memory_allocated=2**34,
    )
    client.force_login(viewer)
    detail = reverse("clusters:detail", args=["beijing"])
    body = client.get(reverse("clusters:list")).content.decode()
    assert f'href="{detail}#nodes-title"' in body
    assert body.count(f'href="{detail}#chart-fig-utilisation"') == 2
    body = client.get(detail).content.decode()
    assert (
        'id="nodes-title"' in body and 'id="chart-fig-utilisation"' in body and 'id="chart-fig-nodes"' in body
    )
    for anchor in ("#nodes-title", "#chart-fig-nodes", "#chart-fig-utilisation"):
        assert f'href="{anchor}"' in body
