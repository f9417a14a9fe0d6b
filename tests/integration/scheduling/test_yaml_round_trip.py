"""Karmada YAML applied and exported comes back unchanged, up to the webhook's defaults."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command

from scheduling.controllers.apply import ApplyError, parse_yaml
from scheduling.controllers.export import export_documents, to_yaml
from scheduling.models import OverridePolicy, PropagationPolicy, ResourceTemplate
from scheduling.services import apply_yaml

EXAMPLES = sorted((Path(__file__).parent / "examples").glob("*.yaml"))
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")

# Paths the webhooks and CRD schemas fill in, and the values they must hold.
WEBHOOK_DEFAULTS = [
    (r"metadata\.labels\.(cluster)?(propagation|override)policy\.karmada\.io/permanent-id", UUID),
    (r"metadata\.namespace", "default"),
    (r"spec\.priority", 0),
    (r"spec\.preemption", "Never"),
    (r"spec\.conflictResolution", "Abort"),
    (r"spec\.schedulerName", "default-scheduler"),
    (r"spec\.placement", {}),
    (r"spec\.resourceSelectors\[\d+\]\.namespace", None),
    (r"spec\.placement\.spreadConstraints\[\d+\]\.spreadByField", "cluster"),
    (r"spec\.placement\.spreadConstraints\[\d+\]\.minGroups", 1),
    (r"spec\.placement\.replicaScheduling\.replicaSchedulingType", "Divided"),
    (r"spec\.placement\.replicaScheduling\.replicaDivisionPreference", "Weighted"),
]


def flatten(value, prefix=""):
    """Leaf paths of a document: `spec.placement.clusterAffinity.clusterNames[0]` -> value."""
    if isinstance(value, dict) and value:
        out = {}
        for key, item in value.items():
            out.update(flatten(item, f"{prefix}.{key}" if prefix else key))
        return out
    if isinstance(value, list) and value:
        out = {}
        for index, item in enumerate(value):
            out.update(flatten(item, f"{prefix}[{index}]"))
        return out
    return {prefix: value}


def identity(doc):
    metadata = doc["metadata"]
    return doc["kind"], metadata.get("namespace", ""), metadata["name"]


def is_webhook_default(path, value, doc):
    for pattern, expected in WEBHOOK_DEFAULTS:
        if re.fullmatch(pattern, path):
            if expected is None:  # a selector's namespace defaults to the policy's own
                return value == doc["metadata"].get("namespace", "default")
            if isinstance(expected, re.Pattern):
                return bool(expected.match(str(value)))
            return value == expected
    return False


@pytest.mark.django_db
@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_an_applied_example_exports_unchanged_up_to_webhook_defaults(example):
    text = example.read_text()
    originals = parse_yaml(text)
    apply_yaml(text)
    exported = {identity(d): d for d in export_documents() if d["kind"] != "ResourceBinding"}
    assert len(exported) == len(originals)
    for original in originals:
        namespaced = original["kind"] not in (
            "ClusterPropagationPolicy",
            "ClusterOverridePolicy",
            "ClusterRole",
        )
        namespaced = namespaced and original["kind"] not in ("ClusterTaintPolicy", "Namespace")
        key = (
            original["kind"],
            original["metadata"].get("namespace", "default" if namespaced else ""),
            original["metadata"]["name"],
        )
        got = flatten(exported[key])
        want = flatten(original)
        changed = {path: (value, got.get(path)) for path, value in want.items() if got.get(path) != value}
        assert changed == {}, f"{key}: fields changed"
        added = {path: value for path, value in got.items() if path not in want}
        unexplained = {p: v for p, v in added.items() if not is_webhook_default(p, v, exported[key])}
        assert unexplained == {}, f"{key}: fields added that are not webhook defaults"


@pytest.mark.django_db
def test_applying_an_export_again_changes_nothing():
    for example in EXAMPLES:
        apply_yaml(example.read_text())
    first = to_yaml(export_documents())
    result = apply_yaml(first)
    assert {obj.action for obj in result.objects} <= {"unchanged", "skipped"}
    assert to_yaml(export_documents()) == first


@pytest.mark.django_db
def test_webhook_defaults_fill_a_divided_policy_and_its_spread_constraints():
    apply_yaml((Path(__file__).parent / "examples" / "spread-constraints.yaml").read_text())
    apply_yaml(
        """
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: bare}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement:
    spreadConstraints: [{maxGroups: 2}]
    replicaScheduling: {}
"""
    )
    policy = PropagationPolicy.objects.get(name="bare")
    assert policy.namespace == "default"
    assert policy.spec["resourceSelectors"][0]["namespace"] == "default"
    assert policy.spec["placement"]["spreadConstraints"] == [
        {"maxGroups": 2, "spreadByField": "cluster", "minGroups": 1}
    ]
    assert policy.spec["placement"]["replicaScheduling"] == {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
    }
    assert (policy.priority, policy.preemption, policy.conflict_resolution) == (0, "Never", "Abort")


@pytest.mark.django_db
def test_apply_updates_by_name_and_bumps_the_generation_only_when_the_spec_changes():
    doc = (Path(__file__).parent / "examples" / "nginx-cluster-names.yaml").read_text()
    first = apply_yaml(doc)
    assert [o.action for o in first.objects] == ["created", "created"]
    assert [o.action for o in apply_yaml(doc).objects] == ["unchanged", "unchanged"]
    template = ResourceTemplate.objects.get(name="nginx")
    assert template.generation == 1
    apply_yaml(doc.replace("app: nginx\nspec:", "app: nginx\n    team: web\nspec:", 1))
    template.refresh_from_db()
    assert template.generation == 1 and template.labels["team"] == "web"
    apply_yaml(doc.replace("replicas: 2", "replicas: 5"))
    template.refresh_from_db()
    assert template.generation == 2 and template.manifest["spec"]["replicas"] == 5
    assert ResourceTemplate.objects.count() == 1


BAD_DOCUMENTS = [
    ("spec:\n  resourceSelectors: []", "spec.resourceSelectors", "at least one"),
    (
        "spec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]\n  placement:\n"
        "    clusterTolerations: [{key: a, operator: Lt, value: '1'}]",
        "spec.placement.clusterTolerations[0].operator",
        "",
    ),
    (
        "spec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]\n  preemption: Always",
        "spec.resourceSelectors[0].name",
        "preemption is Always",
    ),
    (
        "spec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, namespace: other}]",
        "spec.resourceSelectors[0].namespace",
        "policy's namespace",
    ),
    (
        "spec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]\n  suspension:\n"
        "    dispatching: true\n    dispatchingOnClusters: {clusterNames: [a]}",
        "spec.suspension.dispatchingOnClusters",
        "cannot co-exist",
    ),
    (
        "spec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]\n  failover:\n"
        "    application: {purgeMode: Directly}",
        "spec.propagateDeps",
        "must be true",
    ),
    (
        "spec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]\n  placement:\n"
        "    spreadConstraints: [{spreadByField: region, spreadByLabel: x}]",
        "spec.placement.spreadConstraints[0]",
        "",
    ),
    (
        "spec:\n  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]\n  placement:\n"
        "    reschedulePolicy: {enable: true, trigger: {duration: soon, threshold: 80}}",
        "spec.placement.reschedulePolicy.trigger.duration",
        "duration",
    ),
]


@pytest.mark.django_db
@pytest.mark.parametrize("spec,field,reason", BAD_DOCUMENTS, ids=[b[1] for b in BAD_DOCUMENTS])
def test_a_bad_policy_is_refused_with_its_document_field_and_reason_and_nothing_is_saved(spec, field, reason):
    good = (Path(__file__).parent / "examples" / "nginx-cluster-names.yaml").read_text()
    bad = "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: bad}\n" + spec
    with pytest.raises(ApplyError) as caught:
        apply_yaml(good + "\n---\n" + bad)
    assert caught.value.index == 2
    assert caught.value.field.startswith(field), caught.value.as_dict()
    assert reason in caught.value.reason
    assert not ResourceTemplate.objects.exists() and not PropagationPolicy.objects.exists()


@pytest.mark.django_db
def test_an_override_policy_with_a_bad_overrider_names_the_field():
    bad = """
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: bad}
spec:
  overrideRules:
  - overriders:
      imageOverrider: [{component: Digest, operator: replace, value: x}]
"""
    with pytest.raises(ApplyError) as caught:
        apply_yaml(bad)
    assert caught.value.field == "spec.overrideRules[0].overriders.imageOverrider[0].component"
    assert not OverridePolicy.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "text,reason",
    [
        ("kind: [unclosed", "not valid YAML at line 1"),
        ("- just\n- a list", "must be a Kubernetes object"),
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Bad_Name}", "lowercase DNS name"),
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: karmada-es-a}", "reserved"),
        ("apiVersion: policy.karmada.io/v1alpha1\nkind: Nonsense\nmetadata: {name: x}", "is not a kind"),
    ],
)
def test_malformed_documents_are_refused_with_a_reason(text, reason):
    with pytest.raises(ApplyError) as caught:
        apply_yaml(text)
    assert reason in caught.value.reason


@pytest.mark.django_db
def test_the_apply_and_export_commands_read_files_and_stdin_and_write_files(tmp_path, monkeypatch):
    out = io.StringIO()
    call_command("apply", "-f", str(EXAMPLES[0]), stdout=out)
    assert "created" in out.getvalue()
    monkeypatch.setattr(
        "sys.stdin", io.StringIO((Path(__file__).parent / "examples" / "taint-policy.yaml").read_text())
    )
    out = io.StringIO()
    call_command("apply", "-f", "-", stdout=out)
    assert out.getvalue().strip() == "clustertaintpolicy/evict-not-ready created"
    target = tmp_path / "export.yaml"
    call_command("export", "-o", str(target))
    kinds = [doc["kind"] for doc in yaml.safe_load_all(target.read_text())]
    assert "ClusterTaintPolicy" in kinds and "PropagationPolicy" in kinds
    with pytest.raises(CommandError, match=r"no-such-file\.yaml"):
        call_command("apply", "-f", str(tmp_path / "no-such-file.yaml"))
    with pytest.raises(CommandError, match=r"document 0: spec\.resourceSelectors"):
        bad = tmp_path / "bad.yaml"
        bad.write_text(
            "apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: b}\nspec: {}"
        )
        call_command("apply", "-f", str(bad))


@pytest.mark.django_db
def test_the_api_applies_yaml_for_operators_and_refuses_viewers(api_as, operator, viewer):
    text = EXAMPLES[0].read_text()
    assert api_as(viewer).post("/api/v1/apply/", text, content_type="application/yaml").status_code == 403
    response = api_as(operator).post("/api/v1/apply/", text, content_type="application/yaml")
    assert response.status_code == 200
    assert {o["action"] for o in response.json()["objects"]} == {"created"}
    bad = api_as(operator).post(
        "/api/v1/apply/", {"yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {}"}, format="json"
    )
    assert bad.status_code == 400
    body = bad.json()
    assert (body["code"], body["document"], body["field"]) == ("invalid", 0, "metadata.name")
    assert body["errors"] == [{"document": 0, "field": "metadata.name", "reason": body["reason"]}]
    exported = api_as(viewer).get("/api/v1/export/")
    assert exported.status_code == 200 and exported["Content-Type"].startswith("application/yaml")
    assert "kind: PropagationPolicy" in exported.content.decode()


@pytest.mark.django_db
def test_every_apply_is_in_the_audit_log_with_its_user(api_as, operator):
    from core.models import AuditEntry

    nginx = (Path(__file__).parent / "examples" / "nginx-cluster-names.yaml").read_text()
    api_as(operator).post("/api/v1/apply/", nginx, content_type="application/yaml")
    api_as(operator).post("/api/v1/apply/", nginx, content_type="application/yaml")
    entries = list(AuditEntry.objects.order_by("id").values_list("username", "action", "object_kind"))
    assert entries == [
        ("otto-operator", "apply:created", "Deployment"),
        ("otto-operator", "apply:created", "PropagationPolicy"),
    ]
