"""YAML in: Kubernetes objects become resource templates and Karmada objects policies, in one transaction."""

from __future__ import annotations

import copy
import uuid
from dataclasses import dataclass, field
from typing import Any

import yaml
from django.db import transaction

from core import useryaml
from core.errors import FieldError
from scheduling.controllers.rollouts import first_revisions, keep_revision
from scheduling.controllers.values_sql import insert_rows
from scheduling.karmada import names
from scheduling.karmada.priority import PRIORITY_CLASS_API_GROUP, PRIORITY_CLASS_KIND
from scheduling.karmada.webhooks import (
    SpecInvalid,
    validate_metadata,
    validate_override_spec,
    validate_priority_class,
    validate_propagation_spec,
    validate_quota_spec,
    validate_taint_policy_spec,
)
from scheduling.models import (
    CLUSTER_OVERRIDE_POLICY,
    CLUSTER_PROPAGATION_POLICY,
    OVERRIDE_POLICY,
    PROPAGATION_POLICY,
    ClusterTaintPolicy,
    FederatedResourceQuota,
    OverridePolicy,
    PropagationPolicy,
    ResourceTemplate,
)
from scheduling.planner import InputError, rollout_spec_from_annotations

POLICY_API = "policy.karmada.io/v1alpha1"
# Kubernetes stores objects of at most 1.5 MiB; this leaves room for many in one apply.
MAX_APPLY_CHARACTERS = 8 * 2**20
POLICY_KINDS = (PROPAGATION_POLICY, CLUSTER_PROPAGATION_POLICY, OVERRIDE_POLICY, CLUSTER_OVERRIDE_POLICY)
FEDERATED_RESOURCE_QUOTA = "FederatedResourceQuota"
# Objects the control plane derives itself; an export contains them, applying one changes nothing.
DERIVED_GROUPS = ("work.karmada.io", "cluster.karmada.io")
CLUSTER_SCOPED_KINDS = frozenset(
    {
        "Namespace",
        "Node",
        "PersistentVolume",
        "ClusterRole",
        "ClusterRoleBinding",
        "CustomResourceDefinition",
        "StorageClass",
        "PriorityClass",
        "IngressClass",
        "RuntimeClass",
        "CSIDriver",
        "VolumeSnapshotClass",
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
        "APIService",
    }
)
SERVER_METADATA = (
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
)
CLAIM_LABELS = (names.PP_PERMANENT_ID, names.CPP_PERMANENT_ID)
CLAIM_ANNOTATIONS = (names.PP_NAME, names.PP_NAMESPACE, names.CPP_NAME)


class ApplyError(FieldError):
    """A document that cannot be applied: its index in the input, the field and the reason."""

    def __init__(self, index: int, field_path: str, reason: str) -> None:
        super().__init__(field_path, reason)
        self.index = index
        self.args = (
            f"document {index}: {field_path}: {reason}" if field_path else f"document {index}: {reason}",
        )

    def as_dict(self) -> dict[str, Any]:
        return {"document": self.index, "field": self.field, "reason": self.reason}

    def problems(self) -> list[dict[str, Any]]:
        return [self.as_dict()]


@dataclass
class Applied:
    """What applying one document did: created, configured, unchanged or skipped."""

    kind: str
    name: str
    namespace: str
    action: str
    note: str = ""
    # The object's fields before and after (None when it did not exist), for the audit log's diff.
    old: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    new: dict[str, Any] | None = field(default=None, repr=False, compare=False)

    def as_dict(self) -> dict[str, str]:
        data = {"kind": self.kind, "namespace": self.namespace, "name": self.name, "action": self.action}
        if self.note:
            data["note"] = self.note
        return data


@dataclass
class ApplyResult:
    """The outcome of one apply: a line per document and what changed for the detector."""

    objects: list[Applied] = field(default_factory=list)
    template_ids: list[int] = field(default_factory=list)
    # a policy, a quota or a PriorityClass changed: every template's binding may follow
    policies_changed: bool = False

    def lines(self) -> list[str]:
        out = []
        for obj in self.objects:
            where = f"{obj.namespace}/" if obj.namespace else ""
            note = f" ({obj.note})" if obj.note else ""
            out.append(f"{obj.kind.lower()}/{where}{obj.name} {obj.action}{note}")
        return out


def parse_yaml(text: str) -> list[Any]:
    """Every non-empty document of a multi-document YAML text; a `List` is flattened to its items."""
    if len(text) > MAX_APPLY_CHARACTERS:
        raise ApplyError(
            0, "", f"the YAML is larger than {MAX_APPLY_CHARACTERS // 2**20} MiB; apply it in parts"
        )
    try:
        loaded = [doc for doc in useryaml.load_all(text) if doc is not None]
    except yaml.reader.ReaderError as exc:
        # A character YAML never allows (a control character, say); str(exc) would span two lines.
        character = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "\0")
        raise ApplyError(
            0, "", f"not valid YAML at character {exc.position + 1}: {exc.reason} (#x{character:04x})"
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ApplyError(0, "", f"not valid YAML{where}: {problem}") from None
    documents: list[Any] = []
    for doc in loaded:
        if isinstance(doc, dict) and doc.get("kind") == "List" and isinstance(doc.get("items"), list):
            documents.extend(doc["items"])
        else:
            documents.append(doc)
    return documents


def apply_documents(documents: list[Any]) -> ApplyResult:
    """Create or update every document by name, all or nothing; each result carries its before/after."""
    result = ApplyResult()
    with transaction.atomic():
        templates = _Templates(documents, result)
        for index, document in enumerate(documents):
            try:
                applied = _apply_one(document, result, templates)
            except SpecInvalid as exc:
                path, reason = exc.errors[0]
                raise ApplyError(index, path, reason) from None
            result.objects.append(applied)
        templates.flush()
    return result


TemplateKey = tuple[str, str, str, str]  # api_group, kind, namespace, name


class _Templates:
    """The templates one apply names: the existing ones read and locked in one query per kind and
    namespace, the new ones written together with their first revisions (four statements a template,
    most of a large apply's time, became a few for the whole apply). A template named again after its
    creation in the same apply sees the row written first."""

    def __init__(self, documents: list[Any], result: ApplyResult) -> None:
        self.result = result
        self.keys = {key for key in map(_template_key, documents) if key is not None}
        self.found: dict[TemplateKey, ResourceTemplate] = {}
        self.new: dict[TemplateKey, ResourceTemplate] = {}
        by_scope: dict[tuple[str, str, str], list[str]] = {}
        for group, kind, namespace, name in self.keys:
            by_scope.setdefault((group, kind, namespace), []).append(name)
        for (group, kind, namespace), named in by_scope.items():
            rows = ResourceTemplate.objects.select_for_update().filter(
                api_group=group, kind=kind, namespace=namespace, name__in=named
            )
            for row in rows.order_by("pk"):
                self.found[(row.api_group, row.kind, row.namespace, row.name)] = row

    def get(self, key: TemplateKey) -> ResourceTemplate | None:
        """The template of this name, locked; None when there is none."""
        if key in self.new:
            self.flush()
        if key in self.found or key in self.keys:
            return self.found.get(key)
        group, kind, namespace, name = key
        return (
            ResourceTemplate.objects.select_for_update()
            .filter(api_group=group, kind=kind, namespace=namespace, name=name)
            .first()
        )

    def create(self, key: TemplateKey, template: ResourceTemplate) -> None:
        self.new[key] = template

    def flush(self) -> None:
        """Write the templates created so far, then their first revisions; their ids go to the detector."""
        if not self.new:
            return
        created = list(self.new.values())
        insert_rows(ResourceTemplate, created, key="uid")
        first_revisions(created)
        self.result.template_ids.extend(template.pk for template in created)
        self.found.update(self.new)
        self.keys.update(self.new)
        self.new = {}


def _template_key(document: Any) -> TemplateKey | None:
    """The name a document would be stored as a template under, when it reads as one (anything else is
    looked up, or refused, as it comes)."""
    if not isinstance(document, dict):
        return None
    api_version, kind, metadata = document.get("apiVersion"), document.get("kind"), document.get("metadata")
    if not (isinstance(api_version, str) and isinstance(kind, str) and isinstance(metadata, dict)):
        return None
    name, group = metadata.get("name"), api_version.rpartition("/")[0]
    if not isinstance(name, str) or group == "policy.karmada.io" or group in DERIVED_GROUPS:
        return None
    namespace = "" if kind in CLUSTER_SCOPED_KINDS else metadata.get("namespace") or "default"
    return (group, kind, namespace, name) if isinstance(namespace, str) else None


def _apply_one(document: Any, result: ApplyResult, templates: _Templates) -> Applied:
    if not isinstance(document, dict):
        raise SpecInvalid([("", "must be a Kubernetes object with apiVersion, kind and metadata")])
    api_version, kind = document.get("apiVersion"), document.get("kind")
    if not isinstance(api_version, str) or not api_version:
        raise SpecInvalid([("apiVersion", "is required")])
    if not isinstance(kind, str) or not kind:
        raise SpecInvalid([("kind", "is required")])
    group = api_version.rpartition("/")[0]
    if group == "policy.karmada.io":
        if api_version != POLICY_API:
            raise SpecInvalid([("apiVersion", f"must be {POLICY_API}")])
        if kind in POLICY_KINDS:
            return _apply_policy(document, kind, result)
        if kind == "ClusterTaintPolicy":
            return _apply_taint_policy(document)
        if kind == FEDERATED_RESOURCE_QUOTA:
            return _apply_quota(document, result)
        raise SpecInvalid([("kind", f"{kind} is not a kind of {POLICY_API} this control plane stores")])
    if group in DERIVED_GROUPS:
        metadata = document.get("metadata") or {}
        note = "joined with `manage.py join`" if kind == "Cluster" else "derived by the control plane"
        return Applied(
            kind, str(metadata.get("name", "")), str(metadata.get("namespace", "") or ""), "skipped", note
        )
    return _apply_template(document, api_version, group, kind, result, templates)


def _split_metadata(document: dict[str, Any], namespaced: bool) -> tuple[str, str, dict[str, Any]]:
    metadata = document.get("metadata")
    errors = validate_metadata(metadata, namespaced)
    if errors or not isinstance(metadata, dict):
        raise SpecInvalid(errors)
    namespace = str(metadata.get("namespace") or "default") if namespaced else ""
    return metadata["name"], namespace, metadata


def _apply_policy(document: dict[str, Any], kind: str, result: ApplyResult) -> Applied:
    namespaced = not kind.startswith("Cluster")
    name, namespace, metadata = _split_metadata(document, namespaced)
    labels = dict(metadata.get("labels") or {})
    annotations = dict(metadata.get("annotations") or {})
    if kind in (PROPAGATION_POLICY, CLUSTER_PROPAGATION_POLICY):
        model: type[PropagationPolicy] | type[OverridePolicy] = PropagationPolicy
        id_label = names.CPP_PERMANENT_ID if kind == CLUSTER_PROPAGATION_POLICY else names.PP_PERMANENT_ID
        spec = validate_propagation_spec(kind, namespace, document.get("spec"))
        validate_rollout_annotations(annotations)
    else:
        model = OverridePolicy
        id_label = names.COP_PERMANENT_ID if kind == CLUSTER_OVERRIDE_POLICY else names.OP_PERMANENT_ID
        spec = validate_override_spec(kind, namespace, document.get("spec"))
    wanted_id = labels.pop(id_label, "")
    columns = propagation_columns(spec) if model is PropagationPolicy else {}
    policy = model.objects.select_for_update().filter(kind=kind, namespace=namespace, name=name).first()
    if policy is None:
        policy = model(
            kind=kind, namespace=namespace, name=name, labels=labels, annotations=annotations, spec=spec
        )
        permanent_id = _adoptable_id(model, wanted_id)
        if permanent_id:
            policy.permanent_id = permanent_id
        for key, value in columns.items():
            setattr(policy, key, value)
        policy.save()
        result.policies_changed = True
        return Applied(kind, name, namespace, "created", new=_policy_state(policy))
    if policy.spec == spec and policy.labels == labels and policy.annotations == annotations:
        return Applied(kind, name, namespace, "unchanged")
    old = _policy_state(policy)
    if policy.spec != spec:
        policy.generation += 1
    policy.spec, policy.labels, policy.annotations = spec, labels, annotations
    for key, value in columns.items():
        setattr(policy, key, value)
    policy.save()
    result.policies_changed = True
    return Applied(kind, name, namespace, "configured", old=old, new=_policy_state(policy))


def validate_rollout_annotations(annotations: dict[str, Any]) -> None:
    """The staged-rollout annotations parse, or SpecInvalid names the one that does not and why."""
    try:
        rollout_spec_from_annotations(annotations)
    except InputError as exc:
        raise SpecInvalid([(exc.path, exc.message)]) from None


def _policy_state(policy: Any) -> dict[str, Any]:
    return {"labels": policy.labels, "annotations": policy.annotations, "spec": copy.deepcopy(policy.spec)}


def propagation_columns(spec: dict[str, Any]) -> dict[str, Any]:
    """The columns of a PropagationPolicy row that follow from its (defaulted) spec."""
    return {
        "priority": spec["priority"],
        "preemption": spec["preemption"],
        "scheduler_name": spec["schedulerName"],
        "conflict_resolution": spec["conflictResolution"],
        "propagate_deps": bool(spec.get("propagateDeps") or spec.get("association")),
        "activation_preference": spec.get("activationPreference", ""),
    }


def policy_row(document: dict[str, Any]) -> PropagationPolicy:
    """A (Cluster)PropagationPolicy document as the row apply would store, unsaved; SpecInvalid when
    apply would refuse it."""
    kind = document.get("kind")
    if kind not in (PROPAGATION_POLICY, CLUSTER_PROPAGATION_POLICY):
        raise SpecInvalid([("kind", "must be PropagationPolicy or ClusterPropagationPolicy")])
    name, namespace, metadata = _split_metadata(document, namespaced=kind == PROPAGATION_POLICY)
    spec = validate_propagation_spec(kind, namespace, document.get("spec"))
    return PropagationPolicy(
        kind=kind,
        namespace=namespace,
        name=name,
        labels=dict(metadata.get("labels") or {}),
        annotations=dict(metadata.get("annotations") or {}),
        spec=spec,
        **propagation_columns(spec),
    )


def _adoptable_id(model: Any, text: str) -> uuid.UUID | None:
    """Keep a permanent id carried over from an export, unless it is malformed or taken here."""
    try:
        value = uuid.UUID(text)
    except (TypeError, ValueError):
        return None
    return None if model.objects.filter(permanent_id=value).exists() else value


def _apply_taint_policy(document: dict[str, Any]) -> Applied:
    name, _, metadata = _split_metadata(document, namespaced=False)
    spec = validate_taint_policy_spec(document.get("spec"))
    labels = dict(metadata.get("labels") or {})
    annotations = dict(metadata.get("annotations") or {})
    policy = ClusterTaintPolicy.objects.select_for_update().filter(name=name).first()
    if policy is None:
        policy = ClusterTaintPolicy.objects.create(
            name=name, spec=spec, labels=labels, annotations=annotations
        )
        return Applied("ClusterTaintPolicy", name, "", "created", new=_policy_state(policy))
    if (policy.spec, policy.labels, policy.annotations) == (spec, labels, annotations):
        return Applied("ClusterTaintPolicy", name, "", "unchanged")
    old = _policy_state(policy)
    if policy.spec != spec:
        policy.generation += 1
    policy.spec, policy.labels, policy.annotations = spec, labels, annotations
    policy.save()
    return Applied("ClusterTaintPolicy", name, "", "configured", old=old, new=_policy_state(policy))


def _apply_quota(document: dict[str, Any], result: ApplyResult) -> Applied:
    """A FederatedResourceQuota; its status is derived from the bindings, so a given one is ignored."""
    name, namespace, metadata = _split_metadata(document, namespaced=True)
    if len(name) > 63:
        raise SpecInvalid([("metadata.name", "must be no more than 63 characters")])
    spec = validate_quota_spec(document.get("spec"))
    labels = dict(metadata.get("labels") or {})
    annotations = dict(metadata.get("annotations") or {})
    quota = FederatedResourceQuota.objects.select_for_update().filter(namespace=namespace, name=name).first()
    if quota is None:
        quota = FederatedResourceQuota.objects.create(
            namespace=namespace, name=name, spec=spec, labels=labels, annotations=annotations
        )
        result.policies_changed = True
        return Applied(FEDERATED_RESOURCE_QUOTA, name, namespace, "created", new=_policy_state(quota))
    if (quota.spec, quota.labels, quota.annotations) == (spec, labels, annotations):
        return Applied(FEDERATED_RESOURCE_QUOTA, name, namespace, "unchanged")
    old = _policy_state(quota)
    if quota.spec != spec:
        quota.generation += 1
        result.policies_changed = True  # bindings refused before may fit now (or no longer grow)
    quota.spec, quota.labels, quota.annotations = spec, labels, annotations
    quota.save()
    return Applied(FEDERATED_RESOURCE_QUOTA, name, namespace, "configured", old=old, new=_policy_state(quota))


def clean_manifest(document: dict[str, Any], namespace: str) -> dict[str, Any]:
    """The template as stored: server-populated fields, status and the detector's claim metadata removed."""
    manifest = copy.deepcopy(document)
    manifest.pop("status", None)
    metadata = manifest.setdefault("metadata", {})
    for key in SERVER_METADATA:
        metadata.pop(key, None)
    if namespace:
        metadata["namespace"] = namespace
    else:
        metadata.pop("namespace", None)
    for key, drop in (("labels", CLAIM_LABELS), ("annotations", CLAIM_ANNOTATIONS)):
        values = metadata.get(key)
        if isinstance(values, dict):
            for item in drop:
                values.pop(item, None)
            if not values:
                metadata.pop(key)
    return manifest


def _body(manifest: dict[str, Any]) -> dict[str, Any]:
    """Everything but metadata: a change here bumps the template's generation."""
    return {key: value for key, value in manifest.items() if key != "metadata"}


def _apply_template(
    document: dict[str, Any],
    api_version: str,
    group: str,
    kind: str,
    result: ApplyResult,
    templates: _Templates,
) -> Applied:
    namespaced = kind not in CLUSTER_SCOPED_KINDS
    name, namespace, _ = _split_metadata(document, namespaced)
    if namespace and names.is_reserved_namespace(namespace):
        raise SpecInvalid([("metadata.namespace", f"{namespace} is reserved for the control plane")])
    priority_class = group == PRIORITY_CLASS_API_GROUP and kind == PRIORITY_CLASS_KIND
    if priority_class:
        problems = validate_priority_class(document)
        if problems:
            raise SpecInvalid(problems)
    manifest = clean_manifest(document, namespace)
    key = (group, kind, namespace, name)
    template = templates.get(key)
    if template is None:
        templates.create(
            key,
            ResourceTemplate(
                api_version=api_version,
                api_group=group,
                kind=kind,
                namespace=namespace,
                name=name,
                manifest=manifest,
            ),
        )
        result.policies_changed = result.policies_changed or priority_class
        return Applied(kind, name, namespace, "created", new=manifest)
    if template.manifest == manifest and template.deleting_since is None:
        return Applied(kind, name, namespace, "unchanged")
    old = copy.deepcopy(template.manifest)
    bumped = _body(template.manifest) != _body(manifest)
    if bumped:
        template.generation += 1
    template.manifest, template.api_version, template.deleting_since = manifest, api_version, None
    template.save()
    keep_revision(template, previous=old if bumped else None)
    result.template_ids.append(template.pk)
    result.policies_changed = result.policies_changed or priority_class  # bindings re-resolve their priority
    return Applied(kind, name, namespace, "configured", old=old, new=manifest)
