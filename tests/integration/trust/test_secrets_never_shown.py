"""A cluster joined with a known token and client key: nothing the product shows or logs holds either.

The cluster is a simulated one served over TLS, joined through the API with a kubeconfig that carries a
bearer token and a client certificate with its private key. Then every URL pattern is fetched as an
admin (plain and as htmx), every GET operation of the OpenAPI schema with real ids, `manage.py export`,
`/metrics` and the error pages with DEBUG off, with every log record of the web side and of the tasks
(run inline, as the worker would) captured. None may contain the token, the key, the stored
ciphertext, or a base64 form of any of them.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import timedelta
from unittest import mock

import pytest
import yaml
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone
from rest_framework.test import APIClient

from clusters.models import Cluster, LabelConvention
from membersim import ClusterSpec
from observability.models import Alert, Delivery, Receiver, Silence
from scheduling.models import PropagationPolicy, ResourceTemplate
from tests.support.commands import run_command
from tests.support.eager import eager_tasks
from tests.support.members import converge
from tests.support.secrets import client_certificate, leaks, with_client_key

pytestmark = pytest.mark.django_db(transaction=True)

APP = """apiVersion: apps/v1
kind: Deployment
metadata: {name: shop, namespace: default, labels: {app: shop}}
spec:
  replicas: 2
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec: {containers: [{name: shop, image: "nginx:1.27"}]}
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
metadata: {name: everything-apps}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: StatefulSet}]
  placement: {clusterAffinity: {clusterNames: [beijing]}}
"""


@dataclass
class Joined:
    """The joined fleet: the secrets to look for and the ids that fill every route."""

    secrets: dict[str, str | bytes]
    admin: object
    kwargs: dict[str, dict[str, object]]
    api_ids: dict[str, str]
    join_response: str


def assert_shows_none(secrets: dict, texts: dict[str, str]) -> None:
    found = {where: leaks(text, secrets) for where, text in texts.items()}
    assert {where: hits for where, hits in found.items() if hits} == {}


@pytest.fixture
def joined(simulate, admin_user, caplog):
    caplog.set_level(logging.DEBUG)
    # Staff as well, so that the walk sees Django's admin pages and not their login form.
    admin_user.is_staff = admin_user.is_superuser = True
    admin_user.save()
    sim = simulate(ClusterSpec(name="beijing", nodes=2, region="cn-north"), tls=True)
    cert_pem, key_pem = client_certificate()
    kubeconfig = with_client_key(sim.kubeconfig(), "beijing", cert_pem, key_pem)
    api = APIClient()
    api.force_authenticate(admin_user)
    with eager_tasks():
        response = api.post(
            "/api/v1/clusters/",
            {"name": "beijing", "kubeconfig": yaml.safe_dump(kubeconfig), "context": "beijing"},
            format="json",
        )
        assert response.status_code == 201, response.content
        applied = api.post("/api/v1/apply/", APP, content_type="application/yaml")
        assert applied.status_code == 200, applied.content
        converge()
    cluster = Cluster.objects.get(name="beijing")
    # The join must really carry both: the stored connection has the token and the client key.
    assert cluster.connection().token == sim.token("beijing")
    assert cluster.connection().client_key_data == key_pem
    assert cluster.ready == "True"

    template = ResourceTemplate.objects.get(name="shop")
    policy = PropagationPolicy.objects.get(name="shop", kind="PropagationPolicy")
    cluster_policy = PropagationPolicy.objects.get(name="everything-apps")
    now = timezone.now()
    alert = Alert.objects.create(
        rule="ClusterUnhealthy",
        fingerprint="f" * 16,
        labels={"alertname": "ClusterUnhealthy", "member_cluster": "beijing"},
        state="firing",
        active_since=now,
        fired_at=now,
        last_evaluated=now,
    )
    silence = Silence.objects.create(
        matchers={"member_cluster": "beijing"},
        comment="maintenance",
        created_by=admin_user.username,
        starts_at=now,
        ends_at=now + timedelta(hours=1),
    )
    receiver = Receiver.objects.create(name="ops", kind="webhook", url="http://127.0.0.1:9/hook")
    delivery = Delivery.objects.create(alert=alert, receiver=receiver, status="firing", payload={"a": 1})
    # A row for each model the admin lists, so that its change, history and delete pages show a real one.
    from django_celery_results.models import GroupResult, TaskResult
    from rest_framework.authtoken.models import Token

    Token.objects.get_or_create(user=admin_user)
    TaskResult.objects.create(
        task_id="t-1", task_name="clusters.tasks.collect_cluster_task", status="SUCCESS"
    )
    GroupResult.objects.create(group_id="g-1")
    convention = LabelConvention.objects.order_by("pk").first() or LabelConvention.objects.create(
        key="location/region", description="where"
    )
    kwargs: dict[str, dict[str, object]] = {
        "workload": {"pk": template.pk},
        "workload-rebalance": {"pk": template.pk},
        "policy": {"pk": policy.pk},
        "policy-rebalance": {"pk": policy.pk},
        "policy_edit": {"namespace": "default", "name": "shop"},
        "cluster_policy_edit": {"name": cluster_policy.name},
        "silence-expire": {"pk": silence.pk},
        "receiver-edit": {"pk": receiver.pk},
        "receiver-delete": {"pk": receiver.pk},
        "scheduling-workload": {"pk": template.pk},
        "scheduling-workload-rebalance": {"pk": template.pk},
        "scheduling-workload-suspension": {"pk": template.pk},
        "workload-hold": {"pk": template.pk},
        "workload-rollout": {"pk": template.pk},
        "workload-rollout-step": {"pk": template.pk},
        "scheduling-workload-rollout": {"pk": template.pk},
        "workload-across": {"pk": template.pk},
        "pod-logs": {"pk": template.pk},
        "pod-logs-follow": {"pk": template.pk},
        "workload-drift": {"pk": template.pk},
        "workload-reapply": {"pk": template.pk},
        "scheduling-workload-members": {"pk": template.pk},
        "scheduling-workload-logs": {"pk": template.pk},
        "scheduling-workload-drift": {"pk": template.pk},
        "scheduling-quota": {"namespace": template.namespace or "default", "name": "quota"},
        "scheduling-policy": {"pk": policy.pk},
        "scheduling-policy-rebalance": {"pk": policy.pk},
        "convention-detail": {"pk": convention.pk},
        "observability-alert-detail": {"pk": alert.pk},
        "observability-silence-detail": {"pk": silence.pk},
        "observability-silence-expire": {"pk": silence.pk},
        "observability-receiver-detail": {"pk": receiver.pk},
        "observability-delivery-detail": {"pk": delivery.pk},
        "admin:app_list": {"app_label": "auth"},
        "admin:view_on_site": {"content_type_id": 1, "object_id": admin_user.pk},
    }
    api_ids = {
        "name": "beijing",
        "namespace": template.namespace or "default",
        "/api/v1/conventions/{id}/": str(convention.pk),
        "/api/v1/workloads/{id}/": str(template.pk),
        "/api/v1/policies/{id}/": str(policy.pk),
        "/api/v1/alerts/{id}/": str(alert.pk),
        "/api/v1/silences/{id}/": str(silence.pk),
        "/api/v1/alert-receivers/{id}/": str(receiver.pk),
        "/api/v1/alert-deliveries/{id}/": str(delivery.pk),
    }
    return Joined(
        secrets={
            "token": sim.token("beijing"),
            "client key": key_pem,
            "stored ciphertext": cluster.credentials,
        },
        admin=admin_user,
        kwargs=kwargs,
        api_ids=api_ids,
        join_response=response.content.decode(),
    )


def routes(resolver=None, namespace: str = "", prefix: str = ""):
    """Every URL pattern: (namespaced name, route text, names of its arguments)."""
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            yield from routes(entry, inner, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            arguments = list(entry.pattern.regex.groupindex)
            yield (f"{namespace}{entry.name}" if entry.name else None), prefix + str(entry.pattern), arguments


def admin_object_kwargs(name: str, joined: Joined) -> dict[str, object] | None:
    """The admin's per-object pages: the first row of the model the URL name is about."""
    from django.contrib import admin

    for model in admin.site._registry:
        stem = f"admin:{model._meta.app_label}_{model._meta.model_name}_"
        if name.startswith(stem):
            row = model._default_manager.order_by("pk").first() or joined.admin
            return {"object_id": row.pk} if "password" not in name else {"id": row.pk}
    return None


def unnamed_path(route: str, joined: Joined) -> str | None:
    """The admin's unnamed patterns: an object's bare URL (a redirect to its change page), the catch-all."""
    from django.apps import apps

    if route == "admin/(?P<url>.*)$":
        return "/admin/nowhere/"
    match = re.fullmatch(r"admin/(\w+)/(\w+)/<path:object_id>/", route)
    if match:
        row = apps.get_model(match[1], match[2])._default_manager.order_by("pk").first() or joined.admin
        return f"/admin/{match[1]}/{match[2]}/{row.pk}/"
    return None


def every_path(joined: Joined) -> list[str]:
    paths, missing = [], []
    for name, route, arguments in routes():
        if name and name.startswith("kubeapi:"):
            continue  # bearer tokens only: walked by test_no_kubernetes_api_answer_shows_the_token_or_the_key
        if name is None:
            path = unnamed_path(route, joined) if arguments else "/" + route
            if path is None:
                missing.append(route)
            else:
                paths.append(path)
            continue
        if not arguments:
            paths.append(reverse(name))
            continue
        kwargs = (
            joined.kwargs.get(name)
            or joined.kwargs.get(name.rpartition(":")[2])
            or (admin_object_kwargs(name, joined) if name and name.startswith("admin:") else None)
        )
        if kwargs is None and set(arguments) == {"name"}:
            kwargs = {"name": "beijing"}  # every cluster-named route takes the joined cluster
        if kwargs is None:
            missing.append(f"{name} ({route})")
            continue
        paths.append(reverse(name, kwargs=kwargs))
    assert not missing, f"routes with arguments this walk cannot fill; add them to the fixture: {missing}"
    return sorted(set(paths))


def test_no_page_shows_the_token_or_the_key(joined, client):
    client.force_login(joined.admin)
    texts, statuses = {}, {}
    for path in every_path(joined):
        for htmx in (False, True):
            response = client.get(path, HTTP_HX_REQUEST="true") if htmx else client.get(path)
            body = b"".join(response.streaming_content) if response.streaming else response.content
            texts[f"{path}{' (htmx)' if htmx else ''}"] = body.decode(errors="replace") + str(
                response.headers
            )
            statuses[path] = response.status_code
    assert len(statuses) > 60 and "/clusters/c/beijing/" in statuses and "/admin/" in statuses
    assert {path: code for path, code in statuses.items() if code >= 500} == {}
    assert statuses["/clusters/c/beijing/"] == 200 and "beijing" in texts["/clusters/c/beijing/"]
    assert statuses["/admin/django_celery_results/taskresult/"] == 200
    assert_shows_none(joined.secrets, texts)


def kubernetes_api_paths(client: Client, auth: dict) -> list[str]:
    """Every discovery and OpenAPI document, and a list and each item of every kind discovery serves."""
    paths = ["/k8s/version", "/k8s/api", "/k8s/api/v1", "/k8s/apis", "/k8s/openapi/v2", "/k8s/openapi/v3"]
    lists = []
    for resource in client.get("/k8s/api/v1", **auth).json()["resources"]:
        if "/" not in resource["name"] and "list" in resource["verbs"]:
            lists.append(f"/k8s/api/v1/{resource['name']}")
    for group in client.get("/k8s/apis", **auth).json()["groups"]:
        for version in group["versions"]:
            base = f"/k8s/apis/{version['groupVersion']}"
            paths += [base, f"/k8s/apis/{group['name']}", f"/k8s/openapi/v3/apis/{version['groupVersion']}"]
            for resource in client.get(base, **auth).json()["resources"]:
                if "/" not in resource["name"] and "list" in resource["verbs"]:
                    lists.append(f"{base}/{resource['name']}")
    paths += lists
    for path in lists:
        for item in client.get(path, **auth).json().get("items", []):
            meta = item["metadata"]
            where = f"namespaces/{meta['namespace']}/" if meta.get("namespace") else ""
            collection = path.rpartition("/")
            paths.append(f"{collection[0]}/{where}{collection[2]}/{meta['name']}")
    proxy = "/k8s/apis/cluster.karmada.io/v1alpha1/clusters/beijing/proxy"
    member_reads = [f"{proxy}/api/v1/nodes", f"{proxy}/api/v1/namespaces/default/pods", f"{proxy}/"]
    return [*sorted(set(paths)), *member_reads]


def test_no_kubernetes_api_answer_shows_the_token_or_the_key(joined):
    from rest_framework.authtoken.models import Token

    client = Client()
    auth = {"HTTP_AUTHORIZATION": f"Bearer {Token.objects.get_or_create(user=joined.admin)[0].key}"}
    texts, statuses = {}, {}
    for path in kubernetes_api_paths(client, auth):
        response = client.get(path, **auth)
        body = b"".join(response.streaming_content) if response.streaming else response.content
        texts[path] = body.decode(errors="replace") + str(response.headers)
        statuses[path] = response.status_code
    assert {path: code for path, code in statuses.items() if code >= 500} == {}
    assert statuses["/k8s/apis/cluster.karmada.io/v1alpha1/clusters/beijing"] == 200
    assert statuses["/k8s/apis/cluster.karmada.io/v1alpha1/clusters/beijing/proxy/api/v1/nodes"] == 200
    assert len(statuses) > 30
    assert_shows_none(joined.secrets, texts)


def test_no_api_answer_shows_the_token_or_the_key(joined):
    api = APIClient()
    api.force_authenticate(joined.admin)
    schema = api.get("/api/schema/", {"format": "json"}).json()
    texts = {"POST /api/v1/clusters/ (the join)": joined.join_response}
    for template, operations in schema["paths"].items():
        if "get" not in operations:
            continue
        path = template
        for parameter in re.findall(r"\{(\w+)\}", template):
            value = joined.api_ids.get(template.split("{" + parameter + "}")[0] + "{" + parameter + "}/") or (
                joined.api_ids.get(parameter)
            )
            assert value, f"no id for {{{parameter}}} in {template}; add one to the fixture"
            path = path.replace("{" + parameter + "}", value)
        response = api.get(path)
        assert response.status_code < 500, (path, response.content[:500])
        texts[f"GET {path}"] = response.content.decode(errors="replace")
    assert len(texts) > 20 and "GET /api/v1/clusters/beijing/" in texts
    assert '"name":"beijing"' in texts["GET /api/v1/clusters/beijing/"].replace(" ", "")
    assert_shows_none(joined.secrets, texts)


def test_export_and_metrics_show_neither(joined, client):
    status, out, err = run_command("export")
    assert status == 0 and "kind: Cluster" in out and "name: beijing" in out
    client.force_login(joined.admin)
    metrics = client.get("/metrics").content.decode()
    assert 'cluster_ready_state{member_cluster="beijing"} 1.0' in metrics
    api_export = client.get("/api/v1/export/").content.decode()
    assert_shows_none(
        joined.secrets, {"manage.py export": out + err, "/metrics": metrics, "/api/v1/export/": api_export}
    )


def test_error_pages_with_debug_off_show_neither(joined, viewer):
    texts = {}
    with override_settings(DEBUG=False):
        admin = Client(raise_request_exception=False)
        admin.force_login(joined.admin)
        missing = admin.get("/clusters/c/nowhere/")
        assert missing.status_code == 404
        texts["404"] = missing.content.decode()

        forbidden = Client()
        forbidden.force_login(viewer)
        refused = forbidden.get("/clusters/join/")  # the admin role only
        assert refused.status_code == 403
        texts["403 (role)"] = refused.content.decode()
        csrf = Client(enforce_csrf_checks=True)
        csrf.force_login(joined.admin)
        no_token = csrf.post("/clusters/c/beijing/labels/", {"labels": "env=prod"})
        assert no_token.status_code == 403
        texts["403 (csrf)"] = no_token.content.decode()

        bad_host = admin.get("/clusters/c/beijing/", HTTP_HOST="evil.example")
        assert bad_host.status_code == 400
        texts["400 (host)"] = bad_host.content.decode()
        api = APIClient()
        api.force_authenticate(joined.admin)
        bad_yaml = api.post("/api/v1/apply/", "a: [1, 2\nb: }", content_type="application/yaml")
        assert bad_yaml.status_code == 400
        texts["400 (apply)"] = bad_yaml.content.decode()

        # A failure deep in a page whose exception carries the cluster's connection: the 500 page and
        # the logged traceback show only what the connection's repr allows.
        def broken(binding):
            raise RuntimeError("member read failed", Cluster.objects.get(name="beijing").connection())

        template = ResourceTemplate.objects.get(name="shop")
        with mock.patch("scheduling.summaries.member_objects", broken):
            crashed = admin.get(f"/workloads/{template.pk}/")
        assert crashed.status_code == 500
        texts["500"] = crashed.content.decode()
    assert "Traceback" not in texts["500"] and "member read failed" not in texts["500"]
    assert_shows_none(joined.secrets, texts)


def test_the_logs_of_web_and_worker_show_neither(joined, client, caplog):
    # Everything the other tests do, in one: join, apply and propagation (tasks inline, as a worker runs
    # them), a few pages, a failing page, then every record logged from setup onwards, at DEBUG.
    client.force_login(joined.admin)
    with eager_tasks():
        for path in ("/clusters/", "/clusters/c/beijing/", "/metrics", "/api/v1/clusters/beijing/"):
            client.get(path)
        converge()
        Cluster.objects.get(name="beijing").connection()
    with (
        override_settings(DEBUG=False),
        mock.patch(
            "scheduling.summaries.member_objects",
            side_effect=RuntimeError("boom", Cluster.objects.get(name="beijing").connection()),
        ),
    ):
        failing = Client(raise_request_exception=False)
        failing.force_login(joined.admin)
        crashed = failing.get(f"/workloads/{ResourceTemplate.objects.get(name='shop').pk}/")
    assert crashed.status_code == 500
    records = caplog.get_records("setup") + caplog.get_records("call")
    assert any(r.name == "django.request" and r.levelno >= logging.ERROR for r in records)
    assert any(r.name.startswith(("clusters", "scheduling", "celery", "urllib3")) for r in records), {
        r.name for r in records
    }
    formatter = logging.Formatter("%(name)s %(levelname)s %(message)s")
    texts = {f"{i} {r.name}": formatter.format(r) for i, r in enumerate(records)}
    assert_shows_none(joined.secrets, texts)
