"""The permission matrix in docs/permissions.md is what the server does: every route, REST operation and
Kubernetes verb, as anonymous, viewer, operator and admin; a route the table does not list fails.

After a deliberate change, `PERMISSIONS_WRITE=1 pytest -n 0` on this file rewrites the table from the
server's answers; review its diff like code.
"""

from __future__ import annotations

import os
from datetime import timedelta

import pytest
from django.utils import timezone

from clusters.models import Cluster, LabelConvention
from observability.models import Alert, Delivery, Receiver, Silence
from scheduling.models import PropagationPolicy, ResourceTemplate
from scheduling.services import apply_yaml
from tests.support import permission_matrix as matrix

pytestmark = pytest.mark.django_db

WORLD = """
apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
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
apiVersion: v1
kind: ConfigMap
metadata: {name: shop, namespace: default}
data: {colour: blue}
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
metadata: {name: shop}
spec:
  resourceSelectors: [{apiVersion: v1, kind: Namespace, name: shop}]
"""

INTRO = """# Permission matrix

What the server answers each role on every route, every REST API operation and every Kubernetes API
verb. The test `tests/integration/security/test_permission_matrix.py` lists what the code serves (the URL
resolver, the OpenAPI schema, the Kubernetes API's kinds), sends each request as each role against a
small world (cluster `beijing`, workload and policies `shop`) and asserts this table, so a new route
without a row fails and the table cannot drift from the server.

How to read a cell:

- `login`: a redirect to the sign-in form (`admin-login`: to the admin's own sign-in form).
- `2xx`: done. `3xx`: done, then redirected elsewhere (a form that went through).
- `401`: no credentials (the REST API asks for a token; the Kubernetes API for a bearer token).
- `403`: signed in, but the role does not allow it.
- Another code is the answer once the role was allowed: `400`/`422` an empty body refused field by
  field, `404` nothing of that name, `405` a method the route does not take.

Requests: pages use the session cookie, the REST API a `Token`, the Kubernetes API a bearer token;
writes carry an empty body (`{}` for PATCH, a no-op merge patch), and each runs in a transaction that is
rolled back so that no answer depends on an earlier one. Roles: viewers read, operators change
workloads and policies, admins also join and remove clusters (see README, Roles).
"""


@pytest.fixture
def world(viewer, operator, admin_user):
    Cluster.objects.create(name="beijing", api_endpoint="https://127.0.0.1:9", labels={"env": "prod"})
    apply_yaml(WORLD)
    receiver = Receiver.objects.create(name="ops", kind="webhook", url="https://hooks.example/ops")
    now = timezone.now()
    silence = Silence.objects.create(
        matchers={"cluster": "beijing"},
        comment="maintenance",
        created_by="ada",
        starts_at=now,
        ends_at=now + timedelta(hours=1),
    )
    alert = Alert.objects.create(
        rule="ClusterNotReady",
        fingerprint="f" * 32,
        labels={"cluster": "beijing"},
        active_since=now,
        last_evaluated=now,
    )
    delivery = Delivery.objects.create(alert=alert, receiver=receiver, status="firing")
    convention = LabelConvention.objects.get_or_create(key="env")[0]
    template = ResourceTemplate.objects.get(kind="Deployment", name="shop").pk
    policy = PropagationPolicy.objects.get(name="shop", namespace="default").pk
    ids = {
        "workloads/": template,
        "api/v1/workloads/": template,
        "policies/": policy,
        "api/v1/policies/": policy,
        "alerts/silences/": silence.pk,
        "api/v1/silences/": silence.pk,
        "alerts/receivers/": receiver.pk,
        "api/v1/alert-receivers/": receiver.pk,
        "api/v1/alerts/": alert.pk,
        "api/v1/alert-deliveries/": delivery.pk,
        "api/v1/conventions/": convention.pk,
    }
    users = {"viewer": viewer, "operator": operator, "admin": admin_user}
    return matrix.World(ids), matrix.RoleClients(users)


def measure(world) -> list[tuple[matrix.Probe, dict[str, str]]]:
    names, clients = world
    return [
        (
            probe,
            {
                role: matrix.answer(matrix.send(clients.client(role, probe.door), probe))
                for role in matrix.ROLES
            },
        )
        for probe in matrix.all_probes(names)
    ]


def write(measured) -> None:
    lines = [INTRO]
    header = {"pages": "Route", "admin": "Route", "api": "Operation", "k8s": "Route or resource"}
    for door, title in matrix.DOORS.items():
        method = "Verb" if door == "k8s" else "Method"
        lines += [f"## {title}", "", f"| {header[door]} | {method} | " + " | ".join(matrix.ROLES) + " |"]
        lines.append("|---|---|" + "---|" * len(matrix.ROLES))
        lines += [matrix.format_row(probe, answers) for probe, answers in measured if probe.door == door]
        lines.append("")
    matrix.TABLE.write_text("\n".join(lines))


def test_the_server_answers_every_role_exactly_as_the_permission_table_says(world):
    measured = measure(world)
    if os.environ.get("PERMISSIONS_WRITE") == "1":
        write(measured)
    missing, differing, stale = matrix.disagreements(measured, matrix.read_table())
    assert not missing, "routes without a row in docs/permissions.md (check, then add):\n" + "\n".join(
        missing
    )
    assert not differing, "\n".join(differing)
    assert not stale, f"rows for routes the server no longer has: {stale}"


def test_a_route_without_a_row_or_with_another_answer_is_reported(world, tmp_path):
    names, clients = world
    probe = next(
        p for p in matrix.all_probes(names) if p.key == ("pages", "/clusters/c/<str:name>/unjoin/", "POST")
    )
    answers = {
        role: matrix.answer(matrix.send(clients.client(role, probe.door), probe)) for role in matrix.ROLES
    }
    assert answers == {"anonymous": "login", "viewer": "403", "operator": "403", "admin": "3xx"}
    table = matrix.read_table()
    without = {key: row for key, row in table.items() if key != probe.key}
    assert matrix.disagreements([(probe, answers)], without)[0] == [matrix.format_row(probe, answers)]
    loosened = {**table, probe.key: {**answers, "viewer": "3xx"}}
    assert len(matrix.disagreements([(probe, answers)], loosened)[1]) == 1


def test_the_walk_reaches_every_door_and_the_roles_differ(world):
    probes = matrix.all_probes(world[0])
    doors = {p.door for p in probes}
    assert doors == set(matrix.DOORS)
    keys = {p.key for p in probes}
    assert ("pages", "/clusters/c/<str:name>/unjoin/", "POST") in keys
    assert ("api", "/api/v1/clusters/{name}/", "DELETE") in keys
    assert ("k8s", "apps/v1/deployments", "create") in keys
    assert len(probes) >= 300
