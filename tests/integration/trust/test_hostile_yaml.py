"""Hostile YAML to apply (REST and `manage.py apply`): a clear refusal or success, never a 500 or half.

Hypothesis draws any text, YAML-looking text (tags, anchors, merge keys, timestamps), random YAML
structures, mutated valid Karmada documents, and multi-document files of valid documents with one bad
document somewhere among them. Every refusal must leave the database exactly as it was. The number of
examples suits CI on two cores; `HOSTILE_YAML_EXAMPLES=2000` runs a longer search.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest
import yaml
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from core.models import AuditEntry
from scheduling.models import ClusterTaintPolicy, OverridePolicy, PropagationPolicy, ResourceTemplate
from tests.support.commands import run_command

pytestmark = pytest.mark.django_db

EXAMPLES = Path(__file__).resolve().parents[1] / "scheduling" / "examples"
VALID = [
    doc for path in sorted(EXAMPLES.glob("*.yaml")) for doc in yaml.safe_load_all(path.read_text()) if doc
]
BUDGET = settings(
    max_examples=int(os.environ.get("HOSTILE_YAML_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    derandomize=not os.environ.get("HOSTILE_YAML_EXAMPLES"),
)

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30)
    # Values YAML has and JSON has not, as safe_dump writes them: timestamps, !!binary, !!set.
    | st.dates()
    | st.datetimes()
    | st.binary(max_size=8)
    | st.sets(st.integers(), max_size=3)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12) | st.integers(), inner, max_size=4)
    ),
    max_leaves=12,
)
YAML_PIECES = [
    "apiVersion: v1\n",
    "apiVersion: apps/v1\n",
    "apiVersion: policy.karmada.io/v1alpha1\n",
    "kind: ",
    "Deployment\n",
    "PropagationPolicy\n",
    "ConfigMap\n",
    "List\n",
    "items:\n",
    "metadata:\n",
    "  name: x\n",
    "  namespace: default\n",
    "spec:\n",
    "  placement: ",
    "---\n",
    "...\n",
    "&a ",
    "*a",
    "<<: *a\n",
    "!!binary ",
    "!!python/object:os.system ",
    "!!set ",
    "!!timestamp ",
    "2001-12-14t21:59:43.10-05:00",
    "? ",
    ": ",
    "- ",
    "{",
    "}",
    "[",
    "]",
    "'",
    '"',
    "\t",
    "\n",
    "  ",
    "null",
    "~",
    "0x1F",
    ".inf",
    ".nan",
    "1e400",
    "%YAML 1.2\n",
    "%TAG ! tag:x,2000:\n",
    "!local ",
    "|\n",
    ">-\n",
    "#",
    "\ufeff",
    "\x00",
    "\u2028",
    "é",
    "\U0001f600",
    "2024-01-01",
    "!!int ",
    "!!float ",
    "!!bool ",
    "maybe",
    "1.0e+400",
    "data:\n  d: ",
]
yaml_looking = st.lists(st.sampled_from(YAML_PIECES) | st.text(max_size=5), max_size=40).map("".join)
structures = st.lists(values, min_size=1, max_size=3).map(
    lambda docs: yaml.safe_dump_all(docs, allow_unicode=True)
)


def paths_in(node, prefix=()):
    """Every place in a document a mutation can hit: (path to the container, key or index)."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield prefix, key
            yield from paths_in(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield prefix, index
            yield from paths_in(value, (*prefix, index))


@st.composite
def mutated_documents(draw):
    doc = copy.deepcopy(draw(st.sampled_from(VALID)))
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        places = list(paths_in(doc))
        if not places:
            break
        container_path, key = draw(st.sampled_from(places))
        container = doc
        for step in container_path:
            container = container[step]
        action = draw(st.sampled_from(["replace", "delete", "wrap", "retype"]))
        if action == "replace":
            container[key] = draw(values)
        elif action == "delete":
            del container[key]
        elif action == "wrap":
            container[key] = [container[key]]
        else:
            container[key] = str(container[key]) if not isinstance(container[key], str) else {"x": 1}
    return doc


BAD_DOCUMENTS = [
    "just a string",
    [1, 2, 3],
    {"kind": "Deployment"},
    {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "Bad_Name!"}},
    {"apiVersion": "policy.karmada.io/v1alpha1", "kind": "Gizmo", "metadata": {"name": "g"}},
    {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": "bad", "namespace": "default"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
            "placement": {"clusterTolerations": [{"key": "k", "operator": "Sometimes"}]},
        },
    },
    {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": "x"},
        "spec": 7,
    },
]


@st.composite
def files_with_one_bad_document(draw):
    good = draw(st.lists(st.sampled_from(VALID), min_size=1, max_size=5))
    bad = draw(st.sampled_from(BAD_DOCUMENTS))
    position = draw(st.integers(min_value=0, max_value=len(good)))
    return yaml.safe_dump_all([*good[:position], bad, *good[position:]], allow_unicode=True), position


def snapshot() -> str:
    """Everything an apply can write, as one comparable text."""
    rows = {
        "templates": list(
            ResourceTemplate.objects.order_by("pk").values_list("kind", "namespace", "name", "manifest")
        ),
        "policies": list(
            PropagationPolicy.objects.order_by("pk").values_list("kind", "namespace", "name", "spec")
        ),
        "overrides": list(
            OverridePolicy.objects.order_by("pk").values_list("kind", "namespace", "name", "spec")
        ),
        "taint policies": list(ClusterTaintPolicy.objects.order_by("pk").values_list("name", "spec")),
        "audit": AuditEntry.objects.count(),
    }
    return json.dumps(rows, sort_keys=True, default=str)


@pytest.fixture
def operator_api(operator):
    api = APIClient()
    api.force_authenticate(operator)
    return api


def applied_over_rest(api, text: str):
    """POST the text, then put the database back, so each example starts from the same state."""
    with transaction.atomic():
        before = snapshot()
        response = api.post(
            "/api/v1/apply/", text.encode("utf-8", "surrogatepass"), content_type="application/yaml"
        )
        after = snapshot()
        transaction.set_rollback(True)
    return response, before, after


def check_rest(api, text: str) -> tuple[int, dict]:
    response, before, after = applied_over_rest(api, text)
    assert response.status_code < 500, (text, response.content[:500])
    body = response.json()
    if response.status_code >= 400:
        assert set(body) >= {"reason"} and isinstance(body["reason"], str) and body["reason"], body
        assert after == before, f"refused but changed the database: {body}"
    else:
        assert response.status_code == 200 and isinstance(body["objects"], list)
    return response.status_code, body


def check_command(text: str) -> int:
    with transaction.atomic():
        before = snapshot()
        status, _, err = run_command("apply", "-f", "-", stdin=text)
        after = snapshot()
        transaction.set_rollback(True)
    assert "Traceback" not in err, err
    if status:
        assert status == 1 and len(err.strip().splitlines()) == 1, (text, err)
        assert after == before
    return status


def test_the_valid_corpus_applies_as_a_whole(operator_api):
    status, body = check_rest(operator_api, yaml.safe_dump_all(VALID))
    assert status == 200 and len(body["objects"]) == len(VALID)


@BUDGET
@given(text=st.text(max_size=300) | yaml_looking)
def test_any_text_is_refused_clearly_or_applied(operator_api, text):
    check_rest(operator_api, text)


@BUDGET
@given(text=structures)
def test_any_yaml_structure_is_refused_clearly_or_applied(operator_api, text):
    check_rest(operator_api, text)


@BUDGET
@given(docs=st.lists(mutated_documents(), min_size=1, max_size=3))
def test_mutated_karmada_documents_are_refused_clearly_or_applied(operator_api, docs):
    check_rest(operator_api, yaml.safe_dump_all(docs, allow_unicode=True))


@BUDGET
@given(case=files_with_one_bad_document())
def test_one_bad_document_refuses_the_whole_file_and_saves_nothing(operator_api, case):
    text, position = case
    status, body = check_rest(operator_api, text)
    assert status == 400 and body["document"] == position, body


@settings(BUDGET, max_examples=max(10, BUDGET.max_examples // 4))
@given(text=yaml_looking | structures | files_with_one_bad_document().map(lambda case: case[0]))
def test_manage_py_apply_ends_in_one_line_or_success(text):
    check_command(text)


CONFIG_MAP = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\ndata:\n  d: VALUE\n"


def test_a_date_is_the_text_it_was_as_kubernetes_reads_it(operator_api):
    response = operator_api.post(
        "/api/v1/apply/", CONFIG_MAP.replace("VALUE", "2024-01-01"), content_type="application/yaml"
    )
    assert response.status_code == 200, response.content
    assert ResourceTemplate.objects.get(name="c").manifest["data"] == {"d": "2024-01-01"}


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (".nan", "NaN and infinite numbers have no JSON form"),
        ("1.0e+400", "NaN and infinite numbers have no JSON form"),
        ("!!binary aGVsbG8=", "!!binary values have no JSON form"),
        ("!!set {a, b}", "sets (!!set) have no JSON form"),
        ("!!int abc", "a value does not fit its tag"),
        ("!!bool maybe", "a value does not fit its tag"),
        ("!!int", "a value does not fit its tag"),
        ("\x1f", "special characters are not allowed"),
    ],
)
def test_values_json_cannot_carry_are_refused_with_the_line(operator_api, value, reason):
    status, body = check_rest(operator_api, CONFIG_MAP.replace("VALUE", value))
    assert status == 400 and reason in body["reason"], body
    assert "\n" not in body["reason"]


@pytest.mark.parametrize(
    "overriders",
    [
        {"imageOverrider": 3},
        {"imageOverrider": [None]},
        {"imageOverrider": [{"component": "Tag", "operator": "replace", "predicate": "x"}]},
        {"commandOverrider": ["nginx"]},
        {"labelsOverrider": True},
        {"fieldOverrider": [{"fieldPath": "/data", "json": 5}]},
        {"fieldOverrider": [{"fieldPath": "/data", "yaml": [None]}]},
        {"plaintext": [[1]]},
    ],
)
def test_overriders_of_the_wrong_shape_are_refused_with_the_field(operator_api, overriders):
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": "o", "namespace": "default"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
            "overrideRules": [{"overriders": overriders}],
        },
    }
    status, body = check_rest(operator_api, yaml.safe_dump(policy))
    assert status == 400 and body["field"].startswith("spec.overrideRules[0].overriders."), body


PROPAGATION = {
    "apiVersion": "policy.karmada.io/v1alpha1",
    "kind": "PropagationPolicy",
    "metadata": {"name": "p", "namespace": "default"},
    "spec": {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}], "placement": {}},
}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"resourceSelectors": 5}, "spec.resourceSelectors"),
        ({"dependentOverrides": 5}, "spec.dependentOverrides"),
        ({"propagateDeps": True, "failover": {"application": [1]}}, "spec.failover.application"),
        (
            {"propagateDeps": True, "failover": {"application": {"decisionConditions": 5}}},
            "spec.failover.application.decisionConditions",
        ),
        ({"failover": {"cluster": [1]}}, "spec.failover.cluster"),
        ({"placement": {"reschedulePolicy": {"trigger": [1]}}}, "spec.placement.reschedulePolicy.trigger"),
        ({"placement": {"reschedulePolicy": {"policy": "x"}}}, "spec.placement.reschedulePolicy.policy"),
        (
            {
                "resourceSelectors": [
                    {"apiVersion": "v1", "kind": "Pod", "labelSelector": {"matchExpressions": 3}}
                ]
            },
            "spec.resourceSelectors[0].labelSelector.matchExpressions",
        ),
    ],
)
def test_policy_fields_of_the_wrong_shape_are_refused_with_the_field(operator_api, change, field):
    policy = copy.deepcopy(PROPAGATION)
    policy["spec"].update(change)
    status, body = check_rest(operator_api, yaml.safe_dump(policy))
    assert status == 400 and body["field"] == field, body


@pytest.mark.parametrize("change", [{"addOnConditions": 5}, {"taints": 5}])
def test_taint_policy_fields_of_the_wrong_shape_are_refused(operator_api, change):
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "ClusterTaintPolicy",
        "metadata": {"name": "t"},
        "spec": {
            "addOnConditions": [{"conditionType": "Ready", "operator": "In", "statusValues": ["False"]}],
            "taints": [{"key": "k", "effect": "NoSchedule"}],
            **change,
        },
    }
    status, body = check_rest(operator_api, yaml.safe_dump(policy))
    assert status == 400 and body["field"].startswith("spec."), body
