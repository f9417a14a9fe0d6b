"""Bad input gets a clear refusal (a 4xx naming the field, or one line and a non-zero exit), saves nothing."""

from __future__ import annotations

import contextlib
import io
import json
import time
from unittest import mock

import pytest
import yaml
from django.core.management import ManagementUtility
from django.db import connections

from clusters.models import Cluster, LabelConvention
from core.models import AuditEntry
from membersim import ClusterSpec
from observability.models import Receiver, Silence
from scheduling.models import PropagationPolicy, ResourceTemplate
from tests.support.api import problems

pytestmark = pytest.mark.django_db

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
"""
POLICY = """apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  placement: {clusterAffinity: {clusterNames: [beijing]}}
"""


def yaml_bomb(levels: int = 9, width: int = 9) -> str:
    """The billion laughs: each level is a list of `width` aliases of the level before."""
    lines = ['a0: &a0 ["lol"]']
    for level in range(1, levels + 1):
        refs = ", ".join([f"*a{level - 1}"] * width)
        lines.append(f"a{level}: &a{level} [{refs}]")
    return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb, namespace: default}\ndata:\n" + "\n".join(
        "  " + line for line in lines
    )


def saved_nothing() -> bool:
    return not ResourceTemplate.objects.exists() and not PropagationPolicy.objects.exists()


# --- REST API -----------------------------------------------------------------------------------------


APPLY_CASES = {
    "malformed YAML": ("kind: [unclosed", "not valid YAML"),
    "a scalar document": ("just a string", "Kubernetes object"),
    "an unknown Karmada kind": (
        "apiVersion: policy.karmada.io/v1alpha1\nkind: Gizmo\nmetadata: {name: g, namespace: default}\n",
        "Gizmo",
    ),
    "nesting deeper than any object": ("a: " + "[" * 5000 + "]" * 5000, "nests too deeply"),
    "an alias inside itself": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: &m {name: x, self: *m}\n",
        "alias",
    ),
    "a document without a kind": ("apiVersion: v1\nmetadata: {name: x}\n", "kind"),
    "a policy with a wrong field type": (
        POLICY.replace("clusterNames: [beijing]", "clusterNames: beijing"),
        "clusterNames",
    ),
    "a good document before a bad one": (DEPLOYMENT + "---\n" + POLICY.replace("kind: Deployment", ""), "1"),
    "a YAML bomb": (yaml_bomb(), "alias"),
    "a document larger than the limit": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big, namespace: default}\ndata:\n  blob: "
        + "x" * (9 * 1024 * 1024)
        + "\n",
        "larger than",
    ),
}


@pytest.mark.parametrize("text, hint", APPLY_CASES.values(), ids=APPLY_CASES.keys())
def test_the_apply_endpoint_refuses_bad_yaml_with_the_document_and_the_reason_and_saves_nothing(
    api_as, operator, text, hint
):
    started = time.monotonic()
    response = api_as(operator).post("/api/v1/apply/", text, content_type="application/yaml")
    assert response.status_code == 400, response.content[:300]
    body = response.json()
    assert {"document", "field", "reason"} <= body.keys()
    assert hint in json.dumps(body)
    assert saved_nothing()
    assert time.monotonic() - started < 10


API_CASES = {
    "a preview of a workload given as text": (
        "post",
        "/api/v1/preview/",
        {"policy": POLICY, "workload": "web"},
        "workload",
    ),
    "a preview of a workload given as a list": (
        "post",
        "/api/v1/preview/",
        {"policy": POLICY, "workload": [1]},
        "workload",
    ),
    "a page offset that is not a number": ("get", "/api/v1/clusters/?offset=false", None, "offset"),
    "a negative page size": ("get", "/api/v1/workloads/?limit=-5", None, "limit"),
    "an empty page size": ("get", "/api/v1/audit/?limit=", None, "limit"),
    "an offset given twice": ("get", "/api/v1/policies/?offset=1&offset=2", None, "offset"),
    "a policy filter that is not an id": ("get", "/api/v1/workloads/?policy=web", None, "policy"),
    "a policy filter given twice": ("get", "/api/v1/workloads/?policy=1&policy=2", None, "policy"),
    "an unknown sort": ("get", "/api/v1/clusters/?sort=shoe-size", None, "sort"),
    "a bad selector": ("get", "/api/v1/clusters/?selector=env%3D%3D%3Dprod", None, "selector"),
    "a join with a garbage kubeconfig": (
        "post",
        "/api/v1/clusters/",
        {"name": "x", "kubeconfig": "::: not yaml [", "labels": {}},
        "kubeconfig",
    ),
    "a join with a bad name": (
        "post",
        "/api/v1/clusters/",
        {"name": "Not A DNS Label!", "kubeconfig": "{}", "labels": {}},
        "name",
    ),
    "a join with NUL in a label value": (
        "post",
        "/api/v1/clusters/",
        {"name": "x", "kubeconfig": "{}", "labels": {"env": "pr\x00d"}},
        "labels",
    ),
    "a silence without matchers": (
        "post",
        "/api/v1/silences/",
        {"matchers": [], "duration": "1h", "comment": "x"},
        "matchers",
    ),
    "a receiver with a bad URL": (
        "post",
        "/api/v1/alert-receivers/",
        {"name": "ops", "kind": "webhook", "url": "ftp://nowhere"},
        "url",
    ),
}


@pytest.mark.parametrize("method, url, body, field", API_CASES.values(), ids=API_CASES.keys())
def test_the_api_answers_bad_input_with_400_naming_the_field(api_as, admin_user, method, url, body, field):
    client = api_as(admin_user)
    response = getattr(client, method)(url, body, format="json") if body is not None else client.get(url)
    assert response.status_code == 400, response.content[:300]
    assert field in json.dumps(response.json())


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/workloads/99999999999999999999999/",
        "/api/v1/policies/99999999999999999999999/",
        "/api/v1/silences/99999999999999999999999/",
        "/api/v1/conventions/99999999999999999999999/",
    ],
)
def test_an_id_too_large_for_the_database_is_not_found(api_as, admin_user, url):
    assert api_as(admin_user).get(url).status_code == 404


def test_rebalancing_a_workload_id_too_large_for_the_database_is_not_found(api_as, operator):
    assert api_as(operator).post("/api/v1/workloads/99999999999999999999999/rebalance/").status_code == 404


def test_joining_an_unreachable_endpoint_or_with_a_wrong_token_saves_nothing(api_as, admin_user, simulate):
    sim = simulate(ClusterSpec(name="beijing"))
    for server, token, hint in (
        ("http://127.0.0.1:9", "t", "connect"),
        (sim.endpoint("beijing"), "wrong-token", "401"),
    ):
        kubeconfig = {
            "clusters": [{"name": "c", "cluster": {"server": server}}],
            "users": [{"name": "u", "user": {"token": token}}],
            "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
            "current-context": "x",
        }
        response = api_as(admin_user).post(
            "/api/v1/clusters/",
            {"name": "beijing", "kubeconfig": yaml.safe_dump(kubeconfig), "labels": {}},
            format="json",
        )
        assert response.status_code == 400
        assert "kubeconfig" in problems(response)
        assert hint.lower() in json.dumps(response.json()).lower()
    assert not Cluster.objects.exists()


# --- management commands ------------------------------------------------------------------------------


def run_command(*argv: str) -> tuple[int, str, str]:
    """Run manage.py in this process as the shell would: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    status = 0
    # run_from_argv closes every database connection when a command ends, as a separate process would;
    # here that would close the test's own transaction (PostgreSQL refuses to go on), so keep it open.
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        mock.patch.object(connections, "close_all"),
    ):
        try:
            ManagementUtility(["manage.py", *argv]).execute()
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 1
    return status, out.getvalue(), err.getvalue()


def files(tmp_path):
    garbage = tmp_path / "garbage.yaml"
    garbage.write_text("a: [1, 2\nb: }")
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\xff\xfe\x00garbage\x80")
    kinds = tmp_path / "gizmo.yaml"
    kinds.write_text("apiVersion: policy.karmada.io/v1alpha1\nkind: Gizmo\nmetadata: {name: g}\n")
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(yaml_bomb())
    unreachable = tmp_path / "unreachable.yaml"
    unreachable.write_text(
        yaml.safe_dump(
            {
                "clusters": [{"name": "c", "cluster": {"server": "http://127.0.0.1:9"}}],
                "users": [{"name": "u", "user": {"token": "t"}}],
                "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
                "current-context": "x",
            }
        )
    )
    return {
        "bomb": bomb,
        "garbage": garbage,
        "binary": binary,
        "gizmo": kinds,
        "unreachable": unreachable,
        "dir": tmp_path,
    }


COMMAND_CASES = {
    "join with a missing kubeconfig": (["join", "x", "--kubeconfig", "{dir}/missing.yaml"], "missing.yaml"),
    "join with a garbage kubeconfig": (["join", "x", "--kubeconfig", "{garbage}"], "not valid YAML"),
    "join with a binary kubeconfig": (["join", "x", "--kubeconfig", "{binary}"], "kubeconfig"),
    "join with a directory as kubeconfig": (["join", "x", "--kubeconfig", "{dir}"], "kubeconfig"),
    "join with an unknown context": (
        ["join", "x", "--kubeconfig", "{unreachable}", "--context", "nope"],
        "nope",
    ),
    "join an unreachable endpoint": (["join", "x", "--kubeconfig", "{unreachable}"], "x:"),
    "join with a bad label": (["join", "x", "--kubeconfig", "{unreachable}", "--label", "=v"], "--label"),
    "join with a bad name": (["join", "Bad_Name", "--kubeconfig", "{unreachable}"], "Bad_Name"),
    "unjoin an unknown cluster": (["unjoin", "nowhere"], "no cluster named nowhere"),
    "apply a missing file": (["apply", "-f", "{dir}/missing.yaml"], "missing.yaml"),
    "apply garbage": (["apply", "-f", "{garbage}"], "not valid YAML"),
    "apply a YAML bomb": (["apply", "-f", "{bomb}"], "alias"),
    "simulate a YAML bomb": (["simulate", "-f", "{bomb}"], "alias"),
    "apply a binary file": (["apply", "-f", "{binary}"], "binary.yaml"),
    "apply an unknown kind": (["apply", "-f", "{gizmo}"], "Gizmo"),
    "apply a directory": (["apply", "-f", "{dir}"], "{dir}"),
    "export into a missing folder": (["export", "-o", "{dir}/no/such/folder/out.yaml"], "out.yaml"),
    "export_rules in an unknown format": (["export_rules", "--format", "xml"], "invalid choice"),
    "simulate a missing file": (["simulate", "-f", "{dir}/missing.yaml"], "missing.yaml"),
    "simulate garbage": (["simulate", "-f", "{garbage}"], "garbage.yaml"),
    "simulate a binary file": (["simulate", "-f", "{binary}"], "binary.yaml"),
    "demo on port 0": (["demo", "--port", "0"], "--port"),
    "demo on port 70000": (["demo", "--port", "70000"], "--port"),
    "demo on a port that is not a number": (["demo", "--port", "http"], "--port"),
}


@pytest.mark.parametrize("argv, hint", COMMAND_CASES.values(), ids=COMMAND_CASES.keys())
def test_commands_refuse_bad_arguments_with_one_clear_line_and_a_non_zero_exit(tmp_path, argv, hint):
    paths = {name: str(path) for name, path in files(tmp_path).items()}
    argv = [arg.format(**paths) for arg in argv]
    status, _, err = run_command(*argv)
    assert status != 0
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert hint.format(**paths) in last, err
    assert not Cluster.objects.exists() and saved_nothing()


def test_the_demo_refuses_a_port_variable_that_is_not_a_number(monkeypatch):
    monkeypatch.setenv("PORT", "eighty")
    status, _, err = run_command("demo")
    assert status != 0
    assert "Traceback" not in err
    assert "PORT" in err.strip().splitlines()[-1]


# --- pages and forms ----------------------------------------------------------------------------------


@pytest.fixture
def browser_as(client):
    def signed_in(user):
        client.force_login(user)
        return client

    return signed_in


@pytest.fixture
def beijing(db):
    return Cluster.objects.create(name="beijing", api_endpoint="https://beijing.example:6443", ready="True")


def test_the_join_page_shows_the_kubeconfig_error_and_saves_nothing(browser_as, admin_user):
    for kubeconfig in ("a: [1, 2\nb: }", "- a\n- list\n", "clusters: 5\n", "x" * 10, yaml_bomb(), "[" * 5000):
        response = browser_as(admin_user).post(
            "/clusters/join/", {"name": "beijing", "kubeconfig": kubeconfig, "labels": ""}
        )
        assert response.status_code in (200, 400)
        assert "kubeconfig" in response.content.decode().lower()
    assert not Cluster.objects.exists()


def test_the_join_page_refuses_bad_labels_on_the_labels_field(browser_as, admin_user):
    response = browser_as(admin_user).post(
        "/clusters/join/", {"name": "beijing", "kubeconfig": "{}", "labels": "env=prod, =nokey"}
    )
    assert response.status_code in (200, 400)
    assert response.context["form"].errors.get("labels")
    assert not Cluster.objects.exists()


def test_testing_a_join_with_a_garbage_kubeconfig_says_why(browser_as, admin_user):
    response = browser_as(admin_user).post("/clusters/join/test/", {"name": "x", "kubeconfig": "a: [1\nb: }"})
    assert response.status_code < 500
    assert "YAML" in response.content.decode()


def test_the_label_editor_marks_bad_rows_and_keeps_the_old_labels(browser_as, operator, beijing):
    response = browser_as(operator).post(
        "/clusters/c/beijing/labels/",
        {"key": ["env", "bad key!"], "value": ["prod", "x"], "resource_version": beijing.resource_version},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 400
    beijing.refresh_from_db()
    assert beijing.labels == {}


def test_the_label_editor_refuses_a_stale_version_with_409(browser_as, operator, beijing):
    for version in (beijing.resource_version + 5, "not-a-number"):
        response = browser_as(operator).post(
            "/clusters/c/beijing/labels/",
            {"key": ["env"], "value": ["prod"], "resource_version": version},
            HTTP_HX_REQUEST="true",
        )
        assert response.status_code == 409
    beijing.refresh_from_db()
    assert beijing.labels == {}


TAINT_CASES = {
    "a bad key": {"action": "add", "key": "bad key!", "value": "", "effect": "NoSchedule"},
    "an unknown effect": {"action": "add", "key": "dedicated", "value": "gpu", "effect": "Sometimes"},
    "a bad value": {"action": "add", "key": "dedicated", "value": "no spaces please", "effect": "NoSchedule"},
    "an unknown action": {"action": "explode"},
    "removing without a key": {"action": "remove", "key": ""},
}


@pytest.mark.parametrize("data", TAINT_CASES.values(), ids=TAINT_CASES.keys())
def test_the_taint_form_refuses_bad_input_with_400_and_changes_nothing(browser_as, admin_user, beijing, data):
    response = browser_as(admin_user).post("/clusters/c/beijing/taints/", data, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    beijing.refresh_from_db()
    assert beijing.taints == []


CONVENTION_CASES = {
    "a key without a domain part that is not a label key": {"id": "0", "key": "Bad Key!"},
    "a bad pattern": {"id": "0", "key": "location/region", "pattern": "([unclosed"},
    "an id that is not a number": {"id": "abc", "key": "location/region"},
    "an id too large for the database": {"id": "99999999999999999999999", "key": "location/region"},
}


@pytest.mark.parametrize("data", CONVENTION_CASES.values(), ids=CONVENTION_CASES.keys())
def test_the_conventions_form_refuses_bad_input_and_saves_nothing(browser_as, operator, data):
    before = list(LabelConvention.objects.values())
    response = browser_as(operator).post("/clusters/conventions/save/", data)
    assert 400 <= response.status_code < 500
    assert list(LabelConvention.objects.values()) == before


def test_bulk_labels_with_bad_syntax_change_no_cluster(browser_as, operator, beijing):
    browser_as(operator).post(
        "/clusters/labels/", {"cluster": ["beijing"], "set_labels": "env==prod", "remove_keys": ""}
    )
    beijing.refresh_from_db()
    assert beijing.labels == {}


EDITOR_CASES = {
    "invalid YAML": "spec: [unclosed",
    "a list instead of a policy": "- a\n- b\n",
    "a scalar": "hello",
    "aliases": "a: &x [1]\nb: *x\n",
    "an invalid field": POLICY.replace("clusterNames: [beijing]", "clusterNames: 5"),
    "two documents": POLICY + "---\n" + POLICY,
}


@pytest.mark.parametrize("text", EDITOR_CASES.values(), ids=EDITOR_CASES.keys())
def test_the_policy_editor_answers_bad_yaml_without_5xx_and_applies_nothing(browser_as, operator, text):
    client = browser_as(operator)
    for url in (
        "/policies/editor/preview/",
        "/policies/editor/switch/",
        "/policies/editor/draft/",
        "/policies/editor/review/",
    ):
        response = client.post(url, {"mode": "yaml", "yaml": text}, HTTP_HX_REQUEST="true")
        assert response.status_code < 500, url
    response = client.post("/policies/editor/review/", {"mode": "yaml", "yaml": text})
    assert response.status_code == 400
    assert not PropagationPolicy.objects.exists()


@pytest.mark.parametrize(
    "document",
    [
        "",
        "not json",
        "[1, 2]",
        json.dumps({"kind": "PropagationPolicy"}),
        json.dumps({"kind": 5, "spec": []}),
    ],
)
def test_applying_a_bad_document_from_the_editor_is_400_and_saves_nothing(browser_as, operator, document):
    response = browser_as(operator).post("/policies/editor/apply/", {"document": document})
    assert response.status_code == 400
    assert not PropagationPolicy.objects.exists()
    assert not AuditEntry.objects.exists()


SILENCE_CASES = {
    "no matchers": {"matchers": "", "duration": "1h", "comment": "x"},
    "a bad matcher": {"matchers": "alertname", "duration": "1h", "comment": "x"},
    "a bad duration": {"matchers": "alertname=ClusterUnhealthy", "duration": "forever", "comment": "x"},
    "a duration over 30 days": {"matchers": "alertname=ClusterUnhealthy", "duration": "45d", "comment": "x"},
}


@pytest.mark.parametrize("data", SILENCE_CASES.values(), ids=SILENCE_CASES.keys())
def test_the_silence_form_refuses_bad_input_with_400_and_saves_nothing(browser_as, operator, data):
    response = browser_as(operator).post("/alerts/silences/", data)
    assert response.status_code == 400
    assert not Silence.objects.exists()


RECEIVER_CASES = {
    "a webhook without a URL": {"name": "ops", "kind": "webhook", "url": ""},
    "a webhook with a file URL": {"name": "ops", "kind": "webhook", "url": "file:///etc/passwd"},
    "an e-mail receiver with a bad address": {"name": "ops", "kind": "email", "emails": "not-an-address"},
    "an unknown kind": {"name": "ops", "kind": "pigeon"},
}


@pytest.mark.parametrize("data", RECEIVER_CASES.values(), ids=RECEIVER_CASES.keys())
def test_the_receiver_form_refuses_bad_input_with_400_and_saves_nothing(browser_as, admin_user, data):
    response = browser_as(admin_user).post("/alerts/receivers/", data)
    assert response.status_code == 400
    assert not Receiver.objects.exists()


def test_rebalancing_a_workload_that_does_not_exist_is_not_found(browser_as, operator):
    client = browser_as(operator)
    assert client.post("/workloads/99999999999999999999999/rebalance/").status_code == 404
    assert client.post("/policies/99999999999999999999999/rebalance/").status_code == 404
    assert client.post("/alerts/silences/99999999999999999999999/expire/").status_code == 404


@pytest.mark.parametrize(
    "query", ["?cluster=nowhere", "?cluster=beijing&condition=Meteor", "?cluster=%00"], ids=str
)
def test_the_failure_drill_refuses_an_unknown_cluster_or_condition(browser_as, viewer, beijing, query):
    response = browser_as(viewer).get("/drill/" + query)
    assert response.status_code == 400


def test_a_policy_filter_past_the_largest_id_lists_no_workload(api_as, admin_user):
    answer = api_as(admin_user).get("/api/v1/workloads/?policy=99999999999999999999999")
    assert answer.status_code == 200 and answer.json()["count"] == 0
