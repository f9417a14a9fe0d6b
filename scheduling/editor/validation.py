"""Checks of a whole policy document as Karmada's webhook makes them, each with the field path it concerns."""

from __future__ import annotations

import re
from typing import Any

from scheduling.editor import policy
from scheduling.planner import DIVISION_ANNOTATION, division_method_from_annotations, validate_placement
from scheduling.planner import InputError

_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")

Problem = tuple[str, str]


def _name_problem(value: Any, *, label: bool) -> str | None:
    if not isinstance(value, str) or not value:
        return "is required"
    limit, pattern = (63, _DNS_LABEL) if label else (253, _DNS_SUBDOMAIN)
    if len(value) > limit or not pattern.match(value):
        return (
            "must be lowercase letters, digits and '-'"
            + ("" if label else " or '.'")
            + f", start and end with a letter or digit, at most {limit} characters"
        )
    return None


def _selector_problems(doc: dict[str, Any]) -> list[Problem]:
    spec = policy.spec(doc)
    selectors = spec.get("resourceSelectors")
    if not isinstance(selectors, list) or not selectors:
        return [("spec.resourceSelectors", "needs at least one resource selector")]
    problems: list[Problem] = []
    namespace = policy.metadata(doc).get("namespace")
    always = spec.get("preemption") == "Always"
    for i, item in enumerate(selectors):
        path = f"spec.resourceSelectors[{i}]"
        if not isinstance(item, dict):
            problems.append((path, "must be an object with apiVersion and kind"))
            continue
        for key in ("apiVersion", "kind"):
            if not isinstance(item.get(key), str) or not item.get(key):
                problems.append((f"{path}.{key}", "is required"))
        for key in ("namespace", "name"):
            if item.get(key) is not None and not isinstance(item.get(key), str):
                problems.append((f"{path}.{key}", "must be a string"))
        if not policy.is_cluster_scoped(doc) and item.get("namespace") and item["namespace"] != namespace:
            problems.append((f"{path}.namespace", "must be the policy's own namespace"))
        if always and not item.get("name"):
            problems.append((f"{path}.name", "is required when preemption is Always"))
    return problems


def validate_policy(doc: dict[str, Any]) -> list[Problem]:
    """Every problem of a policy document as (field path, message); an empty list means it can be applied."""
    problems: list[Problem] = []
    if doc.get("apiVersion") != policy.API_VERSION:
        problems.append(("apiVersion", f"must be {policy.API_VERSION}"))
    if doc.get("kind") not in policy.KINDS:
        problems.append(("kind", f"must be {' or '.join(policy.KINDS)}"))
    meta = doc.get("metadata")
    if not isinstance(meta, dict):
        return [*problems, ("metadata", "must be an object with a name")]
    problem = _name_problem(meta.get("name"), label=False)
    if problem:
        problems.append(("metadata.name", problem))
    if not policy.is_cluster_scoped(doc):
        problem = _name_problem(meta.get("namespace"), label=True)
        if problem:
            problems.append(("metadata.namespace", problem))
    annotations = meta.get("annotations")
    if annotations is not None and not isinstance(annotations, dict):
        problems.append(("metadata.annotations", "must be a map of strings"))
    else:
        try:
            division_method_from_annotations(annotations)
        except InputError as exc:
            problems.append((f"metadata.annotations[{DIVISION_ANNOTATION}]", exc.message))
    spec = doc.get("spec")
    if not isinstance(spec, dict):
        return [*problems, ("spec", "must be an object with resourceSelectors and placement")]
    problems += _selector_problems(doc)
    priority = spec.get("priority")
    if priority is not None and (isinstance(priority, bool) or not isinstance(priority, int)):
        problems.append(("spec.priority", "must be an integer"))
    if spec.get("preemption") not in (None, "Always", "Never"):
        problems.append(("spec.preemption", "must be Always or Never"))
    placement = spec.get("placement")
    if placement is not None and not isinstance(placement, dict):
        problems.append(("spec.placement", "must be an object"))
    else:
        for path, message in validate_placement(placement or {}):
            problems.append((f"spec.placement.{path}" if path else "spec.placement", message))
    return problems
