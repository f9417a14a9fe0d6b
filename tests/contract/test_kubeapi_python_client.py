"""The official Python client against /k8s: DynamicClient verbs, and a GitOps-style cache that lists every
listable resource in pages of 500 with continue tokens, then watches each from its list's resourceVersion."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from kubernetes import config
from kubernetes.dynamic import DynamicClient
from kubernetes.dynamic.resource import ResourceList

from clusters import services as cluster_services
from clusters.models import Cluster
from core.roles import OPERATOR
from kubeapi import versions
from scheduling.models import PropagationPolicy, ResourceTemplate
from tests.conftest import make_user
from tests.contract.kubeapi_server import served

pytestmark = [
    pytest.mark.contract,
    pytest.mark.django_db(transaction=True),
    pytest.mark.xdist_group("kubeapi-python-client"),
]

PAGE = 500
CONFIG_MAPS = 620  # more than one page, so the cache must follow a continue token


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from served(tmp_path_factory, "kubeapi-python")


@pytest.fixture
def dynamic(server):
    kubeconfig = server.kubectl_as(make_user("olga-operator", OPERATOR)).kubeconfig
    api = config.new_client_from_config(config_file=str(kubeconfig))
    yield DynamicClient(api)
    api.close()


def test_dynamic_client_creates_reads_patches_and_deletes_a_policy_stored_in_the_database(dynamic):
    policies = dynamic.resources.get(api_version="policy.karmada.io/v1alpha1", kind="PropagationPolicy")
    body = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
            "placement": {"clusterAffinity": {"clusterNames": ["beijing"]}},
        },
    }
    policies.create(body=body, namespace="default")
    stored = PropagationPolicy.objects.get(namespace="default", name="web")
    assert stored.spec["placement"]["clusterAffinity"]["clusterNames"] == ["beijing"]
    got = policies.get(name="web", namespace="default")
    assert got.spec.placement.clusterAffinity.clusterNames == ["beijing"]
    moved = {"spec": {"placement": {"clusterAffinity": {"clusterNames": ["shanghai"]}}}}
    policies.patch(name="web", namespace="default", body=moved, content_type="application/merge-patch+json")
    stored.refresh_from_db()
    assert stored.spec["placement"]["clusterAffinity"]["clusterNames"] == ["shanghai"]
    policies.delete(name="web", namespace="default")
    assert not PropagationPolicy.objects.filter(namespace="default", name="web").exists()


def listable(dynamic) -> list:
    """Every resource of the preferred versions that can be listed and watched, as Argo CD's cache takes."""
    found = []
    for resource in dynamic.resources.search():
        if isinstance(resource, ResourceList):  # the client's own *List view of a resource
            continue
        verbs = set(getattr(resource, "verbs", None) or [])
        if {"list", "watch"} <= verbs and not getattr(resource, "subresource", None) and resource.preferred:
            found.append(resource)
    return found


def cache_list(dynamic, resource) -> tuple[list, str]:
    """Every object of one resource in pages of PAGE, following continue; the list's resourceVersion."""
    items, token, version = [], None, ""
    while True:
        page = (
            dynamic.get(resource, limit=PAGE, _continue=token) if token else dynamic.get(resource, limit=PAGE)
        )
        assert len(page.items) <= PAGE
        items += list(page.items)
        version = page.metadata.resourceVersion
        token = page.metadata.get("continue")
        if not token:
            return items, version


def watch_for_a_second(dynamic, resource, versions: dict) -> list:
    return list(dynamic.watch(resource, resource_version=versions[resource.kind], timeout=1))


def test_a_gitops_cache_lists_everything_in_pages_then_watches_each_resource_from_its_version(dynamic):
    ResourceTemplate.objects.bulk_create(
        ResourceTemplate(
            api_version="v1",
            api_group="",
            kind="ConfigMap",
            namespace="default",
            name=f"cm-{i:04d}",
            manifest={"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"cm-{i:04d}"}},
        )
        for i in range(CONFIG_MAPS)
    )
    Cluster.objects.create(name="beijing", api_endpoint="https://beijing.example:6443", labels={"env": "dev"})
    resources = listable(dynamic)
    kinds = {r.kind for r in resources}
    assert {"Cluster", "PropagationPolicy", "ResourceBinding", "ConfigMap", "Deployment"} <= kinds
    versions = {}
    for resource in resources:
        items, versions[resource.kind] = cache_list(dynamic, resource)
        if resource.kind == "ConfigMap":
            assert len(items) == ResourceTemplate.objects.filter(kind="ConfigMap").count() == CONFIG_MAPS
        if resource.kind == "Cluster":
            assert [item.metadata.name for item in items] == ["beijing"]
    # a change after the lists, made through another door, reaches the watch that starts from them
    beijing = Cluster.objects.get(name="beijing")
    cluster_services.set_labels(beijing, {"env": "prod"}, beijing.resource_version)
    with ThreadPoolExecutor(max_workers=len(resources)) as pool:  # a cache opens its watches together
        watched = pool.map(lambda r: watch_for_a_second(dynamic, r, versions), resources)
        seen = {}
        for resource, events in zip(resources, watched, strict=True):
            assert all(event["type"] != "ERROR" for event in events), (resource.kind, events)
            seen[resource.kind] = [(e["type"], e["object"].metadata.name) for e in events]
    assert ("MODIFIED", "beijing") in seen["Cluster"]
    assert seen["ConfigMap"] == []  # nothing changed since the list: the watch starts where it ended


def test_a_quiet_watch_answers_at_once_so_rollout_status_can_judge_what_it_listed(server):
    """kubectl rollout status lists the Deployment, then waits for its watch's response before it judges
    what the list returned: the status and headers go out when the watch opens, not with its first
    event or bookmark (15 s later on a quiet kind)."""
    from rest_framework.authtoken.models import Token

    token, _ = Token.objects.get_or_create(user=make_user("olga-operator", OPERATOR))
    query = f"watch=true&allowWatchBookmarks=true&resourceVersion={versions.current()}&timeoutSeconds=5"
    started = time.monotonic()
    with requests.get(
        f"{server.url}/apis/apps/v1/namespaces/default/deployments?{query}",
        headers={"Authorization": f"Bearer {token.key}"},
        verify=str(server.ca),
        stream=True,
        timeout=10,
    ) as response:
        answered = time.monotonic() - started
        assert response.status_code == 200
        assert response.headers["Content-Type"] == "application/json"
    assert answered < 2, f"the watch's response came {answered:.1f} s after it was asked for"
