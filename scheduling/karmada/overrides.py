"""Override policies applied to a member copy, in Karmada's order (spec §1.5). Pure: no database, no I/O."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any

import yaml

from core import useryaml
from kubesyntax.jsonpatch import PatchError, apply_patch
from kubesyntax.jsonpointer import PointerError, resolve
from scheduling.karmada.documents import ResourceSelector, Workload
from scheduling.karmada.interpreter import pod_spec
from scheduling.planner import ClusterSnapshot
from scheduling.planner.selectors import ClusterAffinity, LabelSelector


class OverrideError(ValueError):
    """An overrider that cannot be applied to this manifest (a bad path, a non-string field...)."""


@dataclass(frozen=True)
class OverrideSource:
    """One (Cluster)OverridePolicy as the override step needs it."""

    kind: str
    namespace: str
    name: str
    spec: dict[str, Any]

    @property
    def cluster_scoped(self) -> bool:
        return self.kind == "ClusterOverridePolicy"


def resource_selectors(raw: list[dict[str, Any]]) -> list[ResourceSelector]:
    """spec.resourceSelectors in the form Karmada's matcher uses."""
    return [
        ResourceSelector(
            api_version=item.get("apiVersion", ""),
            kind=item.get("kind", ""),
            namespace=item.get("namespace", "") or "",
            name=item.get("name", "") or "",
            label_selector=LabelSelector.from_dict(item.get("labelSelector"), "labelSelector"),
        )
        for item in raw
    ]


def specificity(source: OverrideSource, workload: Workload) -> int | None:
    """0 match-all, 1 kind-only, 2 labelSelector, 3 name; None when the policy does not select it."""
    raw = source.spec.get("resourceSelectors")
    if raw is None:
        return 0
    best = max((s.priority(workload) for s in resource_selectors(raw)), default=0)
    return best or None


def ordered_sources(sources: list[OverrideSource], workload: Workload) -> list[OverrideSource]:
    """Cluster-scoped policies first, then namespaced; each group by specificity, then by name."""
    ranked = []
    for source in sources:
        if not source.cluster_scoped and source.namespace != workload.namespace:
            continue
        rank = specificity(source, workload)
        if rank is not None:
            ranked.append((0 if source.cluster_scoped else 1, rank, source.name, source))
    return [entry[3] for entry in sorted(ranked, key=lambda entry: entry[:3])]


def rules_of(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """overrideRules, or the deprecated top-level targetCluster + overriders pair as one rule."""
    if spec.get("overrideRules") is not None:
        return list(spec["overrideRules"])
    if spec.get("overriders") is not None:
        return [{"targetCluster": spec.get("targetCluster"), "overriders": spec["overriders"]}]
    return []


def apply_overrides(
    manifest: dict[str, Any], cluster: ClusterSnapshot, sources: list[OverrideSource], workload: Workload
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """The manifest after every rule matching this cluster, and the policies applied by scope."""
    result = copy.deepcopy(manifest)
    return result, override_in_place(result, cluster, sources, workload)


def override_in_place(
    result: dict[str, Any], cluster: ClusterSnapshot, sources: list[OverrideSource], workload: Workload
) -> dict[str, list[str]]:
    """apply_overrides on a manifest of the caller's own (changed in place): the policies applied."""
    applied: dict[str, list[str]] = {"cluster": [], "namespaced": []}
    for source in ordered_sources(sources, workload):
        used = False
        for rule in rules_of(source.spec):
            target = rule.get("targetCluster")
            if target is not None and not ClusterAffinity.from_dict(target, "targetCluster").matches(cluster):
                continue
            apply_overriders(result, rule.get("overriders") or {})
            used = True
        if used:
            applied["cluster" if source.cluster_scoped else "namespaced"].append(source.name)
    return applied


def apply_overriders(manifest: dict[str, Any], overriders: dict[str, Any]) -> None:
    """One rule's overriders in Karmada's fixed order, in place."""
    for item in overriders.get("imageOverrider") or []:
        override_images(manifest, item)
    for key, field in (("commandOverrider", "command"), ("argsOverrider", "args")):
        for item in overriders.get(key) or []:
            override_container_list(manifest, field, item)
    for key, field in (("labelsOverrider", "labels"), ("annotationsOverrider", "annotations")):
        for item in overriders.get(key) or []:
            override_metadata_map(manifest, field, item)
    for item in overriders.get("fieldOverrider") or []:
        override_field(manifest, item)
    operations = [
        _operation(item.get("operator", ""), item.get("path", ""), item.get("value"))
        for item in overriders.get("plaintext") or []
    ]
    patch(manifest, operations)


# ------------------------------------------------------------------------------------------ images


@dataclass
class Image:
    """``[registry/]repository[:tag|@digest]``."""

    registry: str
    repository: str
    tag: str
    digest: str

    @classmethod
    def parse(cls, text: str) -> Image:
        rest, _, digest = text.partition("@")
        registry = ""
        first, slash, remainder = rest.partition("/")
        if slash and ("." in first or ":" in first or first == "localhost"):
            registry, rest = first, remainder
        repository, tag = rest, ""
        name_part = rest.rsplit("/", 1)[-1]
        if ":" in name_part:
            repository, _, tag = rest.rpartition(":")
        return cls(registry, repository, tag, digest)

    def __str__(self) -> str:
        text = f"{self.registry}/{self.repository}" if self.registry else self.repository
        if self.digest:
            return f"{text}@{self.digest}"
        return f"{text}:{self.tag}" if self.tag else text


def _change(image: Image, component: str, operator: str, value: str) -> None:
    attribute = {"Registry": "registry", "Repository": "repository", "Tag": "tag"}[component]
    if component == "Tag" and image.digest:
        attribute = "digest"
    current = getattr(image, attribute)
    if operator == "add":
        setattr(image, attribute, current + value)
    elif operator == "replace":
        setattr(image, attribute, value)
    elif operator == "remove":
        setattr(image, attribute, "")


def override_images(manifest: dict[str, Any], item: dict[str, Any]) -> None:
    """Registry, repository or tag of the images the predicate names, or of every container."""
    component, operator, value = (
        item.get("component", ""),
        item.get("operator", ""),
        str(item.get("value", "")),
    )
    predicate = item.get("predicate")
    if predicate:
        path = predicate.get("path", "")
        image = Image.parse(str(get_pointer(manifest, path)))
        _change(image, component, operator, value)
        patch(manifest, [_operation("replace", path, str(image))])
        return
    pod = pod_spec(manifest)
    if pod is None:
        return
    for container in (pod.get("initContainers") or []) + (pod.get("containers") or []):
        if container.get("image"):
            image = Image.parse(container["image"])
            _change(image, component, operator, value)
            container["image"] = str(image)


# ------------------------------------------------------------------------- command, args, metadata


def override_container_list(manifest: dict[str, Any], field: str, item: dict[str, Any]) -> None:
    """Add values to, or remove values from, a container's command or args."""
    pod = pod_spec(manifest) or {}
    values = [str(v) for v in item.get("value") or []]
    for container in (pod.get("initContainers") or []) + (pod.get("containers") or []):
        if container.get("name") != item.get("containerName"):
            continue
        current = list(container.get(field) or [])
        if item.get("operator") == "add":
            current += values
        else:
            current = [entry for entry in current if entry not in values]
        container[field] = current


def override_metadata_map(manifest: dict[str, Any], field: str, item: dict[str, Any]) -> None:
    """Labels or annotations: add sets keys, remove deletes them, replace changes only existing keys."""
    metadata = manifest.setdefault("metadata", {})
    current = dict(metadata.get(field) or {})
    for key, value in (item.get("value") or {}).items():
        operator = item.get("operator")
        if operator == "add" or (operator == "replace" and key in current):
            current[key] = str(value)
        elif operator == "remove":
            current.pop(key, None)
    if current:
        metadata[field] = current
    else:
        metadata.pop(field, None)


# ------------------------------------------------------------------------- fields and JSON patches


def override_field(manifest: dict[str, Any], item: dict[str, Any]) -> None:
    """Patch a string field that holds JSON or YAML (e.g. a ConfigMap key), re-serialising it."""
    path = item.get("fieldPath", "")
    text = get_pointer(manifest, path)
    if not isinstance(text, str):
        raise OverrideError(f"{path}: fieldOverrider needs a string field")
    as_json = bool(item.get("json"))
    try:
        document = json.loads(text) if as_json else useryaml.load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise OverrideError(f"{path}: not valid {'JSON' if as_json else 'YAML'}: {exc}") from None
    operations = [
        _operation(op.get("operator", ""), "/root" + op.get("subPath", ""), op.get("value"))
        for op in item.get("json") or item.get("yaml") or []
    ]
    result = patch({"root": document if document is not None else {}}, operations)["root"]
    text = json.dumps(result) if as_json else yaml.safe_dump(result, sort_keys=False, allow_unicode=True)
    patch(manifest, [_operation("replace", path, text)])


def get_pointer(document: Any, pointer: str) -> Any:
    """The value at a JSON pointer of the manifest."""
    try:
        return resolve(document, pointer)
    except PointerError as exc:
        raise OverrideError(str(exc)) from None


def patch(document: Any, operations: list[dict[str, Any]]) -> Any:
    """Karmada's JSON patch, in place: an `add` creates the missing objects on its way; the document."""
    try:
        return apply_patch(document, operations, create_parents=True, in_place=True)
    except PatchError as exc:
        raise OverrideError(str(exc)) from None


def _operation(operator: str, path: str, value: Any) -> dict[str, Any]:
    """Karmada's {operator, path, value} as a JSON-patch operation."""
    return {"op": operator, "path": path, "value": value}
