"""The permission matrix: every route and API operation, the request that exercises it, and its answers.

The expectations live in docs/permissions.md, one Markdown table per door; this module lists what the
code serves (the URL resolver, the OpenAPI schema, the Kubernetes API's kinds and verbs), sends each
request as each role and reads the answers back, and reads and writes that file.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from django.core.signals import request_finished
from django.db import close_old_connections, transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from drf_spectacular.generators import SchemaGenerator
from rest_framework.authtoken.models import Token

from kubeapi.kinds import served

TABLE = Path(__file__).resolve().parents[2] / "docs" / "permissions.md"
ROLES = ("anonymous", "viewer", "operator", "admin")
DOORS = {
    "pages": "Pages and page actions",
    "admin": "Django admin",
    "api": "REST API (OpenAPI operations)",
    "k8s": "Kubernetes API under /k8s",
}
# Routes whose table is another door's: the REST API by its OpenAPI operations, the Kubernetes API's
# object routes by kind and verb (one route serves every kind).
API_PREFIX = "api/v1/"
K8S_OBJECT_ROUTES = re.compile(r"^kubeapi:(core|named)-(namespaced-)?(collection|item|sub)$")
KUBE_VERB_METHOD = {
    "get": "GET",
    "list": "GET",
    "watch": "GET",
    "create": "POST",
    "update": "PUT",
    "patch": "PATCH",
    "delete": "DELETE",
    "deletecollection": "DELETE",
}


@dataclass(frozen=True)
class Probe:
    """One row of the matrix: what the table calls it and the request that exercises it."""

    door: str
    entry: str  # the route pattern, the OpenAPI path or group/version/plural
    method: str  # an HTTP method, or a Kubernetes verb for the k8s door
    path: str

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.door, self.entry, self.method)


@dataclass(frozen=True)
class World:
    """The names and ids that fill route arguments."""

    ids: dict[str, int]  # route prefix -> primary key, e.g. "workloads/" -> the template's pk


def route_entries(resolver=None, prefix: str = "", namespace: str = "") -> Iterator[tuple[str, str]]:
    """(route pattern, namespaced name) of every URL pattern, regex anchors removed."""
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        route = prefix + str(entry.pattern).removeprefix("^").removesuffix("$")
        if isinstance(entry, URLResolver):
            inner = ":".join(part for part in (namespace, entry.namespace or "") if part)
            yield from route_entries(entry, route, inner)
        elif isinstance(entry, URLPattern):
            name = entry.name or ""
            yield route, f"{namespace}:{name}" if namespace else name


# Routes whose <name> is a member cluster's; every other <name> is the world's workload or policy.
CLUSTER_NAMED_ROUTES = ("clusters/c/", "search/in/", "workloads/on/", "network/clusters/", "api/v1/clusters/")
REGEX_GROUP_VALUES = {
    "group": "cluster.karmada.io",
    "version": "v1alpha1",
    "name": "beijing",
    "app_label": "auth",
}


def fill(route: str, world: World) -> str:
    """A concrete path for a route pattern: names are the world's cluster and namespace, ids its rows."""
    pk = next((pk for prefix, pk in world.ids.items() if route.startswith(prefix)), 999999)
    path = re.sub(r"\(\?:/\(\?P<path>\.\*\)\)\?", "/version", route)  # the cluster proxy's tail
    path = re.sub(
        r"\(\?P<(\w+)>[^)]*\)", lambda m: REGEX_GROUP_VALUES.get(m[1], str(pk) if m[1] == "pk" else "1"), path
    )
    path = re.sub(r"<int:\w+>|<path:\w+>|<id>", lambda m: str(pk) if "int" in m[0] else "1", path)
    path = re.sub(r"<(?:str:)?namespace>", "default", path)
    cluster = route.startswith(CLUSTER_NAMED_ROUTES)
    path = re.sub(r"<(?:str:)?\w+>", "beijing" if cluster else "shop", path)
    return "/" + path.replace("\\.", ".")


def page_and_admin_probes(world: World) -> Iterator[Probe]:
    """GET and POST of every page route, GET of every admin route, GET of the Kubernetes API's own
    routes (discovery, OpenAPI, the cluster proxy); the REST API and the Kubernetes objects aside."""
    for route, name in route_entries():
        if route.startswith(API_PREFIX) or K8S_OBJECT_ROUTES.match(name):
            continue
        path, entry = fill(route, world), "/" + route
        if route.startswith("admin/"):
            yield Probe("admin", entry, "GET", path)
        elif route.startswith("k8s/"):
            yield Probe("k8s", entry, "GET", path)
        else:
            yield Probe("pages", entry, "GET", path)
            yield Probe("pages", entry, "POST", path)


def api_probes(world: World) -> Iterator[Probe]:
    """Every operation of the OpenAPI schema, its path parameters filled from the world."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    for entry, operations in schema["paths"].items():
        route = re.sub(r"\{(\w+)\}", r"<\1>", entry.removeprefix("/"))
        path = fill(route.replace("<pk>", "<int:pk>").replace("<id>", "<int:id>"), world)
        for method in operations:
            if method in ("get", "post", "put", "patch", "delete"):
                yield Probe("api", entry, method.upper(), path)


def kube_probes() -> Iterator[Probe]:
    """Every verb of every kind the Kubernetes API serves, on the world's object of that kind."""
    for kind in served():
        base = f"/k8s/api/{kind.version}" if not kind.group else f"/k8s/apis/{kind.group}/{kind.version}"
        collection = (
            f"{base}/namespaces/default/{kind.plural}" if kind.namespaced else f"{base}/{kind.plural}"
        )
        name = "beijing" if kind.plural == "clusters" else "shop"
        entry = f"{kind.group_version}/{kind.plural}"
        for verb in kind.verbs:
            if verb in ("list", "create", "deletecollection"):
                path = collection
            elif verb == "watch":
                path = f"{collection}?watch=1&timeoutSeconds=1"
            else:
                path = f"{collection}/{name}"
            yield Probe("k8s", entry, verb, path)


def all_probes(world: World) -> list[Probe]:
    return [*page_and_admin_probes(world), *api_probes(world), *kube_probes()]


class RoleClients:
    """Per role, a fresh client for each request (a sign-out must not sign the next request out): the
    session for pages and the admin, a `Token` for the REST API, a bearer token for the Kubernetes API."""

    def __init__(self, users: dict[str, object]) -> None:
        self.users = users
        self.keys = {role: Token.objects.get_or_create(user=user)[0].key for role, user in users.items()}

    def client(self, role: str, door: str) -> Client:
        user = self.users.get(role)
        if user is None:
            return Client()
        if door == "api":
            return Client(HTTP_AUTHORIZATION=f"Token {self.keys[role]}")
        if door == "k8s":
            return Client(HTTP_AUTHORIZATION=f"Bearer {self.keys[role]}")
        client = Client()
        client.force_login(user)
        return client


BODY_FREE = ("GET", "DELETE")


def send(client: Client, probe: Probe) -> object:
    """Send the probe's request in a transaction that is rolled back, so that no answer depends on what
    an earlier request changed. Writes carry an empty body (a merge patch of nothing for PATCH)."""
    method = KUBE_VERB_METHOD.get(probe.method, probe.method)
    call: Callable = getattr(client, method.lower())
    with transaction.atomic():
        if method in BODY_FREE:
            response = call(probe.path)
        elif method == "PATCH":
            kind = "application/merge-patch+json" if probe.door == "k8s" else "application/json"
            response = call(probe.path, data="{}", content_type=kind)
        elif probe.door == "pages":
            response = call(probe.path)
        else:
            response = call(probe.path, data="{}", content_type="application/json")
        if getattr(response, "streaming", False):
            # Closing fires request_finished; as Django's test client does, keep close_old_connections
            # off it, or it would close the connection (and with it this transaction) on PostgreSQL.
            request_finished.disconnect(close_old_connections)
            try:
                response.close()
            finally:
                request_finished.connect(close_old_connections)
        transaction.set_rollback(True)
    return response


def answer(response) -> str:
    """What the table writes: `login` for a redirect to the sign-in form (`admin-login` for the
    admin's), `2xx` for success, `3xx` for another redirect, the status code otherwise."""
    status = response.status_code
    if 300 <= status < 400:
        location = response.get("Location", "")
        if location.startswith(reverse("login")):
            return "login"
        if location.startswith(reverse("admin:login")):
            return "admin-login"
        return "3xx"
    if 200 <= status < 300:
        return "2xx"
    return str(status)


ROW = re.compile(r"^\| `(?P<entry>[^`]+)` \| (?P<method>\S+) \|(?P<cells>.*)\|\s*$")
HEADING = re.compile(r"^## (?P<title>.+)$")


def read_table(path: Path = TABLE) -> dict[tuple[str, str, str], dict[str, str]]:
    """{(door, entry, method): {role: answer}} from the Markdown file."""
    doors = {title: door for door, title in DOORS.items()}
    expected: dict[tuple[str, str, str], dict[str, str]] = {}
    door = ""
    for line in path.read_text().splitlines():
        heading = HEADING.match(line)
        if heading:
            door = doors.get(heading["title"], "")
            continue
        row = ROW.match(line)
        if row and door:
            cells = [cell.strip() for cell in row["cells"].split("|")]
            key = (door, row["entry"].replace("\\|", "|"), row["method"])
            expected[key] = dict(zip(ROLES, cells, strict=True))
    return expected


def format_row(probe: Probe, answers: dict[str, str]) -> str:
    entry = probe.entry.replace("|", "\\|")
    return f"| `{entry}` | {probe.method} | " + " | ".join(answers[role] for role in ROLES) + " |"


def disagreements(measured, expected) -> tuple[list[str], list[str], list[tuple[str, str, str]]]:
    """(rows the table lacks, ready to paste; answers that differ; rows for routes that are gone)."""
    missing = [format_row(probe, answers) for probe, answers in measured if probe.key not in expected]
    differing = [
        f"{probe.key}: table {expected[probe.key]}, server {answers}"
        for probe, answers in measured
        if probe.key in expected and expected[probe.key] != answers
    ]
    stale = sorted(set(expected) - {probe.key for probe, _ in measured})
    return missing, differing, stale
