"""Every page of the product, listed from the URL configuration so that a new route cannot be missed."""

from __future__ import annotations

from collections.abc import Iterator

from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from tests.integration.test_login_and_roles import concrete_paths

# Routes with arguments that are no page of their own: form posts, and fragments that pages load.
ACTIONS_AND_FRAGMENTS = {
    "clusters:panel",
    "clusters:labels",
    "clusters:label_row",
    "clusters:taints",
    "clusters:unjoin",
    "scheduling:workload-rebalance",
    "scheduling:workload-hold",
    "scheduling:workload-rollout-step",
    "scheduling:policy-rebalance",
    "observability:silence-expire",
    "observability:receiver-delete",
    "observability:network-panel",
    "scheduling:cluster_workloads",
    "scheduling:workload-across",
    "scheduling:pod-logs-follow",
    "scheduling:workload-drift",
    "scheduling:workload-reapply",
    "scheduling:search-cluster",
}


def routes_with_arguments(resolver=None, prefix: str = "", namespace: str = "") -> Iterator[str]:
    """The namespaced names of the page routes that take arguments (the APIs and the admin aside)."""
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        route = prefix + str(entry.pattern).removeprefix("^")
        if route.startswith(("api/", "k8s/", "admin/")):
            continue
        if isinstance(entry, URLResolver):
            inner = ":".join(part for part in (namespace, entry.namespace or "") if part)
            yield from routes_with_arguments(entry, route, inner)
        elif isinstance(entry, URLPattern) and "<" in route and entry.name:
            yield f"{namespace}:{entry.name}" if namespace else entry.name


def page_paths(client: Client, pages_with_arguments: dict[str, str]) -> list[str]:
    """The paths that answer a signed-in GET with a whole HTML page, and the pages given for the rest.

    Fails when a route with arguments is neither given nor known as an action or a fragment.
    """
    unlisted = set(routes_with_arguments()) - set(pages_with_arguments) - ACTIONS_AND_FRAGMENTS
    assert not unlisted, f"routes the page walk does not know: {sorted(unlisted)}"
    paths = []
    for path in concrete_paths():
        if path.startswith("/api/") and path != "/api/docs/":
            continue
        response = client.get(path)
        html = response.status_code == 200 and response["Content-Type"].startswith("text/html")
        if html and b"<html" in response.content:  # a whole page, not a fragment that pages load
            paths.append(path)
    return [*paths, *pages_with_arguments.values()]
