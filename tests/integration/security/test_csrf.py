"""CSRF: every form and every state-changing endpoint refuses a signed-in POST that lacks the token, pages
and the session-authenticated API alike; the API with a token needs none."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urljoin

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from drf_spectacular.generators import SchemaGenerator
from rest_framework.authtoken.models import Token

from clusters.models import Cluster
from observability.models import Receiver
from scheduling.services import apply_yaml
from tests.support.pages import page_paths

pytestmark = pytest.mark.django_db

WORLD = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: shop, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec: {containers: [{name: shop, image: nginx:1.27}]}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: shop, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: shop}]
  placement: {clusterAffinity: {clusterNames: [beijing]}}
---
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterPropagationPolicy
metadata: {name: everywhere}
spec:
  resourceSelectors: [{apiVersion: v1, kind: Namespace, name: shop}]
"""
WRITE_METHODS = ("post", "put", "patch", "delete")


class StateChangingTargets(HTMLParser):
    """The (method, URL) of every POST form and every hx-post/put/patch/delete element of a page."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.page = page
        self.targets: set[tuple[str, str]] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "form" and (attributes.get("method") or "").lower() == "post":
            self.targets.add(("post", urljoin(self.page, attributes.get("action") or self.page)))
        for method in WRITE_METHODS:
            url = attributes.get(f"hx-{method}")
            if url:
                self.targets.add((method, urljoin(self.page, url)))


@pytest.fixture
def world(admin_user):
    Cluster.objects.create(name="beijing", api_endpoint="https://10.0.0.1:6443", labels={"env": "prod"})
    apply_yaml(WORLD)
    from scheduling.models import PropagationPolicy, ResourceTemplate

    receiver = Receiver.objects.create(name="ops", kind="webhook", url="https://hooks.example/ops")
    return {
        "clusters:detail": "/clusters/c/beijing/",
        "scheduling:workload": f"/workloads/{ResourceTemplate.objects.get(name='shop').pk}/",
        "scheduling:pod-logs": f"/workloads/{ResourceTemplate.objects.get(name='shop').pk}/logs/",
        "scheduling:workload-rollout": f"/workloads/{ResourceTemplate.objects.get(name='shop').pk}/rollout/",
        "scheduling:policy": f"/policies/{PropagationPolicy.objects.get(name='shop').pk}/",
        "scheduling:policy_edit": "/policies/edit/default/shop/",
        "scheduling:cluster_policy_edit": "/policies/edit-cluster/everywhere/",
        "observability:receiver-edit": f"/alerts/receivers/{receiver.pk}/",
    }


def signed_in(user, enforce_csrf: bool = True) -> Client:
    client = Client(enforce_csrf_checks=enforce_csrf)
    client.force_login(user)
    return client


def every_page_route(resolver=None, prefix: str = ""):
    """Every route outside the APIs and the admin, its arguments filled with the world's names (the
    Kubernetes API under k8s/ reads bearer tokens only, never the session cookie, so has no CSRF)."""
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        route = prefix + str(entry.pattern).removeprefix("^")
        if route.startswith(("api/", "k8s/", "admin/", "metrics", "healthz")):
            continue
        if isinstance(entry, URLResolver):
            yield from every_page_route(entry, route)
        elif isinstance(entry, URLPattern):
            route = re.sub(r"<int:\w+>", "1", route)
            yield "/" + re.sub(
                r"<(?:str:)?(\w+)>", lambda m: "default" if m[1] == "namespace" else "beijing", route
            )


def test_every_form_and_htmx_write_on_every_page_refuses_a_post_without_the_token(world, admin_user):
    browsing = signed_in(admin_user)
    targets: set[tuple[str, str]] = set()
    for path in page_paths(browsing, world):
        if path.startswith(("/admin/", "/api/")):
            continue
        parser = StateChangingTargets(path)
        parser.feed(browsing.get(path).content.decode())
        targets |= parser.targets
    assert len(targets) >= 15, targets  # the walk found the forms, not an empty set
    assert ("post", "/i18n/setlang/") in targets and ("post", "/accounts/logout/") in targets
    refused = {}
    for method, url in sorted(targets):
        response = getattr(signed_in(admin_user), method)(url)
        refused[(method, url)] = response.status_code == 403 and b"CSRF" in response.content
    assert all(refused.values()), [target for target, ok in refused.items() if not ok]


def test_every_route_refuses_a_signed_in_post_without_the_token(world, admin_user):
    routes = sorted(set(every_page_route()))
    assert "/clusters/c/beijing/unjoin/" in routes and "/policies/editor/apply/" in routes
    for path in routes:
        response = signed_in(admin_user).post(path)
        assert response.status_code == 403 and b"CSRF" in response.content, path
    assert Cluster.objects.filter(name="beijing").exists()


def test_the_sign_in_form_needs_the_token_too(client, viewer):
    from tests.conftest import PASSWORD

    response = Client(enforce_csrf_checks=True).post(
        "/accounts/login/", {"username": viewer.username, "password": PASSWORD}
    )
    assert response.status_code == 403


def write_operations():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    for path, operations in schema["paths"].items():
        for method in operations:
            if method in WRITE_METHODS:
                yield method, re.sub(r"\{(id|pk)\}", "999999", re.sub(r"\{name\}", "nowhere", path))


def test_the_session_authenticated_api_refuses_every_write_without_the_token(world, admin_user):
    operations = sorted(write_operations())
    assert len(operations) >= 20
    for method, path in operations:
        response = getattr(signed_in(admin_user), method)(path, data={}, content_type="application/json")
        assert response.status_code == 403, (method, path)
        assert "CSRF" in response.json()["detail"], (method, path)


def test_the_token_authenticated_api_needs_no_csrf_token(world, admin_user):
    token = Token.objects.create(user=admin_user)
    client = Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION=f"Token {token.key}")
    for method, path in sorted(write_operations()):
        if path == "/api/v1/auth/token/":
            continue
        response = getattr(client, method)(path, data={}, content_type="application/json")
        assert response.status_code != 403, (method, path, response.content)
